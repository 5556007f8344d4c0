/**
 * The reasons of refused requests as players read them. The server's messages are English (partners rely on
 * them, with their stable codes: docs/api.md); in another language the page says the reason from its code and
 * details, in its own words. Messages the page made itself (offline, an HTTP error) are translated already.
 */

import { betLabel } from "./bets.js";
import { PAGE_LANGUAGE } from "./locale.js";
import { formatMoney } from "./money.js";
import { PROTECTION_REASONS } from "./protection-reasons.js";

const ENGLISH = PAGE_LANGUAGE.startsWith("en");

const money = (value) => (value == null || value === "" ? "" : formatMoney(value));
const says = (text, values = {}) => interpolate(text, values, true);

const REASONS = {
  below_minimum: (d) =>
    says(gettext("%(bet)s: %(total)s is under the minimum of %(minimum)s by %(short_by)s"), {
      bet: betLabel(d.bet_type ?? ""),
      total: money(d.total),
      minimum: money(d.minimum),
      short_by: money(d.short_by),
    }),
  above_maximum: (d) =>
    says(gettext("%(bet)s: %(total)s is over the maximum of %(maximum)s; at most %(room)s more can be accepted"), {
      bet: betLabel(d.bet_type ?? ""),
      total: money(d.total),
      maximum: money(d.maximum),
      room: money(d.max_additional),
    }),
  table_maximum: (d) =>
    says(gettext("%(bet)s: the table's total would be over its maximum of %(maximum)s; at most %(room)s more can be accepted"), {
      bet: betLabel(d.bet_type ?? ""),
      maximum: money(d.table_maximum),
      room: money(d.max_additional),
    }),
  max_differential: (d) =>
    says(gettext("Banker and Player would differ by more than the table's maximum of %(maximum)s: at most %(player)s more on Player or %(banker)s more on Banker"), {
      maximum: money(d.max_differential),
      player: money(d.player_max_additional),
      banker: money(d.banker_max_additional),
    }),
  player_and_banker: () => gettext("You may not bet both Player and Banker in one coup"),
  bet_type_not_offered: (d) => says(gettext("%(bet)s is not offered on this coup"), { bet: betLabel(d.bet_type ?? "") }),
  currency_not_offered: (d) =>
    says(gettext("This table takes bets in %(offered)s, not in %(currency)s"), { offered: d.offered, currency: d.currency }),
  insufficient_funds: (d) =>
    says(gettext("The bets total %(required)s but your balance is %(balance)s: short by %(short_by)s"), {
      required: money(d.required),
      balance: money(d.balance),
      short_by: money(d.short_by),
    }),
  balance_limit: () => gettext("These bets could bring your balance past the most a wallet holds: bet less or withdraw first"),
  betting_closed: () => gettext("No more bets: betting on this coup is closed"),
  no_live_coup: () => gettext("There is no coup right now: wait for the next one"),
  round_changed: () => gettext("That round is over: the table has moved on to the next one"),
  no_bet_coup: () => gettext("This coup is played without bets"),
  no_bets: () => gettext("You have no bets on this coup"),
  no_previous_bets: () => gettext("There are no earlier bets at this table to repeat"),
  empty_batch: () => gettext("There are no bets to confirm"),
  too_fast: () => gettext("Too many bet requests at once: send them again in a moment"),
  request_in_progress: () => gettext("Your request is still being carried out: try again in a moment"),
  not_signed_in: () => gettext("Sign in to play"),
  staff_account: () => gettext("Staff accounts do not play: sign in as a player"),
  no_such_table: () => gettext("This table does not exist"),
  database_unavailable: () => gettext("The server did not answer: nothing was changed, try again"),
  internal_error: () => gettext("The bet could not be taken because of an error on our side: nothing was changed, try again"),
  chat_sign_in: () => gettext("Sign in to chat"),
  chat_invalid: () => gettext("A chat message is 1 to 200 characters of text"),
  chat_too_fast: () => gettext("One chat message a second, please"),
};

/** The reason of a refusal ({code, message, details}: an ApiError or a socket's error) for the player. */
export function reasonText({ code, message, details = {} }) {
  if (Object.hasOwn(PROTECTION_REASONS, code)) return PROTECTION_REASONS[code](details ?? {}); // English too
  if (ENGLISH || code === "offline" || String(code).startsWith("http_")) return message;
  const reason = REASONS[code];
  return reason ? reason(details ?? {}) : gettext("The request was refused: try again in a moment");
}
