/**
 * The betting timer: counts down to the server's deadline (`betting_closes_at`), corrected by
 * the offset between the server's clock and this browser's (`data-server-now` on the page).
 */

/**
 * The server's clock, learnt from an ISO time it rendered just now; `now()` is this browser's clock in
 * milliseconds (the tests give their own). A server time reaches the browser late (the page's rendering and
 * delivery, a socket message's way), so each one puts the server's clock behind where it is: of all the times
 * learnt (`learn`: a socket's snapshot), the one putting it furthest ahead is the nearest. Learnt from the page
 * alone, a page delivered a second late counted a second too many, and chips sent by themselves 1.5 s before
 * "no more bets" (table-state.js) reached the server after it.
 */
export function serverClock(serverNowIso, now = () => Date.now()) {
  let offsetMs = null;
  const learn = (iso) => {
    const serverNow = Date.parse(iso);
    if (!Number.isNaN(serverNow)) offsetMs = Math.max(offsetMs ?? Number.NEGATIVE_INFINITY, serverNow - now());
  };
  learn(serverNowIso);
  return {
    /** The seconds left until an ISO deadline by the server's clock; 0 once it has passed. */
    secondsUntil: (deadlineIso) => Math.max(0, (Date.parse(deadlineIso) - (now() + (offsetMs ?? 0))) / 1000),
    /** Another server time just received (one that is no time is ignored). */
    learn,
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
