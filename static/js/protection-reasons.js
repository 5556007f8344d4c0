/**
 * The refusals of the player's protection (wagering.protection: the limits they set, a reality check to answer, a
 * time-out or an exclusion), each a friendly sentence in the page's language, English too (errors.js takes
 * these before its own). Pure: no DOM.
 */

import { PAGE_LANGUAGE } from "./locale.js";
import { formatMoney } from "./money.js";

const says = (text, values) => interpolate(text, values, true);

// A time the server sent (ISO), in the page's language and the browser's time zone, to the minute, in figures
// (no month's name: the same in every language the page speaks).
const DATE_TIME = { year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", hourCycle: "h23" };

/** A moment (an ISO time) as the player reads it. */
export const momentText = (iso) => new Date(iso).toLocaleString(PAGE_LANGUAGE, DATE_TIME);

const LOSS = {
  day: () => gettext("These bets could take you past your daily loss limit of %(limit)s: %(room)s is left until %(time)s."),
  week: () => gettext("These bets could take you past your weekly loss limit of %(limit)s: %(room)s is left until %(time)s."),
  month: () => gettext("These bets could take you past your monthly loss limit of %(limit)s: %(room)s is left until %(time)s."),
  session: () => gettext("These bets could take you past this session's loss limit of %(limit)s: %(room)s is left."),
};

const DEPOSIT = {
  day: () => gettext("This deposit would take you past your daily deposit limit of %(limit)s, until %(time)s."),
  week: () => gettext("This deposit would take you past your weekly deposit limit of %(limit)s, until %(time)s."),
  month: () => gettext("This deposit would take you past your monthly deposit limit of %(limit)s, until %(time)s."),
};

export const PROTECTION_REASONS = {
  loss_limit: (d) =>
    says((LOSS[d.period] ?? LOSS.session)(), {
      limit: formatMoney(d.limit ?? "0"),
      room: formatMoney(d.room ?? "0"),
      time: d.resets_at ? momentText(d.resets_at) : "",
    }),
  deposit_limit: (d) =>
    says((DEPOSIT[d.period] ?? DEPOSIT.day)(), {
      limit: formatMoney(d.limit ?? "0"),
      time: d.resets_at ? momentText(d.resets_at) : "",
    }),
  session_limit: () => gettext("Your session time limit was reached: sign in again to start a new session."),
  self_excluded: (d) =>
    d.until
      ? says(gettext("You have excluded yourself from play until %(time)s: no bets until then."), { time: momentText(d.until) })
      : gettext("Your operator has excluded your account from play."),
  timed_out: (d) => says(gettext("You are on a time-out until %(time)s: no bets until then."), { time: momentText(d.until) }),
  reality_check: () => gettext("Time for your reality check: answer it to go on playing."),
};
