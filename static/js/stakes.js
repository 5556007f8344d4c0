/**
 * The betting board's amounts, in integer cents, without the board: the chips the player puts down (pending
 * until confirmed, in the order they were put down, for Undo), the stakes the server has confirmed, the whole
 * table's totals and bettors on each bet, and the player's settled chips. board.js draws them.
 */

import { MAIN_BETS } from "./bets.js";
import { fromCents, toCents } from "./money.js";

const STACK_MOST_CHIPS = 6; // drawn on one stack; more would climb out of the area
const FATES = { win: "paid", push: "returned", lose: "collected" };

const sum = (amounts) => [...amounts].reduce((total, cents) => total + cents, 0);
const inCents = (amounts) => new Map(Object.entries(amounts).map(([betType, amount]) => [betType, toCents(amount)]));

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

export class Stakes {
  constructor() {
    this.pending = new Map();
    this.placed = []; // the chips in the order they were put down: {betType, cents}, for Undo
    this.confirmed = new Map();
    this.tableTotals = new Map();
    this.bettors = new Map();
    this.settled = new Map(); // bet type: {cents, fate} while settled chips are paid out or collected
  }

  /** Put a chip of `cents` on `betType`. */
  add(betType, cents) {
    this.pending.set(betType, (this.pending.get(betType) ?? 0) + cents);
    this.placed.push({ betType, cents });
  }

  /** Take `cents` off an area's pending chips (all of them if they come to less, or `cents` is 0); false when
   * it has none. */
  take(betType, cents) {
    const pending = this.pending.get(betType) ?? 0;
    if (!pending) return false;
    let left = Math.min(cents || pending, pending);
    this.setPending(betType, pending - left);
    for (let index = this.placed.length - 1; index >= 0 && left > 0; index -= 1) {
      const chip = this.placed[index];
      if (chip.betType !== betType) continue;
      const used = Math.min(left, chip.cents);
      chip.cents -= used;
      left -= used;
      if (!chip.cents) this.placed.splice(index, 1);
    }
    return true;
  }

  /** Take back the last chip put down; false when there is none. */
  undoChip() {
    const chip = this.placed.pop();
    if (!chip) return false;
    this.setPending(chip.betType, this.pending.get(chip.betType) - chip.cents);
    return true;
  }

  /** Take every pending chip back; the cents taken back. */
  clearPending() {
    const total = this.pendingTotal();
    this.pending.clear();
    this.placed = [];
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
    return sum(this.pending.values());
  }

  confirmedTotal() {
    return sum(this.confirmed.values());
  }

  /** The player's stakes on the coup as the server has them: {bet_type: "10.00"}. */
  setConfirmed(bets) {
    this.confirmed = inCents(bets);
  }

  /** The whole table's stakes (`totals`: {bet_type: "10.00"}) and bettors ({bet_type: 2}) on the coup. */
  setTableTotals(totals, bettors = {}) {
    this.tableTotals = inCents(totals);
    this.bettors = new Map(Object.entries(bettors));
  }

  /** A bet type's share of the table, in whole percent: a main bet's of the main bets, a side bet's of all. */
  tableShare(betType) {
    const counted = [...this.tableTotals].filter(([other]) => !MAIN_BETS.includes(betType) || MAIN_BETS.includes(other));
    const whole = sum(counted.map(([, cents]) => cents));
    return whole ? Math.round(((this.tableTotals.get(betType) ?? 0) * 100) / whole) : 0;
  }

  /** The player's settled bets ({bet_type, outcome, stake, returned}): a win's chips are what it returned
   * ("paid"), a push's its stake back ("returned"), a loss's its stake ("collected"); the confirmed stakes
   * are gone. */
  settle(bets) {
    this.settled = new Map();
    for (const bet of bets) {
      // One area's bets (several batches) share an outcome: their chips go together.
      const cents = toCents(bet.outcome === "lose" ? bet.stake : bet.returned);
      const before = this.settled.get(bet.bet_type)?.cents ?? 0;
      this.settled.set(bet.bet_type, { cents: before + cents, fate: FATES[bet.outcome] ?? "returned" });
    }
    this.confirmed = new Map();
  }

  clearSettled() {
    this.settled = new Map();
  }
}
