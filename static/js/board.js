/**
 * The betting board: one area per bet the table offers, the chips the player puts on them
 * (pending until confirmed, seed 004: click adds the selected chip, right-click or a long
 * press takes that much off) and the stakes the server has confirmed, drawn as stacks of chips
 * in their colours; along each area's top edge, the whole table's total on it, its share and
 * its bettors; at settlement, the player's chips paid out or collected.
 * Amounts are integer cents here; `pendingBets()` gives the strings the server expects.
 */

import { MAIN_BETS, betLabel } from "./bets.js";
import { formatCents, fromCents, toCents } from "./money.js";

const LONG_PRESS_MS = 500;
const STACK_MOST_CHIPS = 6; // drawn on one stack; more would climb out of the area
// How long settled chips stay on the board (their animation's length in table.css) before they are gone.
const SETTLED_CHIPS_MS = 1600;
const PERSON_ICON =
  '<svg class="spot-crowd-icon" viewBox="0 0 16 16" aria-hidden="true">' +
  '<circle cx="8" cy="4.5" r="3.5"/><path d="M1 16c0-4.4 3.1-7 7-7s7 2.6 7 7z"/></svg>';

/** The chips making up `cents`, largest first, from the chip values (cents, largest first). */
export function chipsFor(cents, chipValues) {
  const chips = [];
  let left = cents;
  for (const value of chipValues) {
    while (left >= value && chips.length < STACK_MOST_CHIPS) {
      chips.push(value);
      left -= value;
    }
  }
  return chips;
}

export class BetBoard {
  /** `chipValues`: the chips on offer, in cents: stacks are drawn in their colours. */
  constructor(element, { onChange, chipValues }) {
    this.element = element;
    this.onChange = onChange;
    this.chipValues = [...chipValues].sort((a, b) => b - a);
    this.chip = 0;
    this.locked = true;
    this.layout = "";
    this.spots = new Map();
    this.pending = new Map();
    this.placed = []; // the chips in the order they were put down: {betType, cents}, for Undo
    this.confirmed = new Map();
    this.tableTotals = new Map();
    this.bettors = new Map();
    this.won = new Set();
    this.settled = new Map(); // bet type: {cents, fate} while settled chips are paid out or collected
    this.settledTimer = null;
  }

  /** Draw the areas of `betTypes` with their payouts (again only if they changed). */
  build(betTypes, payouts) {
    const layout = JSON.stringify([betTypes, payouts]);
    if (layout === this.layout) return;
    this.layout = layout;
    this.spots.clear();
    const sideRow = document.createElement("div");
    sideRow.className = "board-row board-row--side";
    const mainRow = document.createElement("div");
    mainRow.className = "board-row board-row--main";
    for (const betType of betTypes) {
      const spot = this.spot(betType, payouts[betType] ?? "");
      (MAIN_BETS.includes(betType) ? mainRow : sideRow).append(spot);
      this.spots.set(betType, spot);
    }
    this.element.replaceChildren(...(sideRow.childElementCount ? [sideRow] : []), mainRow);
    this.render();
  }

  spot(betType, pays) {
    const spot = document.createElement("button");
    spot.type = "button";
    spot.className = `spot spot--${betType.replaceAll("_", "-")}`;
    spot.dataset.bet = betType;
    spot.setAttribute("aria-keyshortcuts", "Delete");
    spot.innerHTML =
      '<span class="spot-crowd" aria-hidden="true"><span class="spot-crowd-total"></span>' +
      `<span class="spot-crowd-share"></span><span class="spot-crowd-bettors">${PERSON_ICON}<span></span></span>` +
      '<span class="spot-crowd-bar"><span class="spot-crowd-fill"></span></span></span>' +
      '<span class="spot-name"></span><span class="spot-pays"></span>' +
      '<span class="spot-stake" hidden><span class="chip-stack" aria-hidden="true"></span>' +
      '<span class="spot-stake-amount"></span></span>';
    spot.querySelector(".spot-name").textContent = betLabel(betType);
    spot.querySelector(".spot-pays").textContent = pays;
    spot.dataset.pays = pays;
    let pressTimer;
    let longPressed = false;
    spot.addEventListener("click", (event) => {
      if (longPressed) {
        longPressed = false;
        event.preventDefault();
        return;
      }
      this.add(betType);
    });
    spot.addEventListener("contextmenu", (event) => {
      event.preventDefault();
      if (!longPressed) this.take(betType);
    });
    spot.addEventListener("keydown", (event) => {
      if (event.key === "Delete" || event.key === "Backspace") {
        event.preventDefault();
        this.take(betType);
      }
    });
    spot.addEventListener("pointerdown", (event) => {
      longPressed = false;
      if (event.pointerType !== "touch") return;
      pressTimer = setTimeout(() => {
        longPressed = true;
        this.take(betType);
      }, LONG_PRESS_MS);
    });
    for (const end of ["pointerup", "pointercancel", "pointerleave"]) {
      spot.addEventListener(end, () => clearTimeout(pressTimer));
    }
    return spot;
  }

