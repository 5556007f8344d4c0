/** The roads panel: the five roads (roads.js), the ask roads ("Banker?" / "Player?") and the shoe statistics. */

import { renderAskMark, renderRoads } from "./roads.js";

const DERIVED = ["big_eye_road", "small_road", "cockroach_road"];
const STATS = [
  ["banker", "Banker"],
  ["player", "Player"],
  ["tie", "Tie"],
  ["banker_pair", "B pair"],
  ["player_pair", "P pair"],
  ["natural", "Natural"],
  ["coups", "Coups"],
];

export class RoadsPanel {
  constructor(root) {
    this.roads = root.querySelector("[data-roads]");
    this.stats = root.querySelector("[data-stats]");
    this.shoe = root.querySelector("[data-shoe]");
    this.asks = Object.fromEntries(
      ["banker", "player"].map((side) => [side, root.querySelector(`[data-ask-marks="${side}"]`)]),
    );
    for (const button of root.querySelectorAll("[data-ask]")) {
      button.addEventListener("click", () => this.ask(button.dataset.ask));
    }
    this.roadmap = null;
    let resizeTimer;
    window.addEventListener("resize", () => {
      clearTimeout(resizeTimer);
      resizeTimer = setTimeout(() => this.draw(), 150);
    });
  }

  show(roadmap, shoe) {
    this.roadmap = roadmap;
    this.shoe.textContent = shoe ? `· shoe ${shoe}` : "";
    this.draw();
  }

  draw() {
    if (!this.roadmap) return;
    const size = window.matchMedia("(max-width: 700px)").matches ? 16 : 18;
    const columns = Math.max(12, Math.floor(this.roads.clientWidth / size));
    renderRoads(this.roads, this.roadmap, { columns, size });
    for (const side of Object.keys(this.asks)) this.drawAsk(side, false);
    const counts = this.roadmap.stats;
    this.stats.replaceChildren(
      ...STATS.map(([key, label]) => {
        const item = document.createElement("div");
        item.className = `stat stat--${key.replace("_", "-")}`;
        item.innerHTML = "<dt></dt><dd></dd>";
        item.querySelector("dt").textContent = label;
        item.querySelector("dd").textContent = counts[key];
        return item;
      }),
    );
  }

  /** The mark each derived road would get if the next coup went to `side`, flashing when asked. */
  drawAsk(side, flash) {
    const marks = DERIVED.map((road) => {
      const mark = renderAskMark(road, this.roadmap.ask[side][road], { size: 18 });
      if (flash) mark.classList.add("road-ask--flash");
      return mark;
    });
    this.asks[side].replaceChildren(...marks);
  }

  ask(side) {
    if (this.roadmap) this.drawAsk(side, true);
  }
}
