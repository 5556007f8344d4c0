/**
 * The betting board: one area per bet the table offers, the chips the player puts on them
 * (pending until confirmed, seed 004: click adds the selected chip, right-click or a long
 * press takes that much off) and the stakes the server has confirmed, drawn as stacks of chips
 * in their colours; along each area's top edge, the whole table's total on it, its share and
 * its bettors; at settlement, the player's chips paid out or collected.
 * The amounts are `stakes` (stakes.js: integer cents, `stakes.pendingBets()` the strings the server expects).
 */

import { MAIN_BETS, betLabel } from "./bets.js";
import { formatCents, toCents } from "./money.js";
import { Stakes, chipsFor } from "./stakes.js";

const LONG_PRESS_MS = 500;
// How long settled chips stay on the board (their animation's length in table.css) before they are gone.
const SETTLED_CHIPS_MS = 1600;
const PERSON_ICON =
  '<svg class="spot-crowd-icon" viewBox="0 0 16 16" aria-hidden="true">' +
  '<circle cx="8" cy="4.5" r="3.5"/><path d="M1 16c0-4.4 3.1-7 7-7s7 2.6 7 7z"/></svg>';

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
    this.stakes = new Stakes();
    this.won = new Set();
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
    this.stakes.add(betType, this.chip);
    this.changed();
  }

  /** Take the selected chip's value off an area's pending chips (all of them if they come to less). */
  take(betType) {
    if (!this.locked && this.stakes.take(betType, this.chip)) this.changed();
  }

  /** Undo the last chip put down; false when there is none. */
  undoChip() {
    if (!this.stakes.undoChip()) return false;
    this.changed();
    return true;
  }

  /** Take every pending chip back; the cents taken back. */
  clearPending() {
    const total = this.stakes.clearPending();
    this.changed();
    return total;
  }

  /** The player's stakes on the coup as the server has them: {bet_type: "10.00"}. */
  setConfirmed(bets) {
    this.stakes.setConfirmed(bets);
    this.changed();
  }

  /** The whole table's stakes (`totals`: {bet_type: "10.00"}) and bettors ({bet_type: 2}) on the coup. */
  setTableTotals(totals, bettors = {}) {
    this.stakes.setTableTotals(totals, bettors);
    this.render();
  }

  /** The player's settled bets ({bet_type, outcome, stake, returned}): a win's chips grow by the payout and
   * slide to the player, a push's slide back, a loss's are collected; then they are gone. */
  payOut(bets) {
    this.stakes.settle(bets);
    clearTimeout(this.settledTimer);
    this.settledTimer = setTimeout(() => this.clearSettled(), SETTLED_CHIPS_MS);
    this.changed();
  }

  clearSettled() {
    clearTimeout(this.settledTimer);
    this.stakes.clearSettled();
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
      const confirmed = this.stakes.confirmed.get(betType) ?? 0;
      const pending = this.stakes.pending.get(betType) ?? 0;
      const settled = this.stakes.settled.get(betType);
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
    const total = this.stakes.tableTotals.get(betType) ?? 0;
    const bettors = this.stakes.bettors.get(betType) ?? 0;
    const share = this.stakes.tableShare(betType);
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

/** The chip tray (`chips`: its radio buttons, `data-chip` their values): the chip chosen, by click or arrow
 * keys, is the one the board puts down. */
export function setupChipTray(chips, board) {
  function selectChip(chip) {
    for (const other of chips) {
      other.setAttribute("aria-checked", String(other === chip));
      other.tabIndex = other === chip ? 0 : -1;
    }
    board.selectChip(chip.dataset.chip);
  }
  for (const [index, chip] of chips.entries()) {
    chip.addEventListener("click", () => selectChip(chip));
    chip.addEventListener("keydown", (event) => {
      const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[event.key];
      if (!step) return;
      event.preventDefault();
      const next = chips[(index + step + chips.length) % chips.length];
      selectChip(next);
      next.focus();
    });
  }
  selectChip(chips.find((chip) => chip.getAttribute("aria-checked") === "true") ?? chips[0]);
}
