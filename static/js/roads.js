/**
 * The five baccarat roads as SVG, drawn from the roadmap JSON of baccarat/roads.py
 * (`Roadmap.to_dict()`, `manage.py roadmap --json`). Plain DOM, no dependencies.
 *
 * Each board is a viewBox in cell units (one cell = 1 x 1, 6 rows), scaled to `size` px a cell.
 */

const SVG_NS = "http://www.w3.org/2000/svg";
const ROWS = 6;
export const COLOURS = { B: "#d0021b", P: "#1656c9", T: "#17923a", red: "#d0021b", blue: "#1656c9" };
const RESULT_NAMES = { B: pgettext("result", "Banker"), P: pgettext("result", "Player"), T: pgettext("result", "Tie") };
// A bead's letter: B, P, T in English; 庄, 闲, 和 at a Chinese table.
export const BEAD_LETTERS = {
  B: pgettext("bead letter: Banker", "B"),
  P: pgettext("bead letter: Player", "P"),
  T: pgettext("bead letter: Tie", "T"),
};
const SIDE_RESULTS = { banker: "B", player: "P" };
/** The roads in the order they are shown, by their players' names. */
export const ROAD_NAMES = {
  big_road: gettext("Big Road"),
  bead_plate: gettext("Bead Plate"),
  big_eye_road: gettext("Big Eye Boy"),
  small_road: gettext("Small Road"),
  cockroach_road: gettext("Cockroach Pig"),
};
export const DERIVED_ROADS = ["big_eye_road", "small_road", "cockroach_road"];
/** A derived road's marks by their colour, as players say them. */
export const MARK_COLOURS = { red: pgettext("road mark", "red"), blue: pgettext("road mark", "blue") };

function el(name, attrs, parent) {
  const node = document.createElementNS(SVG_NS, name);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  parent?.append(node);
  return node;
}

/**
 * A board's width in cells: at least `columns` (and 1), every cell on it, and with `spareColumn` a free
 * column after the latest cell, where the next coup's mark may go (the ask roads show it there).
 */
export function boardColumns(cells, { columns = 0, spareColumn = false } = {}) {
  const lastColumn = Math.max(-1, ...cells.map((cell) => cell.col));
  return Math.max(columns, 1, lastColumn + (spareColumn ? 2 : 1));
}

/** An empty board `boardColumns` wide, with its grid. */
function board(cells, label, { columns = 0, size = 24, spareColumn = false } = {}) {
  const width = boardColumns(cells, { columns, spareColumn });
  const svg = el("svg", {
    class: "road-board",
    role: "img",
    "aria-label": label,
    viewBox: `0 0 ${width} ${ROWS}`,
    width: width * size,
    height: ROWS * size,
  });
  let grid = "";
  for (let col = 0; col <= width; col += 1) grid += `M${col} 0V${ROWS}`;
  for (let row = 0; row <= ROWS; row += 1) grid += `M0 ${row}H${width}`;
  el("path", { class: "road-grid", d: grid }, svg);
  return svg;
}

const centre = (cell) => [cell.col + 0.5, cell.row + 0.5];

/** Banker pair: a red dot top left; player pair: a blue dot bottom right (white-ringed to show on a circle). */
function pairDots(parent, cell) {
  const [x, y] = centre(cell);
  const dot = (offset, colour, pair) =>
    el("circle", { class: `road-pair road-pair--${pair}`, cx: x + offset, cy: y + offset, r: 0.18, fill: colour }, parent);
  if (cell.banker_pair) dot(-0.32, COLOURS.B, "banker");
  if (cell.player_pair) dot(0.32, COLOURS.P, "player");
}

function tieStripe(parent, cell, ties) {
  const [x, y] = centre(cell);
  el("line", { x1: x - 0.3, y1: y + 0.3, x2: x + 0.3, y2: y - 0.3, stroke: COLOURS.T, "stroke-width": 0.1 }, parent);
  if (ties > 1) {
    el("text", { class: "road-tie-count", x, y, fill: COLOURS.T }, parent).textContent = ties;
  }
}

