/** The Limits and Game history dialogs. Text goes in with textContent only. */

import { betLabel, offeredBets } from "./bets.js";
import { cardText } from "./cards.js";
import { formatMoney } from "./money.js";

function row(cells, tag = "td") {
  const tr = document.createElement("tr");
  for (const cell of cells) {
    const td = document.createElement(tag);
    if (cell instanceof Node) td.append(cell);
    else td.textContent = cell;
    tr.append(td);
  }
  return tr;
}

/** Seed 001 "Limits": the minimum and maximum of each betting spot (and the table-wide maximum), in the
 * player's currency; a table without limits in it takes no bets from the player, and says so. */
export function renderLimits(tbody, note, table, currency) {
  const { rules, payouts } = table;
  const inCurrency = rules.currencies[currency];
  if (!inCurrency) {
    tbody.replaceChildren();
    note.textContent = `This table takes no bets in ${currency}: it plays in ${Object.keys(rules.currencies).join(", ")}.`;
    return;
  }
  tbody.replaceChildren(
    ...offeredBets(rules)
      .filter((betType) => inCurrency.limits[betType])
      .map((betType) => {
        const limit = inCurrency.limits[betType];
        return row([
          betLabel(betType),
          payouts[betType] ?? "",
          formatMoney(limit.min),
          formatMoney(limit.max),
          limit.table_max ? formatMoney(limit.table_max) : "—",
        ]);
      }),
  );
  const rulesText = [
    `All amounts in ${currency}. Maximum difference between Banker and Player bets at the table: ` +
      `${formatMoney(inCurrency.max_differential)}.`,
    rules.forbid_player_and_banker ? "Player and Banker cannot both be bet in one coup." : "",
    rules.commission ? "Banker wins pay 0.95:1 (5% commission)." : "No commission: a Banker win with 6 pays 1:2.",
  ];
  note.textContent = rulesText.filter(Boolean).join(" ");
}

const OUTCOMES = { win: "won", lose: "lost", push: "push", refund: "refunded", "": "open" };
const WINNERS = { player: "Player", banker: "Banker", tie: "Tie" };

function table(caption, headings, rows) {
  const element = document.createElement("table");
  element.className = "data-table";
  const captionElement = element.createCaption();
  captionElement.textContent = caption;
  const head = element.createTHead();
  head.append(row(headings, "th"));
  for (const th of head.querySelectorAll("th")) th.scope = "col";
  const body = element.createTBody();
  body.append(...rows);
  return element;
}

/** Seed 001 "Game History": the player's bets by round id first, then the table's latest results. */
export function renderHistory(container, { results, rounds }) {
  const resultRows = results.map((coup) => {
    const cards = (hand) =>
      coup.cards
        .filter((card) => card.hand === hand)
        .map((card) => cardText(card.card))
        .join(" ");
    const winner = document.createElement("span");
    winner.className = `winner winner--${coup.winner}`;
    winner.textContent = WINNERS[coup.winner];
    return row([coup.round_id, winner, `${coup.player_total}–${coup.banker_total}`, cards("player"), cards("banker")]);
  });
  const roundRows = rounds.map((round) =>
    row([
      round.round_id,
      round.bets
        .map((bet) =>
          bet.state === "cancelled"
            ? `${betLabel(bet.bet_type)} ${formatMoney(bet.stake)} cancelled`
            : `${betLabel(bet.bet_type)} ${formatMoney(bet.stake)} ${OUTCOMES[bet.outcome] ?? bet.outcome}`,
        )
        .join(", "),
      formatMoney(round.staked),
      formatMoney(round.returned),
      formatMoney(round.balance_after),
    ]),
  );
  container.replaceChildren(
    rounds.length
      ? table("Your bets", ["Round", "Bets", "Staked", "Returned", "Balance after"], roundRows)
      : Object.assign(document.createElement("p"), { textContent: "You have not bet at this table yet." }),
    results.length
      ? table("Latest results", ["Round", "Winner", "Player–Banker", "Player's cards", "Banker's cards"], resultRows)
      : Object.assign(document.createElement("p"), { textContent: "No results yet at this table." }),
  );
}
