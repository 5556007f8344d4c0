import "./setup.mjs";

import assert from "node:assert/strict";
import { test } from "node:test";

import { reasonText } from "../../static/js/errors.js";
import { durationText, protectionStanding } from "../../static/js/protection-state.js";

const NOW = Date.parse("2026-11-28T10:00:00Z");
const clock = { secondsUntil: (iso) => Math.max(0, (Date.parse(iso) - NOW) / 1000) };
const at = (seconds) => new Date(NOW + seconds * 1000).toISOString();
const none = {
  reality_check_due_at: null,
  reality_check_every: null,
  session_started_at: null,
  session_ends_at: null,
  timed_out_until: null,
  self_excluded_until: null,
  operator_excluded: false,
};

test("betting pauses as the server refuses: an exclusion, a time-out, the session's end, then a reality check", () => {
  assert.deepEqual(protectionStanding(null, clock), { block: null, until: null, recheckIn: null });
  assert.deepEqual(protectionStanding({ ...none, reality_check_due_at: at(90) }, clock), {
    block: null,
    until: null,
    recheckIn: 90,
  });
  const due = { ...none, reality_check_due_at: at(-1), session_ends_at: at(600) };
  assert.deepEqual(protectionStanding(due, clock), { block: "reality_check", until: null, recheckIn: 600 });
  assert.equal(protectionStanding({ ...due, session_ends_at: at(0) }, clock).block, "session_limit");
  const timedOut = { ...due, timed_out_until: at(3600) };
  assert.deepEqual(protectionStanding(timedOut, clock), { block: "timed_out", until: at(3600), recheckIn: 600 });
  assert.equal(protectionStanding({ ...timedOut, timed_out_until: at(-5) }, clock).block, "reality_check"); // over
  const excluded = { ...timedOut, self_excluded_until: at(86_400) };
  assert.deepEqual(protectionStanding(excluded, clock).block, "self_excluded");
  assert.deepEqual(protectionStanding({ ...none, operator_excluded: true }, clock), {
    block: "self_excluded",
    until: null,
    recheckIn: null,
  });
});

test("each protection refusal reads as a sentence of its own, in English too", () => {
  const loss = { limit: "50.00", period: "day", net_loss: "45.00", stake: "10.00", room: "5.00", resets_at: at(3600) };
  assert.match(
    reasonText({ code: "loss_limit", message: "these bets of 10.00 could...", details: loss }),
    /^These bets could take you past your daily loss limit of 50\.00: 5\.00 is left until .+\.$/,
  );
  assert.equal(
    reasonText({ code: "loss_limit", message: "", details: { limit: "20.00", period: "session", room: "0.00" } }),
    "These bets could take you past this session's loss limit of 20.00: 0.00 is left.",
  );
  assert.match(reasonText({ code: "timed_out", message: "", details: { until: at(60) } }), /^You are on a time-out until .+: no bets until then\.$/);
  assert.equal(reasonText({ code: "self_excluded", message: "", details: { since: at(-60) } }), "Your operator has excluded your account from play.");
  assert.equal(
    reasonText({ code: "reality_check", message: "", details: {} }),
    "Time for your reality check: answer it to go on playing.",
  );
  for (const code of ["session_limit", "deposit_limit"]) assert.ok(reasonText({ code, message: "x", details: {} }).length > 20);
});

test("a session's length", () => {
  assert.equal(durationText(0), "0 min");
  assert.equal(durationText(59), "59 min");
  assert.equal(durationText(65), "1 h 05 min");
});
