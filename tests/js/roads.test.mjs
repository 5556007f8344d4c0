import "./setup.mjs";

import assert from "node:assert/strict";
import { test } from "node:test";

import { askSpots, boardColumns } from "../../static/js/roads.js";

/**
 * A roadmap as baccarat/roads.py's Roadmap.to_dict() has it, of what askSpots and boardColumns read: `beads`
 * coups on the Bead Plate, the Big Road's cells ([col, row, result], in the order placed), the derived roads'
 * ([col, row, color]) and the ask roads. The shoes below were played through baccarat.roads.build_roadmap,
 * with the coup asked about after them, for the spots expected.
 */
function roadmap({ beads, big, derived = {}, ask }) {
  const cells = big.map(([col, row, result]) => ({ col, row, result, ties: 0 }));
  const columns = [];
  for (const cell of cells) {
    if (columns.at(-1)?.[0].result === cell.result) columns.at(-1).push(cell);
    else columns.push([cell]);
  }
  const road = (name) => ({ cells: (derived[name] ?? []).map(([col, row, color]) => ({ col, row, color })) });
  const none = { big_eye_road: null, small_road: null, cockroach_road: null };
  return {
    bead_plate: Array.from({ length: beads }, (_, index) => ({ col: Math.floor(index / 6), row: index % 6 })),
    big_road: { cells, columns, leading_ties: 0 },
    big_eye_road: road("big_eye_road"),
    small_road: road("small_road"),
    cockroach_road: road("cockroach_road"),
    ask: { banker: { ...none, ...ask?.banker }, player: { ...none, ...ask?.player } },
  };
}

const column = (col, rows, result) => Array.from({ length: rows }, (_, row) => [col, row, result]);

test("an empty shoe's first coup goes top left on every road it marks", () => {
  const empty = roadmap({ beads: 2, big: [] }); // two ties: on the Bead Plate only
  assert.deepEqual(askSpots(empty, "banker"), {
    bead_plate: { col: 0, row: 2, result: "B" },
    big_road: { col: 0, row: 0, result: "B" },
  });
});

test("a streak goes on down its column; the other side starts the next column (BBBBBBBPPT)", () => {
  const shoe = roadmap({
    beads: 10,
    big: [...column(0, 6, "B"), [1, 5, "B"], [1, 0, "P"], [1, 1, "P"]],
    derived: { big_eye_road: [[0, 0, "red"]] },
    ask: { banker: { big_eye_road: "blue" }, player: { big_eye_road: "red" } },
  });
  assert.deepEqual(askSpots(shoe, "player"), {
    bead_plate: { col: 1, row: 4, result: "P" },
    big_road: { col: 1, row: 2, result: "P" },
    big_eye_road: { col: 0, row: 1, color: "red" },
  });
  assert.deepEqual(askSpots(shoe, "banker"), {
    bead_plate: { col: 1, row: 4, result: "B" },
    big_road: { col: 2, row: 0, result: "B" },
    big_eye_road: { col: 1, row: 0, color: "blue" },
  });
});

test("a streak longer than a column turns right along its last row: a dragon's tail (BBBBBB)", () => {
  const shoe = roadmap({ beads: 6, big: column(0, 6, "B") });
  assert.deepEqual(askSpots(shoe, "banker"), {
    bead_plate: { col: 1, row: 0, result: "B" },
    big_road: { col: 1, row: 5, result: "B" },
  });
});

test("a streak blocked by an earlier dragon's tail turns right (BBBBBBBBPPPPP)", () => {
  const shoe = roadmap({
    beads: 13,
    big: [...column(0, 6, "B"), [1, 5, "B"], [2, 5, "B"], ...column(1, 5, "P")],
    derived: { big_eye_road: column(0, 4, "red") },
    ask: { banker: { big_eye_road: "blue" }, player: { big_eye_road: "red" } },
  });
  assert.deepEqual(askSpots(shoe, "player").big_road, { col: 2, row: 4, result: "P" });
  assert.deepEqual(askSpots(shoe, "player").big_eye_road, { col: 0, row: 4, color: "red" });
  assert.deepEqual(askSpots(shoe, "banker").big_road, { col: 2, row: 0, result: "B" });
  assert.deepEqual(askSpots(shoe, "banker").bead_plate, { col: 2, row: 1, result: "B" });
});

test("every derived road gets its mark where baccarat.roads puts it (BPBPBPBB)", () => {
  const derived = (reds) => [...column(0, reds, "red"), [1, 0, "blue"]];
  const shoe = roadmap({
    beads: 8,
    big: [[0, 0, "B"], [1, 0, "P"], [2, 0, "B"], [3, 0, "P"], [4, 0, "B"], [5, 0, "P"], [6, 0, "B"], [6, 1, "B"]],
    derived: { big_eye_road: derived(5), small_road: derived(4), cockroach_road: derived(3) },
    ask: {
      banker: { big_eye_road: "red", small_road: "red", cockroach_road: "red" },
      player: { big_eye_road: "blue", small_road: "blue", cockroach_road: "blue" },
    },
  });
  const banker = askSpots(shoe, "banker");
  assert.deepEqual(banker.big_road, { col: 6, row: 2, result: "B" });
  for (const name of ["big_eye_road", "small_road", "cockroach_road"]) {
    assert.deepEqual(banker[name], { col: 2, row: 0, color: "red" }, name);
  }
  const player = askSpots(shoe, "player");
  assert.deepEqual(player.big_road, { col: 7, row: 0, result: "P" });
  for (const name of ["big_eye_road", "small_road", "cockroach_road"]) {
    assert.deepEqual(player[name], { col: 1, row: 1, color: "blue" }, name);
  }
});

test("a board is as wide as asked, and wider for its cells and the ask roads' spare column", () => {
  const cells = [{ col: 0, row: 0 }, { col: 6, row: 1 }];
  assert.equal(boardColumns([]), 1);
  assert.equal(boardColumns([], { columns: 12 }), 12);
  assert.equal(boardColumns(cells, { columns: 6 }), 7);
  assert.equal(boardColumns(cells, { columns: 6, spareColumn: true }), 8);
  assert.equal(boardColumns(cells, { columns: 12, spareColumn: true }), 12);
});
