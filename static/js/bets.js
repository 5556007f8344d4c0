/** The bet types a table offers, in board order, with the names players see. */

import { formatMoney } from "./money.js";

const LABELS = {
  player: pgettext("bet", "Player"),
  banker: pgettext("bet", "Banker"),
  tie: pgettext("bet", "Tie"),
  player_pair: pgettext("bet", "Player Pair"),
  banker_pair: pgettext("bet", "Banker Pair"),
  either_pair: pgettext("bet", "Either Pair"),
  perfect_pair: pgettext("bet", "Perfect Pair"),
  player_bonus: pgettext("bet", "Player Bonus"),
  banker_bonus: pgettext("bet", "Banker Bonus"),
  small: pgettext("bet", "Small"),
  big: pgettext("bet", "Big"),
};
export const MAIN_BETS = ["player", "tie", "banker"];

export const betLabel = (betType) => LABELS[betType] ?? betType.replaceAll("_", " ");

/** A batch of bets ({bet_type: "10.00"}) as players read it: "Player 10.00, Tie 1.00". */
export const betsText = (bets) =>
  Object.entries(bets)
    .map(([betType, amount]) =>
      interpolate(pgettext("a bet and its stake", "%(bet)s %(amount)s"), { bet: betLabel(betType), amount: formatMoney(amount) }, true),
    )
    .join(pgettext("between the items of a list", ", "));

/** The main bets and the side bets of the table's rules (the snapshot's `table.rules`). */
export const offeredBets = (rules) => [...MAIN_BETS, ...rules.side_bets];

/** The first two cards of a hand are the same card (rank and suit): a perfect pair. */
function perfectPair(cards, hand) {
  const [first, second] = cards.filter((card) => card.hand === hand).map((card) => card.card);
  return Boolean(first) && first === second;
}

/** A hand's bonus bet wins: a natural win, or a win by 4 or more (a natural tie only pushes it). */
function bonusWins(coup, hand) {
  if (coup.winner !== hand) return false;
  return coup.natural || Math.abs(coup.player_total - coup.banker_total) >= 4;
}

/** The bets a result wins outright, side bets included (as baccarat.paytables decides them; pushes are not
 * wins): the winning hand or tie, the pairs, perfect pair, the bonuses, small (four cards) or big. */
export function winningBets(coup) {
  const won = [coup.winner];
  if (coup.player_pair) won.push("player_pair");
  if (coup.banker_pair) won.push("banker_pair");
  if (coup.player_pair || coup.banker_pair) won.push("either_pair");
  if (perfectPair(coup.cards, "player") || perfectPair(coup.cards, "banker")) won.push("perfect_pair");
  if (bonusWins(coup, "player")) won.push("player_bonus");
  if (bonusWins(coup, "banker")) won.push("banker_bonus");
  won.push(coup.cards.length === 4 ? "small" : "big");
  return won;
}
