import "./setup.mjs";

import assert from "node:assert/strict";
import { test } from "node:test";

import { REASON_CODES, reasonText } from "../../static/js/errors.js";
import { DETAILS, DETAILS_BY_CODE, PERSONAL, PLAYER_CODES, SERVER_CODES, SERVER_MESSAGE } from "./refusals.mjs";

const GENERIC = reasonText({ code: "refused" });

test("the fixture holds the codes a player meets at the table, the chat, the sockets and a launch", () => {
  for (const code of ["betting_closed", "below_minimum", "no_previous_bets", "no_bets", "chat_too_fast", "bad_message", "expired"]) {
    assert.ok(SERVER_CODES.includes(code), code);
  }
});

test("every code a player can meet has its own English sentence, from its code, never the server's words", () => {
  const without = PLAYER_CODES.filter((code) => !REASON_CODES.includes(code));
  assert.deepEqual(without, [], `codes without a sentence in static/js/errors.js: ${without.join(", ")}`);
  for (const code of PLAYER_CODES) {
    for (const details of [...DETAILS_BY_CODE(code), {}]) {
      const said = reasonText({ code, message: SERVER_MESSAGE, details });
      assert.ok(said.length > 5, code);
      assert.doesNotMatch(said, /undefined|null|NaN|%\(|PB1|no_more_bets|_/, `${code}: ${said}`);
      if (code !== "refused") assert.notEqual(said, GENERIC, code);
    }
  }
  assert.equal(reasonText({ code: "betting_closed", message: SERVER_MESSAGE }), "No more bets: betting on this coup is closed");
  assert.equal(
    reasonText({ code: "below_minimum", details: DETAILS }),
    "Tie: 200.00 is under the minimum of 1.00 by 0.50",
  );
  assert.equal(
    reasonText({ code: "above_maximum", details: PERSONAL }),
    "Tie: 200.00 is over your personal maximum of 100.00; at most 100.00 more can be accepted",
  );
});

test("a code the page does not know reads as the generic sentence, not the server's message", () => {
  assert.equal(reasonText({ code: "a_code_from_tomorrow", message: SERVER_MESSAGE }), "The request was refused: try again in a moment");
  assert.equal(reasonText({ code: undefined, message: SERVER_MESSAGE, details: null }), GENERIC);
  assert.equal(reasonText({ code: "toString", message: SERVER_MESSAGE }), GENERIC);
});
