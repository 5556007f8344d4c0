/**
 * One table of the multi-table view (templates/multi.html, docs/ui.md, Several tables): its video or dealing
 * scene, timer, compact board (the main bets and the pairs), chips and result, drawn by the table page's own
 * modules (board, chips, timer, cards, video, result) from the table's events on the page's one socket. Bets go
 * over that socket, naming the table, else to the table page's endpoints (bet-requests.js).
 */

import { ApiError, getJSON } from "./api.js";
import { createBetRequests } from "./bet-requests.js";
import { MAIN_BETS, betsText, offeredBets, winningBets } from "./bets.js";
import { BetBoard, setupChipTray } from "./board.js";
import { countDown } from "./countdown.js";
import { CoupView } from "./coup-view.js";
import { reasonText } from "./errors.js";
import { formatCents, toCents } from "./money.js";
import { MyResult } from "./my-result.js";
import {
  autoSend, bettingOpen, coupPhase, disabledControls, inPlay, payOutDelay, roundOfTable, sameRound, timerFrame, timerLength,
} from "./table-state.js";
import { TableView } from "./table-view.js";
import { TableVideo } from "./video.js";

/** A tile's board: the main bets and, where the table offers them, the pairs. */
const COMPACT_BETS = [...MAIN_BETS, "player_pair", "banker_pair"];

export class MultiTile {
  /** `send(message)`: the page's socket (false when closed); `onBalance(amount)`: the page's one balance. */
  constructor(element, { clock, currency, squeezeTurnMs, send, onBalance }) {
    this.element = element;
    this.code = element.dataset.tile;
    this.clock = clock;
    this.currency = currency;
    this.send = send;
    this.onBalance = onBalance;
    this.state = { table: null, coup: null, busy: false, resultShownAt: null, stopTimer: () => {} };
    this.view = new TableView(element);
    this.coupView = new CoupView(element, { squeezeTurnMs });
    this.myResult = new MyResult(element.querySelector("[data-my-result]"), currency);
    const videoBox = element.querySelector("[data-video]");
    this.video = videoBox ? new TableVideo(videoBox) : null;
    const chips = [...element.querySelectorAll("[data-chip]")];
    this.board = new BetBoard(element.querySelector("[data-board]"), {
      onChange: () => this.updateControls(),
      chipValues: chips.map((chip) => toCents(chip.dataset.chip)),
    });
    const { dataset } = element;
    this.urls = { bet: dataset.betsUrl, undo: dataset.undoUrl, remove: dataset.removeUrl, rebet: dataset.rebetUrl };
    this.betRequests = createBetRequests({ socket: { send: (message) => send({ ...message, table: this.code }) }, urls: this.urls });
    setupChipTray(chips, this.board);
    for (const button of element.querySelectorAll("[data-action]")) {
      button.addEventListener("click", () => {
        this.view.betMessage("");
        this.actions[button.dataset.action]();
      });
    }
    this.actions = {
      confirm: () => this.confirm(),
      undo: () => (this.board.undoChip() ? null : this.request("undo", {}, gettext("Your last confirmed bets are cancelled and refunded"))),
      remove: () => {
        this.board.clearPending();
        if (this.board.stakes.confirmedTotal()) this.request("remove", {}, gettext("All your bets are removed and refunded"));
      },
      rebet: () => this.request("rebet", { multiplier: 1 }, gettext("Your last bets are placed again")),
      "rebet-double": () => this.request("rebet", { multiplier: 2 }, gettext("Your last bets are placed again, doubled")),
    };
    this.updateControls();
  }

  isOpen() {
    return bettingOpen(this.state.coup, this.clock);
  }

  isCurrentRound(data) {
    return sameRound(this.state.coup, data);
  }

  /** A player's own event (no table named) is this tile's when its round is one of this table's. */
  owns(data) {
    return typeof data?.round_id === "string" && roundOfTable(data.round_id, this.code);
  }

