/**
 * The five baccarat roads as SVG, drawn from the roadmap JSON of baccarat/roads.py
 * (`Roadmap.to_dict()`, `manage.py roadmap --json`). Plain DOM, no dependencies.
 *
 * Each board is a viewBox in cell units (one cell = 1 x 1, 6 rows), scaled to `size` px a cell.
 */

const SVG_NS = "http://www.w3.org/2000/svg";
const ROWS = 6;
export const COLOURS = { B: "#d0021b", P: "#1656c9", T: "#17923a", red: "#d0021b", blue: "#1656c9" };
const RESULT_NAMES = { B: "Banker", P: "Player", T: "Tie" };
export const ROAD_NAMES = {
  bead_plate: "Bead Plate",
  big_road: "Big Road",
  big_eye_road: "Big Eye Road",
  small_road: "Small Road",
  cockroach_road: "Cockroach Road",
};

function el(name, attrs, parent) {
  const node = document.createElementNS(SVG_NS, name);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  parent?.append(node);
  return node;
}

/** An empty board at least `columns` wide, with its grid. */
function board(cells, label, { columns = 0, size = 24 } = {}) {
  const width = Math.max(columns, 1, ...cells.map((cell) => cell.col + 1));
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
  const dot = (dx, colour) =>
    el("circle", { cx: x + dx, cy: y + dx, r: 0.12, fill: colour, stroke: "#fff", "stroke-width": 0.05 }, parent);
  if (cell.banker_pair) dot(-0.3, COLOURS.B);
  if (cell.player_pair) dot(0.3, COLOURS.P);
}

function tieStripe(parent, cell, ties) {
  const [x, y] = centre(cell);
  el("line", { x1: x - 0.3, y1: y + 0.3, x2: x + 0.3, y2: y - 0.3, stroke: COLOURS.T, "stroke-width": 0.1 }, parent);
  if (ties > 1) {
    el("text", { class: "road-tie-count", x, y, fill: COLOURS.T }, parent).textContent = ties;
  }
}

/** The icon of each derived road: Big Eye Road hollow circles, Small Road dots, Cockroach Road slashes. */
const MARKS = {
  big_eye_road: (parent, [x, y], colour) =>
    el("circle", { cx: x, cy: y, r: 0.34, fill: "none", stroke: colour, "stroke-width": 0.14 }, parent),
  small_road: (parent, [x, y], colour) => el("circle", { cx: x, cy: y, r: 0.36, fill: colour }, parent),
  cockroach_road: (parent, [x, y], colour) =>
    el("line", { x1: x - 0.32, y1: y + 0.32, x2: x + 0.32, y2: y - 0.32, stroke: colour, "stroke-width": 0.16 }, parent),
};

function count(items, key, value) {
  return items.filter((item) => item[key] === value).length;
}

/** Bead Plate: one filled circle per coup (Banker red, Player blue, Tie green) with its pair dots. */
export function renderBeadPlate(cells, options) {
  const label = cells.length
    ? `${ROAD_NAMES.bead_plate}: ${cells.length} coups, Banker ${count(cells, "result", "B")}, ` +
      `Player ${count(cells, "result", "P")}, Tie ${count(cells, "result", "T")}`
    : `${ROAD_NAMES.bead_plate}: no coups`;
  const svg = board(cells, label, options);
  for (const cell of cells) {
    const [x, y] = centre(cell);
    el("circle", { cx: x, cy: y, r: 0.42, fill: COLOURS[cell.result] }, svg);
    pairDots(svg, cell);
  }
  return svg;
}

/** Big Road: hollow circles by streak, a green stripe (and count) for the ties after a coup, pair dots. */
export function renderBigRoad(road, options) {
  const { cells, columns, leading_ties: leadingTies } = road;
  const last = columns.at(-1);
  let label = `${ROAD_NAMES.big_road}: ${columns.length} columns`;
  if (last) label += `, latest ${RESULT_NAMES[last[0].result]} ${last.length} in a row`;
  if (leadingTies && !last) label += `, ${leadingTies} ties`;
  const svg = board(cells, label, options);
  if (leadingTies && !cells.length) tieStripe(svg, { col: 0, row: 0 }, leadingTies);
  for (const cell of cells) {
    const [x, y] = centre(cell);
    el("circle", { cx: x, cy: y, r: 0.36, fill: "none", stroke: COLOURS[cell.result], "stroke-width": 0.12 }, svg);
    if (cell.ties) tieStripe(svg, cell, cell.ties);
    pairDots(svg, cell);
  }
  return svg;
}

function renderDerivedRoad(name, road, options) {
  const { cells } = road;
  const label = cells.length
    ? `${ROAD_NAMES[name]}: ${cells.length} marks, ${count(cells, "color", "red")} red, ` +
      `${count(cells, "color", "blue")} blue, latest ${cells.at(-1).color}`
    : `${ROAD_NAMES[name]}: no marks yet`;
  const svg = board(cells, label, options);
  for (const cell of cells) MARKS[name](svg, centre(cell), COLOURS[cell.color]);
  return svg;
}

export const renderBigEyeRoad = (road, options) => renderDerivedRoad("big_eye_road", road, options);
export const renderSmallRoad = (road, options) => renderDerivedRoad("small_road", road, options);
export const renderCockroachRoad = (road, options) => renderDerivedRoad("cockroach_road", road, options);

/** One cell holding the next mark of a derived road (`color` "red", "blue" or null), for "Banker?" / "Player?". */
export function renderAskMark(name, color, { size = 24 } = {}) {
  const svg = el("svg", {
    class: "road-ask",
    role: "img",
    "aria-label": `${ROAD_NAMES[name]}: ${color ?? "no mark"}`,
    viewBox: "0 0 1 1",
    width: size,
    height: size,
  });
  if (color) MARKS[name](svg, [0.5, 0.5], COLOURS[color]);
  return svg;
}

/** Scroll a board's container to its latest columns (the right end). */
export function scrollToLatest(scroller) {
  scroller.scrollLeft = scroller.scrollWidth;
}

/**
 * Replace `container`'s content with the five roads, each in a horizontally scrolling box
 * scrolled to its latest columns. The derived roads use half-size cells, twice as many per width.
 */
export function renderRoads(container, roadmap, { columns = 24, size = 24 } = {}) {
  const main = { columns, size };
  const half = { columns: columns * 2, size: size / 2 };
  const boards = {
    bead_plate: renderBeadPlate(roadmap.bead_plate, main),
    big_road: renderBigRoad(roadmap.big_road, main),
    big_eye_road: renderBigEyeRoad(roadmap.big_eye_road, half),
    small_road: renderSmallRoad(roadmap.small_road, half),
    cockroach_road: renderCockroachRoad(roadmap.cockroach_road, half),
  };
  const scrollers = Object.entries(boards).map(([name, svg]) => {
    const scroller = document.createElement("div");
    scroller.className = `road road--${name.replaceAll("_", "-")}`;
    scroller.append(svg);
    return scroller;
  });
  container.classList.add("roads");
  container.replaceChildren(...scrollers);
  scrollers.forEach(scrollToLatest);
  return boards;
}
