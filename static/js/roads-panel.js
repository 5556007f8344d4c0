/**
 * The roads panel and its enlarged view (a dialog): the five named roads (roads.js), the ask roads
 * ("Banker?" / "Player?" blink the next mark of every road) and the shoe's statistics.
 */

import { DERIVED_ROADS, MARK_COLOURS, ROAD_NAMES, askSpots, drawAskMark, renderRoad, scrollToLatest } from "./roads.js";

const ASK_SHOWN_MS = 3000; // as long as the blinking of .road-ask in roads.css
const SIDE_NAMES = { banker: pgettext("result", "Banker"), player: pgettext("result", "Player") };
const STATS = [
  ["banker", pgettext("result", "Banker")],
  ["player", pgettext("result", "Player")],
  ["tie", pgettext("result", "Tie")],
  ["banker_pair", gettext("B pair")],
  ["player_pair", gettext("P pair")],
  ["natural", gettext("Natural")],
];
const RESULT_SHARES = ["banker", "player", "tie"];

const percent = (part, whole) => (whole ? `${Math.round((part * 100) / whole)}%` : "–");

function statItem(key, label, value, share) {
  const item = document.createElement("div");
  item.className = `stat stat--${key.replaceAll("_", "-")}`;
  const term = document.createElement("dt");
  const count = document.createElement("dd");
  term.textContent = label;
  count.className = "stat-count";
  count.textContent = value;
  item.append(term, count);
  if (share !== undefined) {
    const part = document.createElement("dd");
    part.className = "stat-percent";
    part.textContent = share;
    item.append(part);
  }
  return item;
}

/** Banker, Player and Tie as shares of one bar (decoration: the statistics say the same in words). */
function shareBar(stats) {
  const bar = document.createElement("div");
  bar.className = "stats-bar";
  bar.setAttribute("aria-hidden", "true");
  for (const key of RESULT_SHARES) {
    const part = document.createElement("span");
    part.className = `stats-bar-part stats-bar-part--${key}`;
    part.style.flexGrow = stats[key];
    bar.append(part);
  }
  return bar;
}

/**
 * One drawing of the roads (the side panel's, or the enlarged view's) inside `root`: its
 * `[data-roads]` gets the five roads, `[data-stats]` the statistics, `[data-ask]` buttons ask.
 * `cellSizes()` gives the cell size in px of the Big Road and Bead Plate (`main`) and of the
 * derived roads (`derived`).
 */
class RoadsView {
  constructor(root, cellSizes) {
    this.cellSizes = cellSizes;
    this.stats = root.querySelector("[data-stats]");
    this.askStatus = root.querySelector("[data-ask-status]");
    this.scrollers = {};
    this.boards = {};
    this.askTimer = 0;
    this.roadmap = null;
    const roads = root.querySelector("[data-roads]");
    roads.classList.add("roads");
    roads.replaceChildren(...Object.keys(ROAD_NAMES).map((name) => this.roadBlock(name)));
    for (const button of root.querySelectorAll("[data-ask]")) {
      button.addEventListener("click", () => this.ask(button.dataset.ask));
    }
  }

  roadBlock(name) {
    const block = document.createElement("div");
    block.className = `road road--${name.replaceAll("_", "-")}`;
    const title = document.createElement("h3");
    title.className = "road-name";
    title.textContent = ROAD_NAMES[name];
    const scroller = document.createElement("div");
    scroller.className = "road-scroller";
    scroller.tabIndex = 0; // its older columns scroll into view by keyboard too
    scroller.setAttribute("role", "group");
    scroller.setAttribute("aria-label", ROAD_NAMES[name]);
    block.append(title, scroller);
    this.scrollers[name] = scroller;
    return block;
  }

  draw(roadmap) {
    this.roadmap = roadmap;
    this.clearAsk();
    const sizes = this.cellSizes();
    for (const [name, scroller] of Object.entries(this.scrollers)) {
      const size = DERIVED_ROADS.includes(name) ? sizes.derived : sizes.main;
      const columns = Math.max(6, Math.floor(scroller.clientWidth / size));
      this.boards[name] = renderRoad(name, roadmap, { columns, size, spareColumn: true });
      scroller.replaceChildren(this.boards[name]);
      scrollToLatest(scroller);
    }
    this.drawStats(roadmap.stats);
  }

