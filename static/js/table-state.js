/**
 * The table page's decisions from its data alone (no DOM, no words; table.js shows them): where a coup stands
 * and the phase the page shows for it, whether bets are taken, which bet controls work, what the betting
 * timer and the automatic sending show at a moment, and the player's outcome of a round.
 */

import { toCents } from "./money.js";

/** A coup's states while it is in play (tables.models.Coup.LIVE_STATES). */
const LIVE_STATES = ["betting", "no_more_bets", "dealing", "held"];
/** Seed 001: unconfirmed chips are sent by themselves this close to "no more bets", after a warning. */
const AUTO_SEND_WARN_SECONDS = 5;
const AUTO_SEND_SECONDS = 1.5;
/** The win moment: the player's chips stay on the board this long after the result, then are paid out. */
const RESULT_HOLD_MS = 1200;

export const inPlay = (coup) => coup != null && LIVE_STATES.includes(coup.state);

/** `data` (an event, an answer) is about `coup`, the round the page shows. */
export const sameRound = (coup, data) => Boolean(coup && data) && data.round_id === coup.round_id;

/** A round id of the table `code` ("PB1-…"): the player's own events come from every table they play at. */
export const roundOfTable = (roundId, code) => roundId.startsWith(`${code.toUpperCase()}-`);

/** Bets are taken on `coup`: it is betting, not a no-bet coup, and its window is open by `clock` (countdown.js). */
export const bettingOpen = (coup, clock) =>
  Boolean(coup && coup.state === "betting" && !coup.no_bet && clock.secondsUntil(coup.betting_closes_at) > 0);

/**
 * The phase the page shows for a coup (`null`: none yet) at a table open or closed: "waiting" or "closed"
 * without a coup, "betting", "void", "held", "result" (or "result_closed"), "no_bet" (a no-bet coup's
 * window) or "dealing".
 */
export function coupPhase(coup, { isOpen }) {
  if (!coup) return isOpen ? "waiting" : "closed";
  if (coup.state === "betting" && !coup.no_bet) return "betting";
  if (coup.state === "void") return "void";
  if (coup.state === "held") return "held";
  if (coup.winner) return isOpen ? "result" : "result_closed";
  return coup.state === "betting" ? "no_bet" : "dealing";
}

/** The bet controls disabled (by their `data-action`): all while bets are not taken; Confirm without chips to
 * confirm, Undo and Remove without chips or confirmed stakes (`pending`, `confirmed`: cents). */
export function disabledControls({ open, pending, confirmed }) {
  const none = !(pending || confirmed);
  return { confirm: !open || !pending, undo: !open || none, remove: !open || none, rebet: !open, "rebet-double": !open };
}

/** The timer bar's full length in seconds: the table's betting window, or longer if more is left. */
export const timerLength = (windowSeconds, left) => Math.max(windowSeconds ?? 0, left, 1);

/**
 * The betting timer `left` seconds before the deadline, the whole second shown before being `lastWhole` (null
 * at first): the whole seconds shown (never more than the table's window: the clocks' offset and the event's
 * way can add a fraction), the bar's width in percent of `total`, whether it is ending, whether to tick
 * (each of the last 3 seconds) and whether to tell screen readers the time (as it starts, at 10 and at 5).
 */
export function timerFrame(left, { windowSeconds, total, lastWhole }) {
  const whole = Math.min(Math.ceil(left), windowSeconds ?? Number.POSITIVE_INFINITY);
  const turned = whole !== lastWhole && whole > 0;
  return {
    whole,
    barPercent: (left / total) * 100,
    ending: left <= 3,
    tick: turned && whole <= 3,
    announce: turned && (lastWhole === null || whole === 10 || whole === 5),
  };
}

/**
 * Unconfirmed chips (`waiting`: some, and no request under way) `left` seconds before "no more bets": the
 * warning banner is up (`warn`, counting `warnSeconds` down), then they are sent (`send`).
 */
export function autoSend(left, waiting) {
  return {
    warn: waiting && left > AUTO_SEND_SECONDS && left <= AUTO_SEND_WARN_SECONDS,
    warnSeconds: Math.max(0, Math.ceil(left - AUTO_SEND_SECONDS)),
    send: waiting && left > 0 && left <= AUTO_SEND_SECONDS,
  };
}

/** The player's net on a settled round, in cents, and its outcome: "win", "lose" or "even". */
export function roundOutcome({ staked, returned }) {
  const net = toCents(returned) - toCents(staked);
  return { net, outcome: net > 0 ? "win" : net < 0 ? "lose" : "even" };
}

/** How long from `now` until the settled chips are paid out: the result has shown for the win moment. */
export const payOutDelay = (resultShownAt, now) => Math.max(0, (resultShownAt ?? 0) + RESULT_HOLD_MS - now);
