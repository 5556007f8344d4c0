/**
 * What the player's protection (the server's protection_public: the table socket's snapshot and the player's
 * `protection` event) means for the table page, by the server's clock. Pure: no DOM (tests/js).
 */

/**
 * `block`: why the player may not bet now, as the server would refuse them (its order: an exclusion, a time-out,
 * the session's end, a reality check to answer), or null; `until`: the end of that break (null for one with no
 * end); `recheckIn`: the seconds until the next of those moments comes, when the page must look again (null: none).
 */
export function protectionStanding(protection, clock) {
  if (!protection) return { block: null, until: null, recheckIn: null };
  const left = (iso) => (iso ? clock.secondsUntil(iso) : 0);
  const moments = [
    protection.self_excluded_until,
    protection.timed_out_until,
    protection.session_ends_at,
    protection.reality_check_due_at,
  ];
  const ahead = moments.map(left).filter((seconds) => seconds > 0);
  const standing = (block, until = null) => ({ block, until, recheckIn: ahead.length ? Math.min(...ahead) : null });
  if (protection.operator_excluded) return standing("self_excluded");
  if (left(protection.self_excluded_until) > 0) return standing("self_excluded", protection.self_excluded_until);
  if (left(protection.timed_out_until) > 0) return standing("timed_out", protection.timed_out_until);
  if (protection.session_ends_at && left(protection.session_ends_at) === 0) return standing("session_limit");
  if (protection.reality_check_due_at && left(protection.reality_check_due_at) === 0) return standing("reality_check");
  return standing(null);
}

/** The protection codes a refused bet carries that the page answers with more than its sentence. */
export const STANDING_CODES = new Set(["self_excluded", "timed_out", "session_limit", "reality_check"]);

/** A session's minutes as "1 h 05 min" / "25 min". */
export function durationText(minutes) {
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  if (!hours) return interpolate(gettext("%(minutes)s min"), { minutes: rest }, true);
  return interpolate(gettext("%(hours)s h %(minutes)s min"), { hours, minutes: String(rest).padStart(2, "0") }, true);
}