  drawStats(stats) {
    const items = STATS.map(([key, label]) => statItem(key, label, stats[key], percent(stats[key], stats.coups)));
    this.stats.replaceChildren(...items, statItem("coups", gettext("Coups"), stats.coups), shareBar(stats));
  }

  /** Blink, for a few seconds, the mark each road would get if the next coup went to `side`. */
  ask(side) {
    if (!this.roadmap) return;
    this.clearAsk();
    const spots = askSpots(this.roadmap, side);
    for (const [name, spot] of Object.entries(spots)) {
      drawAskMark(this.boards[name], name, spot);
      scrollToLatest(this.scrollers[name]);
    }
    const derived = DERIVED_ROADS.map((name) =>
      interpolate(
        pgettext("a road and its mark", "%(road)s %(mark)s"),
        { road: ROAD_NAMES[name], mark: MARK_COLOURS[spots[name]?.color] ?? gettext("no mark") },
        true,
      ),
    );
    const marks = derived.join(pgettext("between the items of a list", ", "));
    this.askStatus.textContent = interpolate(gettext("If %(side)s wins next: %(marks)s"), { side: SIDE_NAMES[side], marks }, true);
    this.askTimer = setTimeout(() => this.clearAsk(), ASK_SHOWN_MS);
  }

  clearAsk() {
    clearTimeout(this.askTimer);
    for (const board of Object.values(this.boards)) board.querySelector(".road-ask")?.remove();
    this.askStatus.textContent = "";
  }

  /** Empty the drawing (a closed enlarged view keeps nothing to update). */
  clear() {
    this.clearAsk();
    this.roadmap = null;
    for (const scroller of Object.values(this.scrollers)) scroller.replaceChildren();
    this.boards = {};
    this.stats.replaceChildren();
  }
}

export class RoadsPanel {
  constructor(app) {
    const roomyScreen = window.matchMedia("(min-width: 900px) and (min-height: 640px)");
    this.shoeNumbers = app.querySelectorAll("[data-shoe]");
    // The docked strip's cells: as large as the layout's --road-cell (table-screen.css) makes room for.
    const panel = app.querySelector("[data-roads-panel]");
    this.panel = new RoadsView(panel, () => {
      const main = parseFloat(getComputedStyle(panel).getPropertyValue("--road-cell")) || 22;
      return { main, derived: Math.round(main * 0.7) };
    });
    this.dialog = app.querySelector('[data-dialog="roads"]');
    this.enlarged = new RoadsView(this.dialog, () =>
      roomyScreen.matches ? { main: 30, derived: 20 } : { main: 24, derived: 16 },
    );
    for (const button of app.querySelectorAll("[data-roads-enlarge]")) {
      button.addEventListener("click", () => this.enlarge());
    }
    this.dialog.addEventListener("close", () => this.enlarged.clear());
    this.roadmap = null;
    let resizeTimer;
    window.addEventListener("resize", () => {
      clearTimeout(resizeTimer);
      resizeTimer = setTimeout(() => this.draw(), 150);
    });
  }

  show(roadmap, shoe) {
    this.roadmap = roadmap;
    for (const number of this.shoeNumbers) number.textContent = shoe ? interpolate(gettext("· shoe %(number)s"), { number: shoe }, true) : "";
    this.draw();
  }

  draw() {
    if (!this.roadmap) return;
    this.panel.draw(this.roadmap);
    if (this.dialog.open) this.enlarged.draw(this.roadmap);
  }

  enlarge() {
    this.dialog.showModal();
    // Focus Close by script: an autofocus attribute is refused (and logged) inside a partner's cross-origin frame.
    this.dialog.querySelector("form[method=dialog] button").focus();
    if (this.roadmap) this.enlarged.draw(this.roadmap);
  }
}