  updateControls() {
    const { stakes } = this.board;
    const pending = stakes.pendingTotal();
    const confirmed = stakes.confirmedTotal();
    this.view.controls(disabledControls({ open: this.isOpen() && !this.state.busy, pending, confirmed }), { confirmed, pending });
  }

  lockBoard(locked) {
    this.board.lock(locked);
    this.updateControls();
  }

  showTimer(coup) {
    const windowSeconds = this.state.table?.rules.betting_seconds;
    const total = timerLength(windowSeconds, this.clock.secondsUntil(coup.betting_closes_at));
    let lastWhole = null;
    this.state.stopTimer();
    this.state.stopTimer = countDown(this.clock, coup.betting_closes_at, (left) => {
      const frame = timerFrame(left, { windowSeconds, total, lastWhole });
      this.view.timer(left, frame);
      lastWhole = frame.whole;
      const sending = autoSend(left, this.board.stakes.pendingTotal() > 0 && !this.state.busy);
      this.view.autoSend(sending);
      if (sending.send) this.confirm();
      if (left <= 0) this.bettingClosed();
    });
  }

  hideTimer() {
    this.state.stopTimer();
    this.view.hideTimer();
    this.view.autoSend({ warn: false, warnSeconds: 0 });
  }

  bettingClosed() {
    this.hideTimer();
    this.lockBoard(true);
    if (this.state.coup?.state === "betting") this.view.phase("no_more_bets");
    const dropped = this.board.clearPending();
    if (dropped) {
      const text = gettext("No more bets: %(amount)s in unconfirmed chips was not placed.");
      this.view.betMessage(interpolate(text, { amount: formatCents(dropped) }, true), "error");
    } else if (this.view.betMessageKind() === "ok") this.view.betMessage("");
  }

  showCoup(coup) {
    const { board } = this;
    if (!sameRound(this.state.coup, coup)) {
      board.clearPending();
      board.clearSettled();
      board.setConfirmed({});
      board.setTableTotals({});
      this.myResult.clear();
    }
    this.state.coup = coup;
    board.showWinners(coup?.winner ? winningBets(coup) : []);
    this.hideTimer();
    const phase = coupPhase(coup, { isOpen: this.state.table.is_open });
    this.view.phase(phase);
    if (coup) this.coupView.show(coup);
    else this.coupView.clear();
    this.lockBoard(phase !== "betting");
    if (phase === "betting") this.showTimer(coup);
  }

  coupMoved(coupState, phase) {
    this.state.coup.state = coupState;
    this.bettingClosed();
    this.view.phase(phase);
  }

  askSnapshot() {
    this.send({ type: "snapshot", table: this.code });
  }

  /** The player's balance and stakes at this table, from the server (after a snapshot: a reconnect). */
  async refreshMine() {
    try {
      this.applyAnswer(await getJSON(this.urls.bet));
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      this.view.betMessage(reasonText(error), "error");
    }
  }

  applyAnswer(answer) {
    this.onBalance(answer.balance);
    if (this.isCurrentRound(answer)) this.board.setConfirmed(answer.bets);
  }

  /** A message of the page's socket for this table: an answer to a bet request, else an event. */
  receive(message) {
    if (message.type === "bet_accepted" || message.type === "bet_rejected") this.betRequests.answer(message);
    else this.handlers[message.type]?.call(this, message.data, message);
  }

  /** The socket is open again: unanswered requests go again (the server carries each out once). */
  reconnected() {
    this.betRequests.resend();
  }

  async request(kind, body, acceptedText) {
    if (this.state.busy || !this.isOpen()) return false;
    this.state.busy = true;
    this.lockBoard(true);
    try {
      this.applyAnswer(await this.betRequests.send(kind, { ...body, round_id: this.state.coup.round_id }));
      this.view.betMessage(acceptedText, "ok");
      return true;
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      this.view.betMessage(reasonText(error), "error");
      return false;
    } finally {
      this.state.busy = false;
      this.lockBoard(!this.isOpen());
    }
  }

