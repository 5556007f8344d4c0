import "./setup.mjs";

import assert from "node:assert/strict";
import { test } from "node:test";

import { countDown, serverClock } from "../../static/js/countdown.js";

/** This browser's clock, moved by hand. */
function browserClock(iso) {
  let ms = Date.parse(iso);
  const now = () => ms;
  now.advance = (seconds) => {
    ms += seconds * 1000;
  };
  return now;
}

test("secondsUntil counts by the server's clock, not the browser's", () => {
  const now = browserClock("2025-01-01T10:00:00Z");
  const ahead = serverClock("2025-01-01T10:00:05Z", now); // the server's clock is 5 s ahead
  assert.equal(ahead.secondsUntil("2025-01-01T10:00:20Z"), 15);
  const behind = serverClock("2025-01-01T09:59:58.500Z", now); // 1.5 s behind
  assert.equal(behind.secondsUntil("2025-01-01T10:00:20Z"), 21.5);
});

test("secondsUntil goes down with the browser's clock, and stops at 0", () => {
  const now = browserClock("2025-01-01T10:00:00Z");
  const clock = serverClock("2025-01-01T10:00:05Z", now);
  now.advance(3.25);
  assert.equal(clock.secondsUntil("2025-01-01T10:00:20Z"), 11.75);
  now.advance(60);
  assert.equal(clock.secondsUntil("2025-01-01T10:00:20Z"), 0);
});

test("a server time that is no time leaves the browser's clock as it is", () => {
  const now = browserClock("2025-01-01T10:00:00Z");
  assert.equal(serverClock("", now).secondsUntil("2025-01-01T10:00:10Z"), 10);
  assert.equal(serverClock("not a time", now).secondsUntil("2025-01-01T10:00:10Z"), 10);
});

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

test("countDown ticks at once and every 200 ms down to 0, then never again", async (t) => {
  const left = [0.6, 0.4, 0.2, 0, 0, 0];
  const clock = { secondsUntil: () => left.shift() ?? 0 };
  const ticks = [];
  t.after(countDown(clock, "2025-01-01T10:00:20Z", (seconds) => ticks.push(seconds)));
  assert.deepEqual(ticks, [0.6]);
  await sleep(1100);
  assert.deepEqual(ticks, [0.6, 0.4, 0.2, 0]);
});

test("countDown's stop() ends the ticks", async () => {
  const ticks = [];
  const stop = countDown({ secondsUntil: () => 5 }, "2025-01-01T10:00:20Z", (seconds) => ticks.push(seconds));
  stop();
  await sleep(500);
  assert.deepEqual(ticks, [5]);
});

test("a server time learnt later that puts the server's clock further ahead is kept, one behind is not", () => {
  const now = browserClock("2025-01-01T10:00:00Z");
  const clock = serverClock("2025-01-01T10:00:00Z", now); // the page, delivered late: the server is ahead by more
  assert.equal(clock.secondsUntil("2025-01-01T10:00:20Z"), 20);
  now.advance(1);
  clock.learn("2025-01-01T10:00:02.500Z"); // a snapshot: the server is 1.5 s ahead, not 0
  assert.equal(clock.secondsUntil("2025-01-01T10:00:20Z"), 17.5);
  now.advance(1);
  clock.learn("2025-01-01T10:00:02Z"); // a snapshot that was on its way longer: ignored
  assert.equal(clock.secondsUntil("2025-01-01T10:00:20Z"), 16.5);
  clock.learn("not a time");
  assert.equal(clock.secondsUntil("2025-01-01T10:00:20Z"), 16.5);
});

test("a page without a server time learns it from the first snapshot", () => {
  const now = browserClock("2025-01-01T10:00:00Z");
  const clock = serverClock("", now);
  clock.learn("2025-01-01T09:59:50Z"); // the server is 10 s behind: learnt though it is behind the browser's
  assert.equal(clock.secondsUntil("2025-01-01T10:00:00Z"), 10);
});
