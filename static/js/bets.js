/** The bet types a table offers, in board order, with the names players see. */

const LABELS = {
  player: "Player",
  banker: "Banker",
  tie: "Tie",
  player_pair: "Player Pair",
  banker_pair: "Banker Pair",
  either_pair: "Either Pair",
  perfect_pair: "Perfect Pair",
  player_bonus: "Player Bonus",
  banker_bonus: "Banker Bonus",
  small: "Small",
  big: "Big",
};
export const MAIN_BETS = ["player", "tie", "banker"];

export const betLabel = (betType) => LABELS[betType] ?? betType.replaceAll("_", " ");

/** The main bets and the side bets of the table's rules (the snapshot's `table.rules`). */
export const offeredBets = (rules) => [...MAIN_BETS, ...rules.side_bets];

/** The bets a result wins outright: the winning hand, tie, and the pair bets it makes. */
export function winningBets(coup) {
  const won = [coup.winner];
  if (coup.player_pair) won.push("player_pair");
  if (coup.banker_pair) won.push("banker_pair");
  if (coup.player_pair || coup.banker_pair) won.push("either_pair");
  return won;
}
