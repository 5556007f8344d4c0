/**
 * The player's protection at the table (docs/ui.md, Responsible gaming): the notice of a break from play, the
 * reality check's dialog (the session so far, and Continue / Leave the table / My history: betting waits for the
 * answer) and the session limit's. Told by the table socket's snapshot and the player's `protection` event, and
 * by a bet refused for it (the standing then read again: it may have changed elsewhere). Text goes in with
 * textContent only.
 */

import { ApiError, getJSON, postJSON } from "./api.js";
import { reasonText } from "./errors.js";
import { formatMoney, withCurrency } from "./money.js";
import { momentText } from "./protection-reasons.js";
import { durationText, protectionStanding, STANDING_CODES } from "./protection-state.js";

const LONGEST_TIMEOUT_MS = 2 ** 31 - 1; // setTimeout's

function noticeText(block, until) {
  const time = until ? momentText(until) : "";
  switch (block) {
    case "self_excluded":
      return until
        ? interpolate(gettext("You have excluded yourself from play until %(time)s: betting is closed."), { time }, true)
        : gettext("Your operator has excluded your account from play: betting is closed.");
    case "timed_out":
      return interpolate(gettext("You are on a time-out until %(time)s: betting is paused."), { time }, true);
    case "session_limit":
      return gettext("Your session limit was reached: sign in again to play.");
    case "reality_check":
      return gettext("Answer your reality check to go on betting.");
    default:
      return "";
  }
}

export class ProtectionGuard {
  /** `url`: the reality check's endpoint; `onChange()` when betting is paused or resumes; `openHistory()`. */
  constructor(app, { clock, url, lobbyUrl, onChange, openHistory }) {
    this.$ = (selector) => app.querySelector(selector);
    Object.assign(this, { clock, url, lobbyUrl, onChange, openHistory });
    this.protection = null;
    this.standing = protectionStanding(null, clock);
    this.timer = null;
    this.answering = false;
    this.notice = this.$("[data-protection-notice]");
    this.check = this.$('[data-dialog="reality-check"]');
    this.sessionEnd = this.$('[data-dialog="session-limit"]');
    for (const dialog of [this.check, this.sessionEnd]) {
      // Escape does not dismiss them: the check waits for its answer, the session is over.
      dialog.addEventListener("cancel", (event) => event.preventDefault());
      dialog.addEventListener("close", () => {
        if (this.mustShow(dialog)) dialog.showModal();
      });
    }
    for (const button of this.check.querySelectorAll("[data-answer]")) {
      button.addEventListener("click", () => this.answer(button.dataset.answer));
    }
  }

  /** Whether the player may not bet now. */
  blocked() {
    return this.standing.block !== null;
  }

  /** The server's protection_public (null: the player set none). */
  apply(protection) {
    this.protection = protection;
    this.evaluate();
  }

  /** A bet refused for the player's protection: its standing read again (it may have changed elsewhere). */
  refused(error) {
    if (STANDING_CODES.has(error.code)) this.refresh();
  }

  async refresh() {
    try {
      this.apply((await getJSON(this.url)).protection);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
    }
  }

  evaluate() {
    clearTimeout(this.timer);
    const before = this.standing.block;
    this.standing = protectionStanding(this.protection, this.clock);
    const { block, until, recheckIn } = this.standing;
    if (recheckIn !== null) this.timer = setTimeout(() => this.evaluate(), Math.min(recheckIn * 1000 + 100, LONGEST_TIMEOUT_MS));
    this.notice.textContent = noticeText(block, until);
    this.notice.hidden = block === null;
    if (block === "reality_check" && !this.check.open) this.openCheck();
    if (block !== "reality_check" && this.check.open) this.check.close();
    if (block === "session_limit" && !this.sessionEnd.open) {
      this.sessionEnd.showModal();
      this.sessionEnd.querySelector("button, a").focus(); // not autofocus: a partner's frame blocks it
    }
    if (block !== before) this.onChange();
  }

  mustShow(dialog) {
    if (dialog === this.sessionEnd) return this.standing.block === "session_limit";
    return this.standing.block === "reality_check";
  }

  async openCheck() {
    this.summary(null);
    this.check.querySelector("[data-check-error]").textContent = "";
    this.check.showModal();
    this.check.querySelector('[data-answer="continue"]').focus(); // not autofocus: a partner's frame blocks it
    try {
      const standing = await getJSON(this.url);
      this.summary(standing);
      this.apply(standing.protection); // the server's word: no check due after all closes the dialog
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      this.check.querySelector("[data-check-error]").textContent = reasonText(error);
    }
  }

  /** The session so far (`session_summary`), or dashes while it loads. */
  summary(standing) {
    const found = standing?.session_summary;
    const amount = (value) => (found ? withCurrency(formatMoney(value), standing.currency) : "—");
    const values = {
      duration: found ? durationText(found.minutes) : "—",
      staked: amount(found?.staked),
      returned: amount(found?.returned),
      net: amount(found?.net),
    };
    for (const [name, text] of Object.entries(values)) this.check.querySelector(`[data-summary="${name}"]`).textContent = text;
  }

  async answer(answer) {
    if (this.answering) return;
    this.answering = true;
    const buttons = [...this.check.querySelectorAll("[data-answer]")];
    for (const button of buttons) button.disabled = true;
    try {
      this.apply((await postJSON(this.url, { answer })).protection);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      this.check.querySelector("[data-check-error]").textContent = reasonText(error);
      this.refresh(); // answered elsewhere meanwhile: no check due closes the dialog
      return;
    } finally {
      this.answering = false;
      for (const button of buttons) button.disabled = false;
    }
    if (answer === "leave") window.location.assign(this.lobbyUrl);
    else if (answer === "history") this.openHistory();
  }
}
