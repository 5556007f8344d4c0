/**
 * The live table page: drawn from the snapshot of the table's WebSocket, kept live by its events, and the
 * player's bets sent to the table page's JSON endpoints. What it decides from the data alone is
 * table-state.js's; what it shows around the board and the cards, table-view.js's.
 */

import { ApiError, getJSON } from "./api.js";
import { createBetRequests } from "./bet-requests.js";
import { betsText, offeredBets, winningBets } from "./bets.js";
import { BetBoard, setupChipTray } from "./board.js";
import { setupChat } from "./chat.js";
import { countDown, serverClock } from "./countdown.js";
import { CoupView } from "./coup-view.js";
import { reasonText } from "./errors.js";
import { connectTable } from "./live.js";
import { formatCents, toCents } from "./money.js";
import { MyResult } from "./my-result.js";
import { ProtectionGuard } from "./protection-view.js";
import { RoadsPanel } from "./roads-panel.js";
import { beep } from "./sounds.js";
import {
  autoSend, bettingOpen, coupPhase, disabledControls, inPlay, payOutDelay, roundOfTable, sameRound, timerFrame, timerLength,
} from "./table-state.js";
import { instantBets, setupTools } from "./table-tools.js";
import { TableView } from "./table-view.js";
import { TableVideo } from "./video.js";

/** The page's parameters (templates/table.html): the app element and its data, the player's personal limits. */
export function readParams(document) {
  const app = document.getElementById("table-app");
  const { dataset } = app;
  return {
    app,
    table: dataset.table,
    socket: dataset.socket,
    serverNow: dataset.serverNow,
    user: dataset.user,
    currency: dataset.currency, // the player's: the table's limits and totals shown are in it
    squeezeTurnMs: Number(dataset.squeezeTurnMs), // a squeezable card left alone turns by itself after this
    personalLimits: JSON.parse(document.getElementById("personal-limits").textContent), // bet type: {min, max}
    urls: {
      bets: dataset.betsUrl,
      undo: dataset.undoUrl,
      remove: dataset.removeUrl,
      rebet: dataset.rebetUrl,
      history: dataset.historyUrl,
      realityCheck: dataset.realityCheckUrl,
      lobby: dataset.lobbyUrl,
    },
  };
}