/** A Bead Plate bead: a filled circle with its result's letter. */
function bead(parent, cell) {
  const [x, y] = centre(cell);
  el("circle", { cx: x, cy: y, r: 0.44, fill: COLOURS[cell.result] }, parent);
  el("text", { class: "road-bead-letter", x, y }, parent).textContent = BEAD_LETTERS[cell.result] ?? cell.result;
}

/** A Big Road circle, hollow, in its result's colour. */
function bigRoadCircle(parent, cell) {
  const [x, y] = centre(cell);
  el("circle", { cx: x, cy: y, r: 0.36, fill: "none", stroke: COLOURS[cell.result], "stroke-width": 0.13 }, parent);
}

/** The icon of each derived road: Big Eye Boy hollow circles, Small Road dots, Cockroach Pig slashes. */
const MARKS = {
  big_eye_road: (parent, [x, y], colour) =>
    el("circle", { cx: x, cy: y, r: 0.33, fill: "none", stroke: colour, "stroke-width": 0.16 }, parent),
  small_road: (parent, [x, y], colour) => el("circle", { cx: x, cy: y, r: 0.36, fill: colour }, parent),
  cockroach_road: (parent, [x, y], colour) =>
    el("line", { x1: x - 0.32, y1: y + 0.32, x2: x + 0.32, y2: y - 0.32, stroke: colour, "stroke-width": 0.18 }, parent),
};

function count(items, key, value) {
  return items.filter((item) => item[key] === value).length;
}

/** Bead Plate: one filled circle per coup with its letter (Banker B red, Player P blue, Tie T green) and pair dots. */
export function renderBeadPlate(cells, options) {
  const label = cells.length
    ? interpolate(
        ngettext(
          "%(road)s: %(count)s coup, Banker %(banker)s, Player %(player)s, Tie %(tie)s",
          "%(road)s: %(count)s coups, Banker %(banker)s, Player %(player)s, Tie %(tie)s",
          cells.length,
        ),
        {
          road: ROAD_NAMES.bead_plate,
          count: cells.length,
          banker: count(cells, "result", "B"),
          player: count(cells, "result", "P"),
          tie: count(cells, "result", "T"),
        },
        true,
      )
    : interpolate(gettext("%(road)s: no coups"), { road: ROAD_NAMES.bead_plate }, true);
  const svg = board(cells, label, options);
  for (const cell of cells) {
    bead(svg, cell);
    pairDots(svg, cell);
  }
  return svg;
}

/** Big Road: hollow circles by streak, a green stripe (and count) for the ties after a coup, pair dots. */
export function renderBigRoad(road, options) {
  const { cells, columns, leading_ties: leadingTies } = road;
  const last = columns.at(-1);
  const say = (text, values) => interpolate(text, values, true);
  let label = say(ngettext("%(road)s: %(count)s column", "%(road)s: %(count)s columns", columns.length), {
    road: ROAD_NAMES.big_road,
    count: columns.length,
  });
  if (last) {
    const streak = say(gettext("latest %(result)s %(count)s in a row"), {
      result: RESULT_NAMES[last[0].result],
      count: last.length,
    });
    label += pgettext("between the items of a list", ", ") + streak;
  }
  if (leadingTies && !last) {
    const ties = say(ngettext("%(count)s tie", "%(count)s ties", leadingTies), { count: leadingTies });
    label += pgettext("between the items of a list", ", ") + ties;
  }
  const svg = board(cells, label, options);
  if (leadingTies && !cells.length) tieStripe(svg, { col: 0, row: 0 }, leadingTies);
  for (const cell of cells) {
    bigRoadCircle(svg, cell);
    if (cell.ties) tieStripe(svg, cell, cell.ties);
    pairDots(svg, cell);
  }
  return svg;
}

