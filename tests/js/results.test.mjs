import "./setup.mjs";

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { resultAnnouncement, totalsWinnerFirst } from "../../static/js/results.js";

// The cases baccarat.coup.result_announcement is held to as well (tests/baccarat/test_result_announcement.py).
const CASES = JSON.parse(readFileSync(new URL("./fixtures/result-announcements.json", import.meta.url), "utf8"));

test("the player's page announces a result as the staff screens do: the winner's total first", () => {
  for (const { said, ...coup } of CASES) assert.equal(resultAnnouncement(coup), said);
  assert.ok(CASES.some(({ winner, player_total, banker_total }) => winner === "banker" && banker_total > player_total));
});

test("the totals winner first, for the lobby's and History's short forms", () => {
  assert.deepEqual(totalsWinnerFirst({ winner: "banker", player_total: 5, banker_total: 9 }), [9, 5]);
  assert.deepEqual(totalsWinnerFirst({ winner: "player", player_total: 8, banker_total: 2 }), [8, 2]);
});
