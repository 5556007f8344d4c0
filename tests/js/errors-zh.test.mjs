import { untranslated } from "./setup-zh.mjs";

import assert from "node:assert/strict";
import { test } from "node:test";

import { reasonText } from "../../static/js/errors.js";
import { DETAILS, DETAILS_BY_CODE, PLAYER_CODES, SERVER_MESSAGE } from "./refusals.mjs";

test("on the Chinese page every code a player can meet has its sentence, all in Chinese but amounts and currencies", () => {
  for (const [code, details] of PLAYER_CODES.flatMap((code) => DETAILS_BY_CODE(code).map((details) => [code, details]))) {
    untranslated.length = 0;
    const said = reasonText({ code, message: SERVER_MESSAGE, details });
    assert.deepEqual(untranslated, [], `${code}: not translated in locale/zh_Hans/LC_MESSAGES/djangojs.po`);
    assert.match(said, /[\u4e00-\u9fff]/, code);
    assert.doesNotMatch(said.replace(/\b[A-Z]{3}\b/g, ""), /[A-Za-z]/, `${code}: ${said}`);
  }
  assert.equal(reasonText({ code: "betting_closed", message: SERVER_MESSAGE }), "停止下注：本局下注已结束");
  assert.equal(reasonText({ code: "below_minimum", details: DETAILS }), "和：200.00 低于最低限红 1.00，差 0.50");
});

test("on the Chinese page a code the page does not know reads as the generic sentence in Chinese", () => {
  untranslated.length = 0;
  assert.equal(reasonText({ code: "a_code_from_tomorrow", message: SERVER_MESSAGE }), "请求被拒绝：请稍后再试");
  assert.deepEqual(untranslated, []);
});
