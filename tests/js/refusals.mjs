/** The refusals a player can meet, for the tests of static/js/errors.js in English and Chinese. */

import { readFileSync } from "node:fs";

// Every code the server can send a player (kernel.errors.ErrorCode less the staff's and partners' own), written
// and checked by tests/ui/test_error_sentences.py; and the page's own codes (static/js/api.js).
export const SERVER_CODES = JSON.parse(readFileSync(new URL("./fixtures/player-error-codes.json", import.meta.url), "utf8"));
export const PAGE_CODES = ["offline", "session_expired", "http_error"];
export const PLAYER_CODES = [...SERVER_CODES, ...PAGE_CODES];

// Details as the server sends them with each code that has any (wagering.limits, wagering.placement, ...).
export const DETAILS = {
  bet_type: "tie",
  total: "200.00",
  minimum: "1.00",
  maximum: "100.00",
  short_by: "0.50",
  max_additional: "100.00",
  table_maximum: "500.00",
  max_differential: "5000.00",
  player_max_additional: "20.00",
  banker_max_additional: "30.00",
  offered: "EUR",
  currency: "USD",
  required: "50.00",
  balance: "20.00",
  status: "502",
  until: "2026-12-01T10:00:00+00:00",
  room: "40.00",
};
// A personal limit marker's, in place of the table's limits (below_minimum, above_maximum).
export const PERSONAL = { ...DETAILS, limit: "personal limit" };
// A loss or deposit limit's (wagering.protection): its amount.
export const PROTECTION = { ...DETAILS, limit: "100.00" };
export const DETAILS_BY_CODE = (code) =>
  ["below_minimum", "above_maximum"].includes(code) ? [DETAILS, PERSONAL] : code.endsWith("_limit") ? [PROTECTION] : [DETAILS];
// The server's English words for a partner, with a round id and a state in them: never the player's.
export const SERVER_MESSAGE = "No more bets: coup PB1-7C38129484 is no_more_bets";