function renderDerivedRoad(name, road, options) {
  const { cells } = road;
  const label = cells.length
    ? interpolate(
        ngettext(
          "%(road)s: %(count)s mark, %(red)s red, %(blue)s blue, latest %(latest)s",
          "%(road)s: %(count)s marks, %(red)s red, %(blue)s blue, latest %(latest)s",
          cells.length,
        ),
        {
          road: ROAD_NAMES[name],
          count: cells.length,
          red: count(cells, "color", "red"),
          blue: count(cells, "color", "blue"),
          latest: MARK_COLOURS[cells.at(-1).color] ?? cells.at(-1).color,
        },
        true,
      )
    : interpolate(gettext("%(road)s: no marks yet"), { road: ROAD_NAMES[name] }, true);
  const svg = board(cells, label, options);
  for (const cell of cells) MARKS[name](svg, centre(cell), COLOURS[cell.color]);
  return svg;
}

/** The board of one road (`name` a key of ROAD_NAMES) of a roadmap. */
export function renderRoad(name, roadmap, options) {
  if (name === "bead_plate") return renderBeadPlate(roadmap.bead_plate, options);
  if (name === "big_road") return renderBigRoad(roadmap.big_road, options);
  return renderDerivedRoad(name, roadmap[name], options);
}

/**
 * The cell a road's next entry takes, as baccarat/roads.py's StreakGrid places it: `streak` is the
 * length of the latest streak among `cells`; `continues` whether the next entry goes on with it.
 */
function nextCell(cells, streak, continues) {
  if (!cells.length) return { col: 0, row: 0 };
  const taken = new Set(cells.map(({ col, row }) => `${col},${row}`));
  const last = cells.at(-1);
  const start = cells.at(-streak);
  if (!continues) {
    let col = start.col + 1;
    while (taken.has(`${col},0`)) col += 1;
    return { col, row: 0 };
  }
  if (last.col === start.col && last.row < ROWS - 1 && !taken.has(`${last.col},${last.row + 1}`)) {
    return { col: last.col, row: last.row + 1 };
  }
  return { col: last.col + 1, row: last.row };
}

function trailingRun(cells, key) {
  let length = 0;
  while (length < cells.length && cells.at(-1 - length)[key] === cells.at(-1)[key]) length += 1;
  return length;
}

/**
 * Where each road's next mark would go, and what it would be, if the next coup went to `side`
 * ("banker" or "player"): `{road: {col, row, result | color}}`, without the derived roads that
 * would get no mark.
 */
export function askSpots(roadmap, side) {
  const result = SIDE_RESULTS[side];
  const beads = roadmap.bead_plate.length;
  const spots = { bead_plate: { col: Math.floor(beads / ROWS), row: beads % ROWS, result } };
  const { cells, columns } = roadmap.big_road;
  const streak = columns.at(-1) ?? [];
  spots.big_road = { ...nextCell(cells, streak.length, streak[0]?.result === result), result };
  for (const name of DERIVED_ROADS) {
    const color = roadmap.ask[side][name];
    if (!color) continue;
    const marks = roadmap[name].cells;
    const continues = marks.at(-1)?.color === color;
    spots[name] = { ...nextCell(marks, trailingRun(marks, "color"), continues), color };
  }
  return spots;
}

/** Draw `spot` (from askSpots) on road `name`'s board, blinking (roads.css). */
export function drawAskMark(svg, name, spot) {
  const group = el("g", { class: "road-ask", "data-col": spot.col, "data-row": spot.row }, svg);
  el("rect", { class: "road-ask-cell", x: spot.col, y: spot.row, width: 1, height: 1 }, group);
  if (name === "bead_plate") bead(group, spot);
  else if (name === "big_road") bigRoadCircle(group, spot);
  else MARKS[name](group, centre(spot), COLOURS[spot.color]);
  return group;
}

/** Scroll a board's container to its latest columns (the right end). */
export function scrollToLatest(scroller) {
  scroller.scrollLeft = scroller.scrollWidth;
}
