/**
 * The betting board: one area per bet the table offers, the chips the player puts on them
 * (pending until confirmed, seed 004: click adds the selected chip, right-click or a long
 * press takes that much off) and the stakes the server has confirmed.
 * Amounts are integer cents here; `pendingBets()` gives the strings the server expects.
 */

import { MAIN_BETS, betLabel } from "./bets.js";
import { formatCents, fromCents, toCents } from "./money.js";

const LONG_PRESS_MS = 500;

export class BetBoard {
  constructor(element, { onChange }) {
    this.element = element;
    this.onChange = onChange;
    this.chip = 0;
    this.locked = true;
    this.layout = "";
    this.spots = new Map();
    this.pending = new Map();
    this.placed = []; // the chips in the order they were put down: {betType, cents}, for Undo
    this.confirmed = new Map();
    this.tableTotals = new Map();
    this.won = new Set();
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
      '<span class="spot-name"></span><span class="spot-pays"></span>' +
      '<span class="spot-stake" hidden></span><span class="spot-table-total" aria-hidden="true"></span>';
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

  setTableTotals(totals) {
    this.tableTotals = new Map(Object.entries(totals).map(([betType, amount]) => [betType, toCents(amount)]));
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

  render() {
    for (const [betType, spot] of this.spots) {
      const confirmed = this.confirmed.get(betType) ?? 0;
      const pending = this.pending.get(betType) ?? 0;
      const tableTotal = this.tableTotals.get(betType) ?? 0;
      const stake = spot.querySelector(".spot-stake");
      stake.hidden = !(confirmed || pending);
      stake.textContent = formatCents(confirmed + pending, { short: true });
      stake.classList.toggle("spot-stake--pending", pending > 0);
      spot.querySelector(".spot-table-total").textContent =
        tableTotal > confirmed ? `Table ${formatCents(tableTotal, { short: true })}` : "";
      spot.classList.toggle("spot--won", this.won.has(betType));
      spot.disabled = this.locked;
      let label = `${betLabel(betType)}, pays ${spot.dataset.pays}`;
      if (confirmed) label += `, your bet ${formatCents(confirmed)}`;
      if (pending) label += `, ${formatCents(pending)} to confirm`;
      spot.setAttribute("aria-label", label);
    }
  }
}
