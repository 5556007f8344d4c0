import assert from "node:assert/strict";
import { test } from "node:test";

import { retryDelayMs } from "../../static/js/live.js";

test("a reconnect waits anywhere in a 2 s window, doubling with each failed attempt up to 8 s", () => {
  const windows = [2000, 4000, 8000, 8000, 8000];
  windows.forEach((window, retries) => {
    assert.equal(retryDelayMs(retries, () => 0), 0, "the shortest wait is none");
    assert.equal(retryDelayMs(retries, () => 0.999999), window * 0.999999, "the longest is just under the window");
    assert.equal(retryDelayMs(retries, () => 0.5), window / 2);
  });
});

test("a crowd closed in the same instant comes back spread over the whole window, not together", () => {
  const delays = Array.from({ length: 2000 }, () => retryDelayMs(0));
  assert.ok(delays.every((delay) => delay >= 0 && delay < 2000));
  // each 250 ms of the window gets about an eighth of the crowd (a fixed delay ±25% put all of it in 250 ms)
  const slices = Array.from({ length: 8 }, (_, slice) =>
    delays.filter((delay) => delay >= slice * 250 && delay < (slice + 1) * 250),
  );
  for (const slice of slices) assert.ok(slice.length > 150 && slice.length < 350, `${slice.length} of 2000 in 250 ms`);
});
