import "./setup.mjs";

import assert from "node:assert/strict";
import { test } from "node:test";

import {
  autoSend,
  bettingOpen,
  coupPhase,
  disabledControls,
  inPlay,
  payOutDelay,
  roundOfTable,
  roundOutcome,
  sameRound,
  timerFrame,
  timerLength,
} from "../../static/js/table-state.js";

const clockWith = (seconds) => ({ secondsUntil: () => seconds });

test("the phase the page shows for each coup, at a table open or closed", () => {
  const open = { isOpen: true };
  const closed = { isOpen: false };
  assert.equal(coupPhase(null, open), "waiting");
  assert.equal(coupPhase(null, closed), "closed");
  assert.equal(coupPhase({ state: "betting" }, closed), "betting"); // a coup under way plays out
  assert.equal(coupPhase({ state: "betting", no_bet: true }, open), "no_bet");
  assert.equal(coupPhase({ state: "no_more_bets" }, open), "dealing");
  assert.equal(coupPhase({ state: "dealing" }, open), "dealing");
  assert.equal(coupPhase({ state: "held" }, open), "held");
  assert.equal(coupPhase({ state: "void" }, open), "void");
  assert.equal(coupPhase({ state: "resolved", winner: "tie" }, open), "result");
  assert.equal(coupPhase({ state: "settled", winner: "banker" }, closed), "result_closed");
});

test("a coup is in play from betting until it is resolved or void", () => {
  for (const state of ["betting", "no_more_bets", "dealing", "held"]) assert.equal(inPlay({ state }), true, state);
  for (const state of ["resolved", "settled", "void"]) assert.equal(inPlay({ state }), false, state);
  assert.equal(inPlay(null), false);
  assert.equal(inPlay(undefined), false);
});

test("bets are taken on a betting coup while its window is open by the server's clock", () => {
  const coup = { state: "betting", betting_closes_at: "2025-01-01T10:00:20Z" };
  assert.equal(bettingOpen(coup, clockWith(0.1)), true);
  assert.equal(bettingOpen(coup, clockWith(0)), false);
  assert.equal(bettingOpen({ ...coup, no_bet: true }, clockWith(10)), false);
  assert.equal(bettingOpen({ ...coup, state: "no_more_bets" }, clockWith(10)), false);
  assert.equal(bettingOpen(null, clockWith(10)), false);
});

test("the bet controls: Confirm needs chips, Undo and Remove chips or stakes, none works once bets are closed", () => {
  const enabled = (disabled) => Object.keys(disabled).filter((action) => !disabled[action]).sort();
  assert.deepEqual(enabled(disabledControls({ open: true, pending: 0, confirmed: 0 })), ["rebet", "rebet-double"]);
  assert.deepEqual(enabled(disabledControls({ open: true, pending: 0, confirmed: 500 })), ["rebet", "rebet-double", "remove", "undo"]);
  assert.deepEqual(enabled(disabledControls({ open: true, pending: 100, confirmed: 0 })), [
    "confirm",
    "rebet",
    "rebet-double",
    "remove",
    "undo",
  ]);
  assert.deepEqual(enabled(disabledControls({ open: false, pending: 100, confirmed: 500 })), []);
});

test("the timer bar's length is the betting window, or the time left when that is longer", () => {
  assert.equal(timerLength(15, 14.2), 15);
  assert.equal(timerLength(15, 16.3), 16.3);
  assert.equal(timerLength(undefined, 0), 1);
});

test("the timer counts whole seconds within the window, ticks the last 3 and announces the start, 10 and 5", () => {
  const windowSeconds = 15;
  const total = timerLength(windowSeconds, 15.4);
  const announced = [];
  const ticked = [];
  let lastWhole = null;
  for (let tenths = 154; tenths >= 0; tenths -= 2) {
    const frame = timerFrame(tenths / 10, { windowSeconds, total, lastWhole });
    if (frame.announce) announced.push(frame.whole);
    if (frame.tick) ticked.push(frame.whole);
    lastWhole = frame.whole;
  }
  assert.deepEqual(announced, [15, 10, 5]); // 15.4 s left shows 15: never more than the window
  assert.deepEqual(ticked, [3, 2, 1]);
  const frame = timerFrame(7.5, { windowSeconds, total: 15, lastWhole: 8 });
  assert.deepEqual(frame, { whole: 8, barPercent: 50, ending: false, tick: false, announce: false });
  assert.equal(timerFrame(3, { windowSeconds, total: 15, lastWhole: 4 }).ending, true);
});

test("unconfirmed chips: a warning from 5 s before the end, then sent 1.5 s before it", () => {
  assert.deepEqual(autoSend(6, true), { warn: false, warnSeconds: 5, send: false });
  assert.deepEqual(autoSend(5, true), { warn: true, warnSeconds: 4, send: false });
  assert.deepEqual(autoSend(1.6, true), { warn: true, warnSeconds: 1, send: false });
  assert.deepEqual(autoSend(1.5, true), { warn: false, warnSeconds: 0, send: true });
  assert.deepEqual(autoSend(0, true), { warn: false, warnSeconds: 0, send: false }); // too late: handed back
  assert.deepEqual(autoSend(3, false), { warn: false, warnSeconds: 2, send: false });
});

test("the player's outcome of a round, from what was staked and returned", () => {
  assert.deepEqual(roundOutcome({ staked: "10.00", returned: "19.50" }), { net: 950, outcome: "win" });
  assert.deepEqual(roundOutcome({ staked: "10.00", returned: "0.00" }), { net: -1000, outcome: "lose" });
  assert.deepEqual(roundOutcome({ staked: "10.00", returned: "10" }), { net: 0, outcome: "even" });
});

test("settled chips are paid out once the result has shown for 1.2 s", () => {
  assert.equal(payOutDelay(1000, 1500), 700);
  assert.equal(payOutDelay(1000, 5000), 0);
  assert.equal(payOutDelay(null, 200), 1000);
});

test("rounds: the page's own, and the table's among the player's events from every table", () => {
  assert.equal(sameRound({ round_id: "PB1-000007" }, { round_id: "PB1-000007" }), true);
  assert.equal(sameRound({ round_id: "PB1-000007" }, { round_id: "PB1-000008" }), false);
  assert.equal(sameRound(null, { round_id: "PB1-000007" }), false);
  assert.equal(sameRound({ round_id: "PB1-000007" }, null), false);
  assert.equal(roundOfTable("PB1-000007", "pb1"), true);
  assert.equal(roundOfTable("PB10-000007", "pb1"), false);
});