  selectChip(value) {
    this.chip = toCents(String(value));
  }

  add(betType) {
    if (this.locked || !this.chip) return;
    this.pending.set(betType, (this.pending.get(betType) ?? 0) + this.chip);
    this.placed.push({ betType, cents: this.chip });
    this.changed();
  }

  /** Take the selected chip's value off an area's pending chips (all of them if they come to less). */
  take(betType) {
    const pending = this.pending.get(betType) ?? 0;
    if (this.locked || !pending) return;
    let left = Math.min(this.chip || pending, pending);
    this.setPending(betType, pending - left);
    for (let index = this.placed.length - 1; index >= 0 && left > 0; index -= 1) {
      const chip = this.placed[index];
      if (chip.betType !== betType) continue;
      const used = Math.min(left, chip.cents);
      chip.cents -= used;
      left -= used;
      if (!chip.cents) this.placed.splice(index, 1);
    }
    this.changed();
  }

  /** Undo the last chip put down; false when there is none. */
  undoChip() {
    const chip = this.placed.pop();
    if (!chip) return false;
    this.setPending(chip.betType, this.pending.get(chip.betType) - chip.cents);
    this.changed();
    return true;
  }

  /** Take every pending chip back; the cents taken back. */
  clearPending() {
    const total = this.pendingTotal();
    this.pending.clear();
    this.placed = [];
    this.changed();
    return total;
  }

  setPending(betType, cents) {
    if (cents > 0) this.pending.set(betType, cents);
    else this.pending.delete(betType);
  }

  /** The pending chips as the batch to confirm: {bet_type: "10.00"}. */
  pendingBets() {
    return Object.fromEntries([...this.pending].map(([betType, cents]) => [betType, fromCents(cents)]));
  }

  pendingTotal() {
    return [...this.pending.values()].reduce((sum, cents) => sum + cents, 0);
  }

  confirmedTotal() {
    return [...this.confirmed.values()].reduce((sum, cents) => sum + cents, 0);
  }

  /** The player's stakes on the coup as the server has them: {bet_type: "10.00"}. */
  setConfirmed(bets) {
    this.confirmed = new Map(Object.entries(bets).map(([betType, amount]) => [betType, toCents(amount)]));
    this.changed();
  }

  /** The whole table's stakes (`totals`: {bet_type: "10.00"}) and bettors ({bet_type: 2}) on the coup. */
  setTableTotals(totals, bettors = {}) {
    this.tableTotals = new Map(Object.entries(totals).map(([betType, amount]) => [betType, toCents(amount)]));
    this.bettors = new Map(Object.entries(bettors));
    this.render();
  }

  /** The player's settled bets ({bet_type, outcome, returned}): a win's chips grow by the payout and slide to
   * the player, a push's slide back, a loss's are collected; then they are gone. */
  payOut(bets) {
    const fates = { win: "paid", push: "returned", lose: "collected" };
    this.settled = new Map();
    for (const bet of bets) {
      // One area's bets (several batches) share an outcome: their chips go together.
      const cents = toCents(bet.outcome === "lose" ? bet.stake : bet.returned);
      const before = this.settled.get(bet.bet_type)?.cents ?? 0;
      this.settled.set(bet.bet_type, { cents: before + cents, fate: fates[bet.outcome] ?? "returned" });
    }
    this.confirmed = new Map();
    clearTimeout(this.settledTimer);
    this.settledTimer = setTimeout(() => this.clearSettled(), SETTLED_CHIPS_MS);
    this.changed();
  }