  async confirm() {
    const bets = this.board.stakes.pendingBets();
    if (!Object.keys(bets).length) return;
    const accepted = interpolate(gettext("Bets accepted: %(bets)s"), { bets: betsText(bets) }, true);
    if (await this.request("bet", { bets }, accepted)) this.board.clearPending();
  }
}

MultiTile.prototype.handlers = {
  snapshot(data) {
    this.clock.learn(data.server_now); // nearer than the page's (countdown.js)
    this.state.table = data.table;
    this.video?.show(data.table.video_url ?? "");
    const offered = offeredBets(data.table.rules).filter((betType) => COMPACT_BETS.includes(betType));
    this.board.build(offered, data.table.payouts);
    this.showCoup(data.coup);
    if (data.bet_totals) this.handlers.bet_totals.call(this, data.bet_totals);
    this.coupView.showMine(data.you_show ?? []);
    this.refreshMine();
  },
  betting_open(coup) {
    this.view.betMessage("");
    this.myResult.clear();
    this.showCoup(coup);
  },
  no_more_bets(data) {
    if (!this.isCurrentRound(data)) return this.askSnapshot();
    this.coupMoved("no_more_bets", "no_more_bets");
    this.coupView.showShownBy(data.shown_by);
  },
  shown_by(data) {
    if (this.isCurrentRound(data)) this.coupView.showShownBy(data.shown_by);
  },
  you_show(data) {
    if (this.isCurrentRound(data)) this.coupView.showMine(data.hands);
  },
  coup_held(data) {
    if (!this.isCurrentRound(data)) return this.askSnapshot();
    this.coupMoved("held", "held");
  },
  coup_resumed() {
    this.askSnapshot();
  },
  card(data) {
    if (!this.isCurrentRound(data) || data.position !== this.coupView.cardCount()) return this.askSnapshot();
    if (this.state.coup.state !== "dealing") this.coupMoved("dealing", "dealing");
    this.coupView.addCard(data);
    this.coupView.showNext(data.next);
  },
  result(coup) {
    if (!this.isCurrentRound(coup)) return this.askSnapshot();
    this.state.coup = coup;
    this.state.resultShownAt = performance.now();
    for (const card of coup.cards) this.coupView.addCard(card);
    this.coupView.showResult(coup);
    this.board.showWinners(winningBets(coup));
    this.view.phase(coupPhase(coup, { isOpen: this.state.table.is_open }));
  },
  settlement(data, event) {
    if (event.table) return; // the table's own settlement event; the player's names no table
    this.onBalance(data.balance);
    if (this.isCurrentRound(data)) {
      const round = data.round_id;
      setTimeout(() => {
        if (this.isCurrentRound({ round_id: round })) this.board.payOut(data.bets);
      }, payOutDelay(this.state.resultShownAt, performance.now()));
    }
    this.myResult.settlement(data);
  },
  wallet(data) {
    this.onBalance(data.balance);
    if (data.bets && this.isCurrentRound(data)) this.board.setConfirmed(data.bets);
  },
  bets_refunded(data) {
    this.onBalance(data.balance);
    this.myResult.refunded(data);
  },
  bet_totals(data) {
    if (this.isCurrentRound(data) && data.currency === this.currency) this.board.setTableTotals(data.totals, data.bettors);
  },
  coup_void(data) {
    if (!this.isCurrentRound(data)) return this.askSnapshot();
    this.coupMoved("void", "void");
    this.board.setConfirmed({});
    this.coupView.showVoid(data.reason);
  },
  shoe_change() {
    this.askSnapshot();
  },
  table_opened() {
    this.askSnapshot();
  },
  table_closed() {
    this.state.table.is_open = false;
    if (!inPlay(this.state.coup)) this.view.phase("closed");
  },
  video(data) {
    this.video?.show(data.url);
  },
  error(data) {
    if (data.code === "snapshot_too_fast") setTimeout(() => this.askSnapshot(), 1000);
    else this.view.betMessage(reasonText(data), "error");
  },
};
