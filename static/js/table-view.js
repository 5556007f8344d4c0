/**
 * What the table page shows around the board and the cards (table.js decides, this draws): the phase, the
 * balance, the bet message, the controls and the stakes' total, the betting timer and the automatic sending's
 * banner, the round, the shoe, the seats, who holds the shoe, the dealer and the connection.
 */

import { formatCents, formatMoney } from "./money.js";
import { burnText, cutCardNotice } from "./shoe.js";

/** Each phase (table-state.js's coupPhase, and "no_more_bets") as the player reads it, and the page's data-phase. */
const PHASES = {
  waiting: [gettext("Waiting for the next coup"), "idle"],
  closed: [gettext("The table is closed"), "idle"],
  betting: [gettext("Place your bets"), "betting"],
  no_more_bets: [gettext("No more bets"), "closed"],
  // A dealing error (or the pit boss) holds the coup: bets stand, nothing moves until the pit decides.
  held: [gettext("Held: the pit boss is checking the coup"), "dealing"],
  void: [gettext("Round void"), "void"],
  no_bet: [gettext("No-bet coup"), "dealing"],
  dealing: [gettext("Dealing"), "dealing"],
  result: [gettext("Next coup soon"), "result"],
  result_closed: [gettext("The table is closed"), "result"],
};
const CONNECTION_TEXT = {
  connecting: gettext("Connecting…"),
  live: gettext("Live"),
  reconnecting: gettext("Reconnecting…"),
  gone: gettext("This table does not exist"),
};

const capitalised = (text) => text.charAt(0).toUpperCase() + text.slice(1);

export class TableView {
  constructor(app) {
    this.app = app;
    this.$ = (selector) => app.querySelector(selector);
  }

  phase(name) {
    const [text, phase] = PHASES[name];
    this.$("[data-phase]").textContent = text;
    this.app.dataset.phase = phase;
  }

  /** A partner's seamless wallet holds the balance: settlement and refunds then carry none (null), and the
   * page may be drawn before the wallet said it (empty). */
  balance(amount) {
    if (amount == null || String(amount).trim() === "") return;
    this.$("[data-balance]").textContent = formatMoney(amount);
    const inHeader = document.querySelector("[data-header-balance]");
    if (inHeader) inHeader.textContent = formatMoney(amount);
  }

  /** The balance the server drew the page with. */
  drawnBalance() {
    return this.$("[data-balance]").textContent;
  }

  betMessage(text, kind) {
    const message = this.$("[data-bet-message]");
    message.textContent = text ? capitalised(text) : "";
    message.dataset.kind = kind ?? "";
  }

  betMessageKind() {
    return this.$("[data-bet-message]").dataset.kind;
  }

  /** The bet controls (`disabled`: table-state.js's disabledControls) and the player's stakes (cents). */
  controls(disabled, { confirmed, pending }) {
    for (const [action, off] of Object.entries(disabled)) this.$(`[data-action="${action}"]`).disabled = off;
    this.$("[data-stake-total]").textContent = pending
      ? interpolate(
          gettext("%(confirmed)s + %(pending)s to confirm"),
          { confirmed: formatCents(confirmed), pending: formatCents(pending) },
          true,
        )
      : formatCents(confirmed);
  }

  /** One moment of the betting timer (`frame`: table-state.js's timerFrame), `left` seconds before the end. */
  timer(left, frame) {
    const timer = this.$("[data-timer]");
    timer.hidden = false;
    timer.dataset.secondsLeft = left.toFixed(1);
    this.$("[data-timer-seconds]").textContent = frame.whole;
    this.$("[data-timer-bar]").style.width = `${frame.barPercent}%`;
    timer.classList.toggle("timer--ending", frame.ending);
    if (frame.announce) this.announceTime(frame.whole);
  }

  /** Screen readers hear the time left as betting opens, then at 10 and 5 seconds (the bar and digits are silent). */
  announceTime(seconds) {
    const text = ngettext("%s second left to bet", "%s seconds left to bet", seconds);
    this.$("[data-timer-status]").textContent = interpolate(text, [seconds]);
  }

  hideTimer() {
    this.$("[data-timer]").hidden = true;
    this.$("[data-timer-status]").textContent = "";
  }

  /** The automatic sending's warning banner (`warn`, `warnSeconds`: table-state.js's autoSend). */
  autoSend({ warn, warnSeconds }) {
    this.$("[data-auto-send]").hidden = !warn;
    this.$("[data-auto-send-seconds]").textContent = warnSeconds;
  }

  round(coup, shoe) {
    this.$('[data-info="round"]').textContent = coup?.round_id ?? "—";
    this.shoe(shoe, coup);
  }

  /** The shoe's number and burn card, and the cut card's notice for the coup in play (seed 000). */
  shoe(shoe, coup) {
    const burn = burnText(shoe);
    this.$('[data-info="shoe"]').textContent = shoe ? `${shoe.number}${burn ? ` · ${burn}` : ""}` : "—";
    const notice = this.$("[data-cut-card]");
    notice.textContent = cutCardNotice(shoe, coup);
    notice.hidden = !notice.textContent;
  }

  /** Who sits at a dealer table's seats (seed 000 §1.1): a known player by display name, a guest by seat. */
  seats(seats) {
    const items = (seats ?? []).map(({ seat, patron, guest }) => {
      const item = document.createElement("li");
      item.textContent = guest ? patron : interpolate(gettext("Seat %(seat)s: %(patron)s"), { seat, patron }, true);
      return item;
    });
    this.$("[data-seated-list]").replaceChildren(...items);
    this.$("[data-seated]").hidden = items.length === 0;
  }

  /** Which seat holds the shoe where the patrons hold it (seed 002's big table); hidden when the croupier does. */
  shoeHolder(holder) {
    const element = this.$("[data-shoe-holder]");
    const seat = holder?.seat;
    element.textContent = seat ? interpolate(gettext("Seat %(seat)s holds the shoe"), { seat }, true) : "";
    element.hidden = !seat;
  }

  dealer(name) {
    this.$('[data-info="dealer"]').textContent = name;
  }

  connection(status) {
    const element = this.$("[data-connection]");
    element.dataset.state = status;
    element.textContent = CONNECTION_TEXT[status];
  }
}