  clearSettled() {
    clearTimeout(this.settledTimer);
    this.settled = new Map();
    this.render();
  }

  /** Mark the bets a result won (none: a new coup). */
  showWinners(betTypes) {
    this.won = new Set(betTypes);
    this.render();
  }

  lock(locked) {
    this.locked = locked;
    this.element.dataset.locked = String(locked);
    this.render();
  }

  changed() {
    this.render();
    this.onChange();
  }

  /** A bet type's share of the table, in whole percent: a main bet's of the main bets, a side bet's of all. */
  tableShare(betType) {
    const counted = [...this.tableTotals].filter(([other]) => !MAIN_BETS.includes(betType) || MAIN_BETS.includes(other));
    const whole = counted.reduce((sum, [, cents]) => sum + cents, 0);
    return whole ? Math.round(((this.tableTotals.get(betType) ?? 0) * 100) / whole) : 0;
  }

  render() {
    for (const [betType, spot] of this.spots) {
      const confirmed = this.confirmed.get(betType) ?? 0;
      const pending = this.pending.get(betType) ?? 0;
      const settled = this.settled.get(betType);
      this.renderStake(spot.querySelector(".spot-stake"), settled?.cents ?? confirmed + pending, {
        pending: pending > 0,
        fate: settled?.fate,
      });
      const crowd = this.renderCrowd(spot.querySelector(".spot-crowd"), betType);
      spot.classList.toggle("spot--won", this.won.has(betType));
      spot.classList.toggle("spot--lost", this.won.size > 0 && !this.won.has(betType));
      spot.disabled = this.locked;
      const parts = [interpolate(gettext("%(bet)s, pays %(pays)s"), { bet: betLabel(betType), pays: spot.dataset.pays }, true)];
      if (this.won.has(betType)) parts.push(gettext("wins"));
      if (confirmed) parts.push(interpolate(gettext("your bet %(amount)s"), { amount: formatCents(confirmed) }, true));
      if (pending) parts.push(interpolate(gettext("%(amount)s to confirm"), { amount: formatCents(pending) }, true));
      if (crowd) parts.push(crowd);
      spot.setAttribute("aria-label", parts.join(pgettext("between the items of a list", ", ")));
    }
  }

  /** The player's chips on an area as a stack in the chips' colours, the amount on top. */
  renderStake(stake, cents, { pending, fate }) {
    stake.hidden = !cents;
    stake.classList.toggle("spot-stake--pending", pending);
    for (const each of ["paid", "returned", "collected"]) stake.classList.toggle(`spot-stake--${each}`, fate === each);
    const chips = chipsFor(cents, this.chipValues);
    const stack = stake.querySelector(".chip-stack");
    stack.dataset.chips = String(chips.length);
    stack.replaceChildren(
      ...chips.map((value) => {
        const chip = document.createElement("span");
        chip.className = `stack-chip chip--${formatCents(value, { short: true }).replaceAll(",", "")}`;
        return chip;
      }),
    );
    stake.querySelector(".spot-stake-amount").textContent = formatCents(cents, { short: true });
  }

  /** Along the area's top edge: the table's total on it, its share and its bettors; their words, for the label. */
  renderCrowd(crowd, betType) {
    const total = this.tableTotals.get(betType) ?? 0;
    const bettors = this.bettors.get(betType) ?? 0;
    const share = this.tableShare(betType);
    crowd.dataset.empty = String(!total);
    crowd.querySelector(".spot-crowd-total").textContent = total ? formatCents(total, { short: true }) : "";
    crowd.querySelector(".spot-crowd-share").textContent = total ? `${share}%` : "";
    crowd.querySelector(".spot-crowd-bettors span").textContent = bettors ? String(bettors) : "";
    crowd.querySelector(".spot-crowd-fill").style.width = `${share}%`;
    if (!total) return "";
    const text = MAIN_BETS.includes(betType)
      ? ngettext(
          "table %(total)s from %(count)s bettor, %(share)s of the main bets",
          "table %(total)s from %(count)s bettors, %(share)s of the main bets",
          bettors,
        )
      : ngettext(
          "table %(total)s from %(count)s bettor, %(share)s of all bets",
          "table %(total)s from %(count)s bettors, %(share)s of all bets",
          bettors,
        );
    return interpolate(text, { total: formatCents(total), count: bettors, share: `${share}%` }, true);
  }
}
