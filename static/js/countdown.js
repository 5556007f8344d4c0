/**
 * The betting timer: counts down to the server's deadline (`betting_closes_at`), corrected by
 * the offset between the server's clock and this browser's (`data-server-now` on the page).
 */

/**
 * The server's clock, learnt from an ISO time it rendered just now; `now()` is this browser's clock in
 * milliseconds (the tests give their own).
 */
export function serverClock(serverNowIso, now = () => Date.now()) {
  const serverNow = Date.parse(serverNowIso);
  const offsetMs = Number.isNaN(serverNow) ? 0 : serverNow - now();
  return {
    /** The seconds left until an ISO deadline by the server's clock; 0 once it has passed. */
    secondsUntil: (deadlineIso) => Math.max(0, (Date.parse(deadlineIso) - (now() + offsetMs)) / 1000),
  };
}

/** Call `onTick(secondsLeft)` about five times a second until the deadline (then once with 0). Returns stop(). */
export function countDown(clock, deadlineIso, onTick) {
  let timer;
  const tick = () => {
    const left = clock.secondsUntil(deadlineIso);
    onTick(left);
    if (left <= 0) clearInterval(timer);
  };
  timer = setInterval(tick, 200);
  tick();
  return () => clearInterval(timer);
}
