import "./setup.mjs";

import assert from "node:assert/strict";
import { test } from "node:test";

import { personalLimits, tableLimits } from "../../static/js/limits.js";

/** A snapshot's table (baccarat.rules.CoupRules.to_json) with limits in EUR only. */
const table = {
  rules: {
    side_bets: ["player_pair", "big"],
    currencies: {
      EUR: {
        max_differential: "5000.00",
        limits: {
          banker: { min: "5.00", max: "1000.00", table_max: "20000.00" },
          player: { min: "5.00", max: "1000.00", table_max: null },
          big: { min: "1.00", max: "100.00", table_max: null },
          tie: { min: "1.00", max: "200.00", table_max: null },
          perfect_pair: { min: "1.00", max: "50.00", table_max: null }, // not offered by the table
        },
      },
    },
  },
  payouts: { player: "1:1", banker: "0.95:1", tie: "8:1", big: "0.54:1" },
};

test("the Limits dialog lists the offered bets with limits in the player's currency, in board order", () => {
  assert.deepEqual(tableLimits(table, "EUR"), {
    rows: [
      { betType: "player", pays: "1:1", min: "5.00", max: "1000.00", tableMax: null },
      { betType: "tie", pays: "8:1", min: "1.00", max: "200.00", tableMax: null },
      { betType: "banker", pays: "0.95:1", min: "5.00", max: "1000.00", tableMax: "20000.00" },
      { betType: "big", pays: "0.54:1", min: "1.00", max: "100.00", tableMax: null },
    ],
    maxDifferential: "5000.00",
  });
});

test("a table with no limits in the player's currency takes no bets from them", () => {
  assert.equal(tableLimits(table, "USD"), null);
});

test("the player's own limits, for the offered bets they cover", () => {
  const own = { tie: { min: "2.00", max: "20.00" }, perfect_pair: { min: "1.00", max: "5.00" }, player: { min: "10.00", max: "50.00" } };
  assert.deepEqual(personalLimits(table.rules, own), [
    { betType: "player", min: "10.00", max: "50.00" },
    { betType: "tie", min: "2.00", max: "20.00" },
  ]);
  assert.deepEqual(personalLimits(table.rules, {}), []);
});