export function init({ app, table, socket, serverNow, user, currency, squeezeTurnMs, personalLimits, urls }) {
  const $ = (selector) => app.querySelector(selector);
  const clock = serverClock(serverNow);
  const state = { table: null, shoe: null, coup: null, busy: false, resultShownAt: null, stopTimer: () => {} };
  const view = new TableView(app);
  const myResult = new MyResult($("[data-my-result]"), currency);
  const coupView = new CoupView(app, { squeezeTurnMs });
  const roads = new RoadsPanel(app);
  const videoBox = $("[data-video]"); // a dealer table's (docs/ui.md, Live video)
  const video = videoBox ? new TableVideo(videoBox) : null;
  const chips = [...app.querySelectorAll("[data-chip]")];
  const board = new BetBoard($("[data-board]"), {
    onChange() {
      updateControls();
      placeChipsAtOnce();
    },
    chipValues: chips.map((chip) => toCents(chip.dataset.chip)),
  });
  const { stakes } = board;
  const isCurrentRound = (data) => sameRound(state.coup, data);
  // Betting pauses while the player's protection says so (a reality check to answer, a break): docs/ui.md.
  const guard = new ProtectionGuard(app, {
    clock,
    url: urls.realityCheck,
    lobbyUrl: urls.lobby,
    onChange: () => lockBoard(!isOpen()),
    openHistory: () => $('[data-tool="history"]').click(),
  });
  const isOpen = () => bettingOpen(state.coup, clock) && !guard.blocked();

  // --- What the player sees -----------------------------------------------------------------

  function updateControls() {
    const pending = stakes.pendingTotal();
    const confirmed = stakes.confirmedTotal();
    view.controls(disabledControls({ open: isOpen() && !state.busy, pending, confirmed }), { confirmed, pending });
  }

  function lockBoard(locked) {
    board.lock(locked);
    updateControls();
  }

  function showTimer(coup) {
    const windowSeconds = state.table?.rules.betting_seconds;
    const total = timerLength(windowSeconds, clock.secondsUntil(coup.betting_closes_at));
    let lastWhole = null;
    state.stopTimer();
    state.stopTimer = countDown(clock, coup.betting_closes_at, (left) => {
      const frame = timerFrame(left, { windowSeconds, total, lastWhole });
      view.timer(left, frame);
      if (frame.tick) beep("tick");
      lastWhole = frame.whole;
      autoSendTick(left);
      if (left <= 0) bettingClosed();
    });
  }

  /**
   * Seed 001: at "no more bets" the bets on the board are sent. Chips still unconfirmed when the window is
   * about to close are sent by themselves (a loud banner counts down first); chips placed after that are
   * refused and handed back, never lost without a word.
   */
  function autoSendTick(left) {
    const sending = autoSend(left, stakes.pendingTotal() > 0 && !state.busy);
    view.autoSend(sending);
    if (sending.send) actions.confirm();
  }

  function placeChipsAtOnce() {
    if (instantBets() && stakes.pendingTotal() > 0 && !state.busy && isOpen()) actions.confirm();
  }

  function hideTimer() {
    state.stopTimer();
    view.hideTimer();
  }

  /** The board locks at the deadline; unconfirmed chips go back to the player. */
  function bettingClosed() {
    hideTimer();
    lockBoard(true);
    if (state.coup?.state === "betting") view.phase("no_more_bets");
    const dropped = board.clearPending();
    if (dropped) {
      const text = gettext("No more bets: %(amount)s in unconfirmed chips was not placed.");
      view.betMessage(interpolate(text, { amount: formatCents(dropped) }, true), "error");
    } else if (view.betMessageKind() === "ok") view.betMessage("");
  }

  /** Draw the coup of a snapshot, whatever its state. */
  function showCoup(coup) {
    const sameCoup = sameRound(state.coup, coup);
    state.coup = coup;
    view.round(coup, state.shoe);
    if (!sameCoup) {
      board.clearPending();
      board.clearSettled();
      board.setConfirmed({});
      board.setTableTotals({});
      myResult.clear();
    }
    board.showWinners(coup?.winner ? winningBets(coup) : []);
    hideTimer();
    const phase = coupPhase(coup, { isOpen: state.table.is_open });
    view.phase(phase);
    if (!coup) coupView.clear();
    else coupView.show(coup);
    lockBoard(phase !== "betting" || guard.blocked());
    if (phase === "betting") showTimer(coup);
  }

  // --- Live events ----------------------------------------------------------------------------

  function askSnapshot() {
    live.send({ type: "snapshot" });
  }

  /** The player's balance and confirmed stakes, from the server (after a snapshot: a reconnect). */
  async function refreshMine() {
    try {
      applyAnswer(await getJSON(urls.bets));
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      view.betMessage(reasonText(error), "error");
    }
  }

  function applyAnswer(answer) {
    view.balance(answer.balance);
    if (isCurrentRound(answer)) board.setConfirmed(answer.bets);
  }

  /** The coup was stopped (no more bets, held, void) or dealing began: it is now in `coupState`. */
  function coupMoved(coupState, phase) {
    state.coup.state = coupState;
    bettingClosed();
    view.phase(phase);
  }

  const handlers = {
    snapshot(data) {
      clock.learn(data.server_now); // nearer than the page's (countdown.js)
      state.table = data.table;
      state.shoe = data.shoe_info;
      view.seats(data.seats);
      view.shoeHolder(data.shoe_holder);
      video?.show(data.table.video_url ?? "");
      $('[data-tool="limits"]').disabled = false;
      board.build(offeredBets(data.table.rules), data.table.payouts);
      const automatic = data.table.dealing_mode === "automatic";
      view.dealer(data.table.dealer ?? (automatic ? gettext("Auto") : "—"));
      showCoup(data.coup);
      if (data.bet_totals) handlers.bet_totals(data.bet_totals); // the table's stakes so far: a page opened mid-window
      coupView.showMine(data.you_show ?? []);
      if ("protection" in data) guard.apply(data.protection);
      roads.show(data.roads, data.shoe);
      refreshMine();
    },
    betting_open(coup) {
      view.betMessage("");
      myResult.clear();
      showCoup(coup);
      if (!coup.no_bet) beep("open");
    },
    no_more_bets(data) {
      if (!isCurrentRound(data)) return askSnapshot();
      coupMoved("no_more_bets", "no_more_bets");
      coupView.showShownBy(data.shown_by);
      beep("close");
    },
    shown_by(data) {
      if (!isCurrentRound(data)) return askSnapshot();
      coupView.showShownBy(data.shown_by);
    },
    you_show(data) {
      if (isCurrentRound(data)) coupView.showMine(data.hands);
    },
    coup_held(data) {
      if (!isCurrentRound(data)) return askSnapshot();
      coupMoved("held", "held");
    },
    coup_resumed: askSnapshot,
    card(data) {
      if (!isCurrentRound(data) || data.position !== coupView.cardCount()) return askSnapshot();
      if (state.coup.state !== "dealing") coupMoved("dealing", "dealing");
      coupView.addCard(data);
      coupView.showNext(data.next);
      beep("card");
    },
    result(coup) {
      if (!isCurrentRound(coup)) return askSnapshot();
      state.coup = coup;
      for (const card of coup.cards) coupView.addCard(card);
      coupView.showResult(coup);
      coupView.afterResult(() => {
        state.resultShownAt = performance.now();
        board.showWinners(winningBets(coup));
        view.phase(coupPhase(coup, { isOpen: state.table.is_open }));
      });
    },
    roads(data) {
      roads.show(data, data.shoe);
    },
    settlement(data, event) {
      // The table's settlement carries the table code; the player's own (their group) does not.
      if (event.table || !roundOfTable(data.round_id, table)) return;
      view.balance(data.balance);
      if (!isCurrentRound(data)) {
        if (myResult.settlement(data) === "win") beep("win");
        return;
      }
      // In step with the result: a card still under the player's finger holds both (coup-view.js).
      coupView.afterResult(() => {
        const round = data.round_id;
        setTimeout(() => {
          if (isCurrentRound({ round_id: round })) board.payOut(data.bets);
        }, payOutDelay(state.resultShownAt, performance.now()));
        if (myResult.settlement(data) === "win") beep("win");
      });
    },
    wallet(data) {
      view.balance(data.balance);
      // Bets made on another of the player's pages (one truth per player): this page's own come in answers.
      if (data.bets && isCurrentRound(data)) board.setConfirmed(data.bets);
    },
    protection(data) {
      guard.apply(data);
    },
    bets_refunded(data) {
      view.balance(data.balance);
      if (roundOfTable(data.round_id, table)) myResult.refunded(data);
    },
    bet_totals(data) {
      if (isCurrentRound(data) && data.currency === currency) board.setTableTotals(data.totals, data.bettors);
    },
    coup_void(data) {
      if (!isCurrentRound(data)) return askSnapshot();
      coupMoved("void", "void");
      board.setConfirmed({});
      coupView.showVoid(data.reason);
    },
    shoe_change: askSnapshot,
    cut_card_out: askSnapshot,
    seats: (data) => view.seats(data.seats),
    shoe_holder: (data) => view.shoeHolder(data),
    table_opened: askSnapshot,
    table_closed() {
      state.table.is_open = false;
      if (!inPlay(state.coup)) view.phase("closed");
    },
    video(data) {
      video?.show(data.url);
    },
    dealer_changed(data) {
      view.dealer(data.dealer ?? "—");
    },
    chat(data) {
      chat.receive(data);
    },
    error(data) {
      if (data.code.startsWith("chat_")) chat.refuse(reasonText(data));
    },
  };

  const live = connectTable(socket, {
    onMessage(message) {
      if (message.type === "bet_accepted" || message.type === "bet_rejected") betRequests.answer(message);
      else handlers[message.type]?.(message.data, message);
    },
    onStatus(status) {
      view.connection(status);
      if (status === "live") betRequests.resend();
    },
  });
  const betRequests = createBetRequests({
    socket: live,
    urls: { bet: urls.bets, undo: urls.undo, remove: urls.remove, rebet: urls.rebet },
  });

  const chat = setupChat(app, { send: live.send, me: user });

  // --- The player's actions -----------------------------------------------------------------

  /** One bet request for the live round (over the socket, else HTTP); the answer (or the reason) is shown. */
  async function sendBets(kind, body, acceptedText) {
    if (state.busy || !isOpen()) return false;
    state.busy = true;
    lockBoard(true);
    try {
      applyAnswer(await betRequests.send(kind, { ...body, round_id: state.coup.round_id }));
      view.betMessage(acceptedText, "ok");
      return true;
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      view.betMessage(reasonText(error), "error");
      beep("error");
      guard.refused(error);
      return false;
    } finally {
      state.busy = false;
      lockBoard(!isOpen());
    }
  }

  const actions = {
    async confirm() {
      const bets = stakes.pendingBets();
      const accepted = interpolate(gettext("Bets accepted: %(bets)s"), { bets: betsText(bets) }, true);
      if (await sendBets("bet", { bets }, accepted)) board.clearPending();
    },
    async undo() {
      if (board.undoChip()) return;
      await sendBets("undo", {}, gettext("Your last confirmed bets are cancelled and refunded"));
    },
    async remove() {
      board.clearPending();
      if (stakes.confirmedTotal()) await sendBets("remove", {}, gettext("All your bets are removed and refunded"));
    },
    rebet: () => sendBets("rebet", { multiplier: 1 }, gettext("Your last bets are placed again")),
    "rebet-double": () => sendBets("rebet", { multiplier: 2 }, gettext("Your last bets are placed again, doubled")),
  };

  for (const button of app.querySelectorAll("[data-action]")) {
    button.addEventListener("click", () => {
      view.betMessage("");
      actions[button.dataset.action]();
    });
  }
  setupChipTray(chips, board);

  setupTools(app, {
    table: () => state.table,
    currency,
    personalLimits,
    historyUrl: urls.history,
    video,
    onInstant(text) {
      view.betMessage(text, "ok");
      placeChipsAtOnce();
    },
  });

  view.balance(view.drawnBalance());
  updateControls();
}

// Run by the page that loads it (templates/table.html); imported without a page (the unit tests), it waits.
if (globalThis.document) init(readParams(document));
