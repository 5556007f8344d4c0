import "./setup.mjs";

import assert from "node:assert/strict";
import { test } from "node:test";

import { Stakes, chipsFor } from "../../static/js/stakes.js";

test("chips put down add up per bet, and go to the server as strings", () => {
  const stakes = new Stakes();
  stakes.add("player", 2500);
  stakes.add("tie", 100);
  stakes.add("player", 500);
  assert.equal(stakes.pendingTotal(), 3100);
  assert.deepEqual(stakes.pendingBets(), { player: "30.00", tie: "1.00" });
});

test("undo takes back the last chip put down, whichever bet it is on", () => {
  const stakes = new Stakes();
  stakes.add("player", 2500);
  stakes.add("tie", 100);
  stakes.add("player", 500);
  assert.equal(stakes.undoChip(), true);
  assert.deepEqual(stakes.pendingBets(), { player: "25.00", tie: "1.00" });
  assert.equal(stakes.undoChip(), true);
  assert.deepEqual(stakes.pendingBets(), { player: "25.00" });
  assert.equal(stakes.undoChip(), true);
  assert.deepEqual(stakes.pendingBets(), {});
  assert.equal(stakes.undoChip(), false);
});

test("take removes a chip's worth from one bet, the last chips first, and undo follows", () => {
  const stakes = new Stakes();
  stakes.add("banker", 1000);
  stakes.add("player", 500);
  stakes.add("banker", 500);
  assert.equal(stakes.take("banker", 1000), true); // the 5.00 chip, then 5.00 of the 10.00 one
  assert.deepEqual(stakes.pendingBets(), { banker: "5.00", player: "5.00" });
  assert.equal(stakes.undoChip(), true); // the player's chip: the banker's last one is gone
  assert.deepEqual(stakes.pendingBets(), { banker: "5.00" });
  assert.equal(stakes.undoChip(), true); // what is left of the first chip
  assert.deepEqual(stakes.pendingBets(), {});
});

test("take never goes below nothing; without a chip selected it takes all", () => {
  const stakes = new Stakes();
  stakes.add("tie", 100);
  assert.equal(stakes.take("tie", 2500), true);
  assert.equal(stakes.pendingTotal(), 0);
  assert.equal(stakes.take("tie", 100), false);
  stakes.add("player", 300);
  stakes.add("player", 200);
  assert.equal(stakes.take("player", 0), true);
  assert.deepEqual(stakes.pendingBets(), {});
  assert.equal(stakes.undoChip(), false);
});

test("clearPending hands every chip back and says how much", () => {
  const stakes = new Stakes();
  stakes.add("player", 2500);
  stakes.add("tie", 100);
  assert.equal(stakes.clearPending(), 2600);
  assert.equal(stakes.pendingTotal(), 0);
  assert.equal(stakes.undoChip(), false);
});

test("confirmed stakes are the server's, apart from the chips still to confirm", () => {
  const stakes = new Stakes();
  stakes.add("player", 100);
  stakes.setConfirmed({ player: "25.00", player_pair: "2.50" });
  assert.equal(stakes.confirmedTotal(), 2750);
  assert.equal(stakes.pendingTotal(), 100);
  stakes.setConfirmed({});
  assert.equal(stakes.confirmedTotal(), 0);
});

test("a main bet's share is of the main bets, a side bet's of all bets", () => {
  const stakes = new Stakes();
  stakes.setTableTotals({ player: "300.00", banker: "100.00", player_pair: "100.00" }, { player: 3 });
  assert.equal(stakes.tableShare("player"), 75);
  assert.equal(stakes.tableShare("banker"), 25);
  assert.equal(stakes.tableShare("tie"), 0);
  assert.equal(stakes.tableShare("player_pair"), 20);
  assert.equal(stakes.bettors.get("player"), 3);
  stakes.setTableTotals({});
  assert.equal(stakes.tableShare("player"), 0);
});

test("settling: a win's chips are what it returned, a push's its stake, a loss's its stake collected", () => {
  const stakes = new Stakes();
  stakes.setConfirmed({ player: "20.00", tie: "1.00", banker_pair: "5.00" });
  stakes.settle([
    { bet_type: "player", outcome: "win", stake: "10.00", returned: "20.00" },
    { bet_type: "player", outcome: "win", stake: "10.00", returned: "20.00" }, // a second batch on the same bet
    { bet_type: "tie", outcome: "push", stake: "1.00", returned: "1.00" },
    { bet_type: "banker_pair", outcome: "lose", stake: "5.00", returned: "0.00" },
  ]);
  assert.deepEqual(Object.fromEntries(stakes.settled), {
    player: { cents: 4000, fate: "paid" },
    tie: { cents: 100, fate: "returned" },
    banker_pair: { cents: 500, fate: "collected" },
  });
  assert.equal(stakes.confirmedTotal(), 0);
  stakes.clearSettled();
  assert.equal(stakes.settled.size, 0);
});

test("a stack shows the largest chips first, six at most", () => {
  const values = [100000, 50000, 10000, 2500, 500, 100];
  assert.deepEqual(chipsFor(3100, values), [2500, 500, 100]);
  assert.deepEqual(chipsFor(160000, values), [100000, 50000, 10000]);
  assert.deepEqual(chipsFor(900, values), [500, 100, 100, 100, 100]);
  assert.deepEqual(chipsFor(1000, values), [500, 500]);
  assert.deepEqual(chipsFor(800, [100]), [100, 100, 100, 100, 100, 100]); // the seventh and eighth are not drawn
  assert.deepEqual(chipsFor(50, values), []);
});
