/**
 * The betting timer: counts down to the server's deadline (`betting_closes_at`), corrected by
 * the offset between the server's clock and this browser's (`data-server-now` on the page).
 */

let serverOffsetMs = 0;

/** Learn the server's clock from an ISO time it rendered just now. */
export function syncServerClock(serverNowIso) {
  const serverNow = Date.parse(serverNowIso);
  if (!Number.isNaN(serverNow)) serverOffsetMs = serverNow - Date.now();
}

export function secondsUntil(deadlineIso) {
  return Math.max(0, (Date.parse(deadlineIso) - (Date.now() + serverOffsetMs)) / 1000);
}

/** Call `onTick(secondsLeft)` about five times a second until the deadline (then once with 0). Returns stop(). */
export function countDown(deadlineIso, onTick) {
  let timer;
  const tick = () => {
    const left = secondsUntil(deadlineIso);
    onTick(left);
    if (left <= 0) clearInterval(timer);
  };
  timer = setInterval(tick, 200);
  tick();
  return () => clearInterval(timer);
}
