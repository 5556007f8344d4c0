/**
 * The reasons of refused requests as players read them, in the page's language (English too): one sentence per
 * code, from the code and its details, never the server's message (English words for partners, which may name a
 * round id or a coup's state: docs/api.md). A code not here reads as the generic sentence. The codes a player can
 * meet (kernel.errors.ErrorCode, tests/js/fixtures/player-error-codes.json) each have one: tests/js/errors.test.mjs.
 */

import { betLabel } from "./bets.js";
import { formatMoney } from "./money.js";
import { PROTECTION_REASONS } from "./protection-reasons.js";

const money = (value) => (value == null || value === "" ? "" : formatMoney(value));
const says = (text, values = {}) => interpolate(text, values, true);
// A limit of the player's own (a personal limit marker, wagering.limits), not the table's.
const personal = (details) => details.limit === "personal limit";

const reasons = {
  // The limits
  below_minimum: (d) =>
    says(
      personal(d)
        ? gettext("%(bet)s: %(total)s is under your personal minimum of %(minimum)s by %(short_by)s")
        : gettext("%(bet)s: %(total)s is under the minimum of %(minimum)s by %(short_by)s"),
      {
        bet: betLabel(d.bet_type ?? ""),
        total: money(d.total),
        minimum: money(d.minimum),
        short_by: money(d.short_by),
      },
    ),
  above_maximum: (d) =>
    says(
      personal(d)
        ? gettext("%(bet)s: %(total)s is over your personal maximum of %(maximum)s; at most %(room)s more can be accepted")
        : gettext("%(bet)s: %(total)s is over the maximum of %(maximum)s; at most %(room)s more can be accepted"),
      {
        bet: betLabel(d.bet_type ?? ""),
        total: money(d.total),
        maximum: money(d.maximum),
        room: money(d.max_additional),
      },
    ),
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
  // The bets
  bet_type_not_offered: (d) => says(gettext("%(bet)s is not offered on this coup"), { bet: betLabel(d.bet_type ?? "") }),
  unknown_bet_type: () => gettext("That bet is not offered at this table"),
  currency_not_offered: (d) =>
    d.offered && d.currency
      ? says(gettext("This table takes bets in %(offered)s, not in %(currency)s"), { offered: d.offered, currency: d.currency })
      : gettext("This table takes no bets in your currency"),
  currency_mismatch: () => gettext("This table takes no bets in your currency"),
  invalid_amount: () => gettext("A bet is an amount of money, with at most two decimals"),
  amount_too_large: () => gettext("That amount is too large"),
  bad_bets: () => gettext("Those bets could not be read: place your chips again"),
  empty_batch: () => gettext("There are no bets to confirm"),
  insufficient_funds: (d) =>
    d.required && d.balance
      ? says(gettext("The bets total %(required)s but your balance is %(balance)s: short by %(short_by)s"), {
          required: money(d.required),
          balance: money(d.balance),
          short_by: money(d.short_by),
        })
      : gettext("Your balance is too low for these bets"),
  balance_limit: () => gettext("These bets could bring your balance past the most a wallet holds: bet less or withdraw first"),
  wallet_refused: () => gettext("Your casino's wallet refused the bet: check your balance there"),
  wallet_unavailable: () => gettext("Your casino's wallet did not answer: nothing was changed, try again"),
  // The coup
  betting_closed: () => gettext("No more bets: betting on this coup is closed"),
  not_betting: () => gettext("No more bets: betting on this coup is closed"),
  no_live_coup: () => gettext("There is no coup right now: wait for the next one"),
  round_changed: () => gettext("That round is over: the table has moved on to the next one"),
  round_not_current: () => gettext("That round is over: the table has moved on to the next one"),
  no_bet_coup: () => gettext("This coup is played without bets"),
  table_closed: () => gettext("This table is closed"),
  // A table dealt on demand (templates/rng_table.html)
  shoe_changed: () => gettext("Your shoe has changed: reload the page to see the new shoe's commitment before you deal"),
  not_rng: () => gettext("This table deals in its betting window: bet there"),
  settled: () => gettext("That coup is settled: its bets can no longer change"),
  // Undo, remove and rebet
  no_bets: () => gettext("You have no bets on this coup"),
  no_previous_bets: () => gettext("There are no earlier bets at this table to repeat"),
  invalid_multiplier: () => gettext("Rebet repeats your last bets once or twice"),
  // Player protection (wagering.protection): the player's own limits and breaks (protection-reasons.js)
  ...PROTECTION_REASONS,
  invalid_limit: () => gettext("That limit cannot be set: check what you entered"),
  // The requests
  too_fast: () => gettext("Too many bet requests at once: send them again in a moment"),
  request_in_progress: () => gettext("Your request is still being carried out: try again in a moment"),
  idempotency_conflict: () => gettext("This request was already sent with other bets: place your chips again"),
  invalid_request_id: () => gettext("The page sent a request it should not have: reload the page"),
  bad_json: () => gettext("The page sent a request it should not have: reload the page"),
  bad_request: () => gettext("The page sent a request it should not have: reload the page"),
  unknown_request: () => gettext("The page sent a request it should not have: reload the page"),
  bad_message: () => gettext("The page sent a request it should not have: reload the page"),
  unknown_message: () => gettext("The page sent a request it should not have: reload the page"),
  snapshot_too_fast: () => gettext("The table is catching up: wait a moment"),
  refused: () => gettext("The request was refused: try again in a moment"),
  // Who asks
  not_signed_in: () => gettext("Sign in to play"),
  staff_account: () => gettext("Staff accounts do not play: sign in as a player"),
  no_such_table: () => gettext("This table does not exist"),
  unknown_table: () => gettext("This table does not exist"),
  // The multi-table view's choice of tables (casino.players.multi)
  too_many_tables: () => gettext("Choose at most four tables"),
  dealt_on_demand: () => gettext("This table deals on demand: play it on its own page"),
  // The chat
  chat_sign_in: () => gettext("Sign in to chat"),
  chat_invalid: () => gettext("A chat message is 1 to 200 characters of text"),
  chat_too_fast: () => gettext("One chat message a second, please"),
  // A game launch (templates/launch_refused.html)
  unknown: () => gettext("This game link is not valid. Go back to the casino and open the game again."),
  used: () => gettext("This game link was already used. Go back to the casino and open the game again."),
  expired: () => gettext("This game link has expired. Go back to the casino and open the game again."),
  unconfirmed: () => gettext("This game link opens from its own page only. Go back to the casino and open the game again."),
  partner_disabled: () => gettext("This casino's games are not available right now."),
  // The server or the connection (the last three the page's own: static/js/api.js)
  database_unavailable: () => gettext("The server did not answer: nothing was changed, try again"),
  internal_error: () => gettext("The bet could not be taken because of an error on our side: nothing was changed, try again"),
  offline: () => gettext("The server cannot be reached. Check your connection."),
  session_expired: () => gettext("Your session has expired: reload the page and sign in again."),
  http_error: (d) => says(gettext("The server could not answer (%(status)s). Try again."), { status: d.status ?? "" }),
};

/** The codes with a sentence of their own. */
export const REASON_CODES = Object.freeze(Object.keys(reasons));

/** The reason of a refusal ({code, details}: an ApiError or a socket's error) for the player, in the page's
 * language; the generic sentence for a code not known here. */
export function reasonText({ code, details }) {
  const reason = Object.hasOwn(reasons, code) ? reasons[code] : reasons.refused;
  return reason(details ?? {});
}
