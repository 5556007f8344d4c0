/**
 * The Game history dialog (seed 001 "Game History"): the player's own rounds first, each with its
 * time, cards, bets, stake, win and balance after; cancelled and refunded bets folded away; then the
 * table's latest results. Lists rather than wide tables, so that it fits a phone. Text goes in with
 * textContent only.
 */

import { betLabel } from "./bets.js";
import { miniCardElement } from "./cards.js";
import { PAGE_LANGUAGE } from "./locale.js";
import { formatMoney, withCurrency } from "./money.js";
import { totalsWinnerFirst } from "./results.js";

const WINNERS = { player: pgettext("hand", "Player"), banker: pgettext("hand", "Banker"), tie: pgettext("result", "Tie") };
const SET_ASIDE = ["cancelled", "refunded"]; // undone or removed by the player, or refunded by a void

function element(tag, className, text) {
  const made = document.createElement(tag);
  if (className) made.className = className;
  if (text !== undefined) made.textContent = text;
  return made;
}

const amount = (value, currency) => withCurrency(formatMoney(value), currency);
const say = (text, values) => interpolate(text, values, true);

function timeElement(iso) {
  const when = new Date(iso);
  const sameDay = when.toDateString() === new Date().toDateString();
  const time = element(
    "time",
    "history-time",
    sameDay ? when.toLocaleTimeString(PAGE_LANGUAGE) : when.toLocaleString(PAGE_LANGUAGE, { dateStyle: "short", timeStyle: "medium" }),
  );
  time.dateTime = iso;
  return time;
}

/** "Player 9–5" in the winner's colour, or what became of a coup without a result. */
function outcomeElement(coup) {
  if (coup.state === "void" || coup.coup_state === "void") return element("span", "winner winner--void", gettext("Voided"));
  if (!coup.winner) return element("span", "winner", gettext("In play"));
  const [high, low] = totalsWinnerFirst(coup);
  const text = say(gettext("%(winner)s %(high)s–%(low)s"), { winner: WINNERS[coup.winner], high, low });
  return element("span", `winner winner--${coup.winner}`, text);
}

/** Each hand's cards as small faces in their suits' colours. */
function handsElement(cards) {
  const hands = element("div", "history-hands");
  for (const hand of ["player", "banker"]) {
    const dealt = cards.filter((card) => card.hand === hand);
    if (!dealt.length) continue;
    const row = element("span", `history-hand history-hand--${hand}`);
    row.append(element("span", "history-hand-name", WINNERS[hand]), ...dealt.map((card) => miniCardElement(card.card)));
    hands.append(row);
  }
  return hands;
}

function betText(bet, currency) {
  const values = { bet: betLabel(bet.bet_type), stake: amount(bet.stake, currency), returned: bet.returned ? amount(bet.returned, currency) : "" };
  if (bet.state === "cancelled") return say(gettext("%(bet)s %(stake)s: cancelled"), values);
  if (bet.state === "refunded" || bet.outcome === "refund") return say(gettext("%(bet)s %(stake)s: refunded"), values);
  if (bet.outcome === "win") return say(gettext("%(bet)s %(stake)s: won, %(returned)s paid"), values);
  if (bet.outcome === "push") return say(gettext("%(bet)s %(stake)s: push, %(returned)s back"), values);
  if (bet.outcome === "lose") return say(gettext("%(bet)s %(stake)s: lost"), values);
  return say(gettext("%(bet)s %(stake)s: in play"), values);
}

function betList(bets, currency) {
  const list = element("ul", "history-bets");
  for (const bet of bets) {
    list.append(element("li", `history-bet history-bet--${bet.outcome || bet.state}`, betText(bet, currency)));
  }
  return list;
}

function sums(round) {
  const list = element("dl", "history-sums");
  const settled = round.coup_state === "settled";
  for (const [term, value] of [
    [gettext("Stake"), amount(round.staked, round.currency)],
    [gettext("Win"), settled ? amount(round.returned, round.currency) : "—"],
    [gettext("Balance after"), round.balance_after === null ? null : amount(round.balance_after, round.currency)],
  ]) {
    if (value === null) continue; // a partner's seamless wallet holds the balance
    const pair = element("div");
    pair.append(element("dt", "", term), element("dd", "", value));
    list.append(pair);
  }
  return list;
}

function folded(summaryText, ...content) {
  const details = element("details", "history-folded");
  details.append(element("summary", "", summaryText), ...content);
  return details;
}

function roundHead(round) {
  const head = element("p", "history-round-head");
  head.append(element("span", "history-round-id", round.round_id), timeElement(round.played_at), outcomeElement(round));
  return head;
}

/** A round the player bet in; a round whose every bet was set aside is folded whole. */
function roundElement(round) {
  const item = element("li", "history-round");
  const standing = round.bets.filter((bet) => !SET_ASIDE.includes(bet.state));
  const setAside = round.bets.filter((bet) => SET_ASIDE.includes(bet.state));
  if (!standing.length) {
    item.classList.add("history-round--set-aside");
    const summary =
      round.coup_state === "void"
        ? gettext("%(round)s: voided, bets refunded")
        : gettext("%(round)s: all bets cancelled");
    const content = [roundHead(round), handsElement(round.cards), betList(setAside, round.currency), sums(round)];
    item.append(folded(say(summary, { round: round.round_id }), ...content));
    return item;
  }
  item.append(roundHead(round), handsElement(round.cards), betList(standing, round.currency), sums(round));
  if (setAside.length) {
    const count = say(ngettext("%(count)s cancelled bet", "%(count)s cancelled bets", setAside.length), {
      count: setAside.length,
    });
    item.append(folded(count, betList(setAside, round.currency)));
  }
  return item;
}

function resultElement(coup) {
  const item = element("li", "history-round history-round--result");
  const head = element("p", "history-round-head");
  head.append(element("span", "history-round-id", coup.round_id), outcomeElement(coup));
  item.append(head, handsElement(coup.cards));
  return item;
}

function section(id, title, items, emptyText) {
  const part = element("section", "history-section");
  part.setAttribute("aria-labelledby", id);
  const heading = element("h3", "history-heading", title);
  heading.id = id;
  part.append(heading);
  if (!items.length) {
    part.append(element("p", "history-empty", emptyText));
    return part;
  }
  const list = element("ol", "history-rounds");
  list.append(...items);
  part.append(list);
  return part;
}

export function renderHistory(container, { results, rounds }) {
  container.replaceChildren(
    section("history-yours", gettext("Your bets"), rounds.map(roundElement), gettext("You have not bet at this table yet.")),
    section(
      "history-results",
      gettext("Latest results"),
      results.map(resultElement),
      gettext("No results yet at this table."),
    ),
  );
}
