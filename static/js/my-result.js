/**
 * The player's own outcome of a round, as a banner (a headline: words and an amount with its currency, a win
 * counted up to it; then each bet's fate): it stays up until the next round opens.
 */

import { betLabel } from "./bets.js";
import { formatCents, formatMoney, withCurrency } from "./money.js";
import { reducedMotion } from "./squeeze.js";
import { roundOutcome } from "./table-state.js";

const COUNT_UP_MS = 1200;

/**
 * A win counted up, eased, to its amount (`final`, the text it ends on). The banner (a live region) is busy
 * meanwhile: a screen reader announces the amount once, not every figure on the way.
 */
function counted(element, box, { cents, text }, final) {
  const start = performance.now();
  box.setAttribute("aria-busy", "true");
  const step = (now) => {
    const progress = Math.min(1, (now - start) / COUNT_UP_MS);
    if (!element.isConnected || progress === 1) {
      element.textContent = final;
      box.removeAttribute("aria-busy");
      return;
    }
    element.textContent = text(Math.round(cents * (1 - (1 - progress) ** 3)));
    requestAnimationFrame(step);
  };
  element.textContent = text(0);
  requestAnimationFrame(step);
}

export class MyResult {
  /** `currency`: the player's, for amounts an event does not say the currency of. */
  constructor(box, currency) {
    this.box = box;
    this.currency = currency;
  }

  /** `countUp`: `{cents, text: (cents) => text}`, the win the amount counts up to from nothing, and its text. */
  show({ outcome, round, headline, items, countUp = null }) {
    this.box.dataset.outcome = outcome;
    this.box.dataset.round = round;
    const title = document.createElement("p");
    title.className = "my-result-headline";
    const [words, amount] = headline;
    const wordsPart = document.createElement("span");
    wordsPart.className = "my-result-words";
    wordsPart.textContent = words;
    const amountPart = document.createElement("span");
    amountPart.className = "my-result-amount";
    amountPart.textContent = amount;
    if (countUp && !reducedMotion()) counted(amountPart, this.box, countUp, amount);
    title.append(wordsPart, " ", amountPart);
    const list = document.createElement("ul");
    list.className = "my-result-bets";
    list.append(...items);
    this.box.replaceChildren(title, list);
  }

  clear() {
    this.box.removeAttribute("aria-busy");
    delete this.box.dataset.outcome;
    delete this.box.dataset.round;
    this.box.replaceChildren();
  }

  /** The player's settlement of a round; its outcome ("win", "lose" or "even"). */
  settlement(data) {
    const { net, outcome } = roundOutcome(data);
    const inCurrency = (text) => withCurrency(text, data.currency ?? this.currency);
    const back = interpolate(gettext("%(amount)s back"), { amount: inCurrency(formatMoney(data.returned)) }, true);
    let headline = [gettext("You broke even:"), back];
    let countUp = null;
    if (net > 0) {
      headline = [gettext("You won"), inCurrency(formatCents(net))];
      countUp = { cents: net, text: (cents) => inCurrency(formatCents(cents)) };
    }
    if (net < 0) headline = [gettext("No win: you lost"), inCurrency(formatCents(-net))];
    const outcomes = {
      win: gettext("%(bet)s %(stake)s won, %(returned)s back"),
      lose: gettext("%(bet)s %(stake)s lost"),
      push: gettext("%(bet)s %(stake)s push, %(returned)s back"),
    };
    const items = data.bets.map((bet) => {
      const item = document.createElement("li");
      item.dataset.outcome = bet.outcome;
      const values = { bet: betLabel(bet.bet_type), stake: formatMoney(bet.stake), returned: bet.returned ? formatMoney(bet.returned) : "" };
      item.textContent = interpolate(outcomes[bet.outcome] ?? `%(bet)s %(stake)s ${bet.outcome}`, values, true);
      return item;
    });
    this.show({ outcome, round: data.round_id, headline, items, countUp });
    return outcome;
  }

  /** The player's bets on a void round, refunded. */
  refunded(data) {
    const amount = withCurrency(formatMoney(data.refunded), this.currency);
    this.show({
      outcome: "even",
      round: data.round_id,
      headline: [gettext("Round void:"), interpolate(gettext("%(amount)s refunded"), { amount }, true)],
      items: [],
    });
  }
}
