/**
 * The live table page: drawn from the snapshot of the table's WebSocket, kept live by its
 * events, and the player's bets sent to the JSON endpoints of wagering/views.py.
 */

import { ApiError, getJSON } from "./api.js";
import { createBetRequests } from "./bet-requests.js";
import { betLabel, offeredBets, winningBets } from "./bets.js";
import { BetBoard } from "./board.js";
import { setupChat } from "./chat.js";
import { countDown, secondsUntil, syncServerClock } from "./countdown.js";
import { CoupView } from "./coup-view.js";
import { renderHistory } from "./history.js";
import { reasonText } from "./errors.js";
import { connectTable } from "./live.js";
import { formatCents, formatMoney, toCents, withCurrency } from "./money.js";
import { renderLimits, renderYourLimits } from "./panels.js";
import { RoadsPanel } from "./roads-panel.js";
import { burnText, cutCardNotice } from "./shoe.js";
import { beep, setSound, soundIsOn, unlockSound } from "./sounds.js";
import { TableVideo } from "./video.js";

// A dealing error (or the pit boss) holds the coup: bets stand, nothing moves until the pit decides.
const HELD_TEXT = gettext("Held: the pit boss is checking the coup");

const app = document.getElementById("table-app");
const $ = (selector) => app.querySelector(selector);
const tool = (name) => $(`[data-tool="${name}"]`);
const dialog = (name) => $(`[data-dialog="${name}"]`);
const me = app.dataset.user;
const currency = app.dataset.currency; // the player's: the table's limits and totals shown are in it
const personalLimits = JSON.parse(document.getElementById("personal-limits").textContent); // bet type: {min, max}
const roundPrefix = `${app.dataset.table.toUpperCase()}-`;
const urls = {
  bets: app.dataset.betsUrl,
  undo: app.dataset.undoUrl,
  remove: app.dataset.removeUrl,
  rebet: app.dataset.rebetUrl,
  history: app.dataset.historyUrl,
};
const CONNECTION_TEXT = {
  connecting: gettext("Connecting…"),
  live: gettext("Live"),
  reconnecting: gettext("Reconnecting…"),
  gone: gettext("This table does not exist"),
};

syncServerClock(app.dataset.serverNow);

const state = { table: null, shoe: null, coup: null, busy: false, stopTimer: () => {} };
const coupView = new CoupView(app);
const roads = new RoadsPanel(app);
const videoBox = $("[data-video]"); // a dealer table's (docs/ui.md, Live video)
const video = videoBox ? new TableVideo(videoBox) : null;
const board = new BetBoard($("[data-board]"), {
  onChange() {
    updateControls();
    placeChipsAtOnce();
  },
  chipValues: [...app.querySelectorAll("[data-chip]")].map((chip) => toCents(chip.dataset.chip)),
});
// The win moment: the player's chips stay on the board this long after the result, then are paid out.
const RESULT_HOLD_MS = 1200;

const capitalised = (text) => text.charAt(0).toUpperCase() + text.slice(1);
const isCurrentRound = (data) => Boolean(state.coup) && data.round_id === state.coup.round_id;

// --- What the player sees -----------------------------------------------------------------

function setPhase(text, phase) {
  $("[data-phase]").textContent = text;
  app.dataset.phase = phase;
}

/** A partner's seamless wallet holds the balance: settlement and refunds then carry none (null), and the
 * page may be drawn before the wallet said it (empty). */
function setBalance(amount) {
  if (amount == null || String(amount).trim() === "") return;
  $("[data-balance]").textContent = formatMoney(amount);
  const inHeader = document.querySelector("[data-header-balance]");
  if (inHeader) inHeader.textContent = formatMoney(amount);
}

function showBetMessage(text, kind) {
  const message = $("[data-bet-message]");
  message.textContent = text ? capitalised(text) : "";
  message.dataset.kind = kind ?? "";
}

function bettingOpen() {
  const coup = state.coup;
  return Boolean(coup && coup.state === "betting" && !coup.no_bet && secondsUntil(coup.betting_closes_at) > 0);
}

function updateControls() {
  const open = bettingOpen() && !state.busy;
  const pending = board.pendingTotal();
  const confirmed = board.confirmedTotal();
  const disable = (action, disabled) => {
    $(`[data-action="${action}"]`).disabled = disabled;
  };
  disable("confirm", !open || !pending);
  disable("undo", !open || !(pending || confirmed));
  disable("remove", !open || !(pending || confirmed));
  disable("rebet", !open);
  disable("rebet-double", !open);
  $("[data-stake-total]").textContent = pending
    ? interpolate(
        gettext("%(confirmed)s + %(pending)s to confirm"),
        { confirmed: formatCents(confirmed), pending: formatCents(pending) },
        true,
      )
    : formatCents(confirmed);
}

function lockBoard(locked) {
  board.lock(locked);
  updateControls();
}

function showTimer(coup) {
  const timer = $("[data-timer]");
  const total = Math.max(state.table?.rules.betting_seconds ?? 0, secondsUntil(coup.betting_closes_at), 1);
  let lastWhole = null;
  state.stopTimer();
  timer.hidden = false;
  state.stopTimer = countDown(coup.betting_closes_at, (left) => {
    // Never more than the table's window: the clocks' offset and the event's way can add a fraction.
    const whole = Math.min(Math.ceil(left), state.table?.rules.betting_seconds ?? Number.POSITIVE_INFINITY);
    timer.dataset.secondsLeft = left.toFixed(1);
    $("[data-timer-seconds]").textContent = whole;
    $("[data-timer-bar]").style.width = `${(left / total) * 100}%`;
    timer.classList.toggle("timer--ending", left <= 3);
    if (whole !== lastWhole && whole > 0 && whole <= 3) beep("tick");
    if (whole !== lastWhole && whole > 0 && (lastWhole === null || whole === 10 || whole === 5)) announceTime(whole);
    lastWhole = whole;
    autoSendTick(left);
    if (left <= 0) bettingClosed();
  });
}

/**
 * Seed 001: at "no more bets" the bets on the board are sent. Chips still unconfirmed when the window is
 * about to close are sent by themselves (a loud banner counts down first); chips placed after that are
 * refused and handed back, never lost without a word.
 */
const AUTO_SEND_WARN_SECONDS = 5;
const AUTO_SEND_SECONDS = 1.5;
function autoSendTick(left) {
  const banner = $("[data-auto-send]");
  const pending = board.pendingTotal() > 0 && !state.busy;
  banner.hidden = !(pending && left > AUTO_SEND_SECONDS && left <= AUTO_SEND_WARN_SECONDS);
  $("[data-auto-send-seconds]").textContent = Math.max(0, Math.ceil(left - AUTO_SEND_SECONDS));
  if (pending && left > 0 && left <= AUTO_SEND_SECONDS) {
    banner.hidden = true;
    actions.confirm();
  }
}

/** "Instant bets": each chip is placed as it is put down (the player's choice, kept in this browser). */
const INSTANT_KEY = "punto.instantBets";
const instantBets = () => localStorage.getItem(INSTANT_KEY) === "on";
function placeChipsAtOnce() {
  if (instantBets() && board.pendingTotal() > 0 && !state.busy && bettingOpen()) actions.confirm();
}

/** Screen readers hear the time left as betting opens, then at 10 and 5 seconds (the bar and digits are silent). */
function announceTime(seconds) {
  const text = ngettext("%s second left to bet", "%s seconds left to bet", seconds);
  $("[data-timer-status]").textContent = interpolate(text, [seconds]);
}

function hideTimer() {
  state.stopTimer();
  $("[data-timer]").hidden = true;
  $("[data-timer-status]").textContent = "";
}

/** The board locks at the deadline; unconfirmed chips go back to the player. */
function bettingClosed() {
  hideTimer();
  lockBoard(true);
  if (state.coup?.state === "betting") setPhase(gettext("No more bets"), "closed");
  const dropped = board.clearPending();
  if (dropped) {
    const text = gettext("No more bets: %(amount)s in unconfirmed chips was not placed.");
    showBetMessage(interpolate(text, { amount: formatCents(dropped) }, true), "error");
  }
  else if ($("[data-bet-message]").dataset.kind === "ok") showBetMessage("");
}

function showRound(coup) {
  $('[data-info="round"]').textContent = coup?.round_id ?? "—";
  showShoe(state.shoe, coup);
}

/** Who sits at a dealer table's seats (seed 000 §1.1): a known player by display name, a guest by seat. */
function showSeats(seats) {
  const items = (seats ?? []).map(({ seat, patron, guest }) => {
    const item = document.createElement("li");
    item.textContent = guest ? patron : interpolate(gettext("Seat %(seat)s: %(patron)s"), { seat, patron }, true);
    return item;
  });
  $("[data-seated-list]").replaceChildren(...items);
  $("[data-seated]").hidden = items.length === 0;
}

/** The shoe's number and burn card, and the cut card's notice for the coup in play (seed 000). */
function showShoe(shoe, coup) {
  const burn = burnText(shoe);
  $('[data-info="shoe"]').textContent = shoe ? `${shoe.number}${burn ? ` · ${burn}` : ""}` : "—";
  const notice = $("[data-cut-card]");
  notice.textContent = cutCardNotice(shoe, coup);
  notice.hidden = !notice.textContent;
}

/** Draw the coup of a snapshot, whatever its state. */
function showCoup(coup) {
  const sameRound = state.coup && coup && state.coup.round_id === coup.round_id;
  state.coup = coup;
  showRound(coup);
  if (!sameRound) {
    board.clearPending();
    board.clearSettled();
    board.setConfirmed({});
    board.setTableTotals({});
    clearMyResult();
  }
  board.showWinners(coup?.winner ? winningBets(coup) : []);
  hideTimer();
  if (!coup) {
    coupView.clear();
    setPhase(state.table.is_open ? gettext("Waiting for the next coup") : gettext("The table is closed"), "idle");
    lockBoard(true);
    return;
  }
  coupView.show(coup);
  if (coup.state === "betting" && !coup.no_bet) {
    setPhase(gettext("Place your bets"), "betting");
    lockBoard(false);
    showTimer(coup);
    return;
  }
  lockBoard(true);
  if (coup.state === "void") setPhase(gettext("Round void"), "void");
  else if (coup.state === "held") setPhase(HELD_TEXT, "dealing");
  else if (coup.winner) setPhase(state.table.is_open ? gettext("Next coup soon") : gettext("The table is closed"), "result");
  else setPhase(coup.state === "betting" ? gettext("No-bet coup") : gettext("Dealing"), "dealing");
}

/** The player's own outcome of a round, as a banner (`headline`: [words, amount with its currency]); it stays
 * up until the next round opens. */
function showMyResult({ outcome, round, headline, items }) {
  const box = $("[data-my-result]");
  box.dataset.outcome = outcome;
  box.dataset.round = round;
  const title = document.createElement("p");
  title.className = "my-result-headline";
  const [words, amount] = headline;
  const wordsPart = document.createElement("span");
  wordsPart.className = "my-result-words";
  wordsPart.textContent = words;
  const amountPart = document.createElement("span");
  amountPart.className = "my-result-amount";
  amountPart.textContent = amount;
  title.append(wordsPart, " ", amountPart);
  const list = document.createElement("ul");
  list.className = "my-result-bets";
  list.append(...items);
  box.replaceChildren(title, list);
}

function clearMyResult() {
  const box = $("[data-my-result]");
  delete box.dataset.outcome;
  delete box.dataset.round;
  box.replaceChildren();
}

function showMySettlement(data) {
  const net = toCents(data.returned) - toCents(data.staked);
  const inCurrency = (text) => withCurrency(text, data.currency ?? currency);
  const back = interpolate(gettext("%(amount)s back"), { amount: inCurrency(formatMoney(data.returned)) }, true);
  let headline = [gettext("You broke even:"), back];
  if (net > 0) headline = [gettext("You won"), inCurrency(formatCents(net))];
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
  showMyResult({ outcome: net > 0 ? "win" : net < 0 ? "lose" : "even", round: data.round_id, headline, items });
  if (net > 0) beep("win");
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
    showBetMessage(reasonText(error), "error");
  }
}

function applyAnswer(answer) {
  setBalance(answer.balance);
  if (isCurrentRound(answer)) board.setConfirmed(answer.bets);
}

const handlers = {
  snapshot(data) {
    state.table = data.table;
    state.shoe = data.shoe_info;
    showSeats(data.seats);
    video?.show(data.table.video_url ?? "");
    tool("limits").disabled = false;
    board.build(offeredBets(data.table.rules), data.table.payouts);
    const automatic = data.table.dealing_mode === "automatic";
    $('[data-info="dealer"]').textContent = data.table.dealer ?? (automatic ? gettext("Auto") : "—");
    showCoup(data.coup);
    if (data.bet_totals) handlers.bet_totals(data.bet_totals); // the table's stakes so far: a page opened mid-window
    coupView.showMine(data.you_show ?? []);
    roads.show(data.roads, data.shoe);
    refreshMine();
  },
  betting_open(coup) {
    showBetMessage("");
    clearMyResult();
    showCoup(coup);
    if (!coup.no_bet) beep("open");
  },
  no_more_bets(data) {
    if (!isCurrentRound(data)) return askSnapshot();
    state.coup.state = "no_more_bets";
    bettingClosed();
    setPhase(gettext("No more bets"), "closed");
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
    state.coup.state = "held";
    bettingClosed();
    setPhase(HELD_TEXT, "dealing");
  },
  coup_resumed: askSnapshot,
  card(data) {
    if (!isCurrentRound(data) || data.position !== coupView.cardCount()) return askSnapshot();
    if (state.coup.state !== "dealing") {
      bettingClosed();
      state.coup.state = "dealing";
      setPhase(gettext("Dealing"), "dealing");
    }
    coupView.addCard(data);
    coupView.showNext(data.next);
    beep("card");
  },
  result(coup) {
    if (!isCurrentRound(coup)) return askSnapshot();
    state.coup = coup;
    state.resultShownAt = performance.now();
    for (const card of coup.cards) coupView.addCard(card);
    coupView.showResult(coup);
    board.showWinners(winningBets(coup));
    setPhase(state.table.is_open ? gettext("Next coup soon") : gettext("The table is closed"), "result");
  },
  roads(data) {
    roads.show(data, data.shoe);
  },
  settlement(data, event) {
    // The table's settlement carries the table code; the player's own (their group) does not.
    if (event.table || !data.round_id.startsWith(roundPrefix)) return;
    setBalance(data.balance);
    if (isCurrentRound(data)) {
      const round = data.round_id;
      const hold = Math.max(0, (state.resultShownAt ?? 0) + RESULT_HOLD_MS - performance.now());
      setTimeout(() => {
        if (isCurrentRound({ round_id: round })) board.payOut(data.bets);
      }, hold);
    }
    showMySettlement(data);
  },
  wallet(data) {
    setBalance(data.balance);
  },
  bets_refunded(data) {
    setBalance(data.balance);
    if (!data.round_id.startsWith(roundPrefix)) return;
    showMyResult({
      outcome: "even",
      round: data.round_id,
      headline: [
        gettext("Round void:"),
        interpolate(gettext("%(amount)s refunded"), { amount: withCurrency(formatMoney(data.refunded), currency) }, true),
      ],
      items: [],
    });
  },
  bet_totals(data) {
    if (isCurrentRound(data) && data.currency === currency) board.setTableTotals(data.totals, data.bettors);
  },
  coup_void(data) {
    if (!isCurrentRound(data)) return askSnapshot();
    state.coup.state = "void";
    bettingClosed();
    board.setConfirmed({});
    coupView.showVoid(data.reason);
    setPhase(gettext("Round void"), "void");
  },
  shoe_change: askSnapshot,
  cut_card_out: askSnapshot,
  seats: (data) => showSeats(data.seats),
  table_opened: askSnapshot,
  table_closed() {
    state.table.is_open = false;
    if (!state.coup || !["betting", "no_more_bets", "dealing", "held"].includes(state.coup.state)) {
      setPhase(gettext("The table is closed"), "idle");
    }
  },
  video(data) {
    video?.show(data.url);
  },
  dealer_changed(data) {
    $('[data-info="dealer"]').textContent = data.dealer ?? "—";
  },
  chat(data) {
    chat.receive(data);
  },
  error(data) {
    if (data.code.startsWith("chat_")) chat.refuse(reasonText(data));
  },
};

const live = connectTable(app.dataset.socket, {
  onMessage(message) {
    if (message.type === "bet_accepted" || message.type === "bet_rejected") betRequests.answer(message);
    else handlers[message.type]?.(message.data, message);
  },
  onStatus(status) {
    const element = $("[data-connection]");
    element.dataset.state = status;
    element.textContent = CONNECTION_TEXT[status];
    if (status === "live") betRequests.resend();
  },
});
const betRequests = createBetRequests({
  socket: live,
  urls: { bet: urls.bets, undo: urls.undo, remove: urls.remove, rebet: urls.rebet },
});

const chat = setupChat({
  form: $("[data-chat-form]"),
  input: $("#chat-text"),
  log: $("[data-chat-log]"),
  error: $("[data-chat-error]"),
  send: live.send,
  me,
  panel: $("[data-chat]"),
  toggle: tool("chat"),
  close: $("[data-chat-close]"),
  unread: $("[data-chat-unread]"),
});

// --- The player's actions -----------------------------------------------------------------

/** One bet request for the live round (over the socket, else HTTP); the answer (or the reason) is shown. */
async function sendBets(kind, body, acceptedText) {
  if (state.busy || !bettingOpen()) return false;
  state.busy = true;
  lockBoard(true);
  try {
    applyAnswer(await betRequests.send(kind, { ...body, round_id: state.coup.round_id }));
    showBetMessage(acceptedText, "ok");
    return true;
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    showBetMessage(reasonText(error), "error");
    beep("error");
    return false;
  } finally {
    state.busy = false;
    lockBoard(!bettingOpen());
  }
}

const betsText = (bets) =>
  Object.entries(bets)
    .map(([betType, amount]) =>
      interpolate(pgettext("a bet and its stake", "%(bet)s %(amount)s"), { bet: betLabel(betType), amount: formatMoney(amount) }, true),
    )
    .join(pgettext("between the items of a list", ", "));

const actions = {
  async confirm() {
    const bets = board.pendingBets();
    const accepted = interpolate(gettext("Bets accepted: %(bets)s"), { bets: betsText(bets) }, true);
    if (await sendBets("bet", { bets }, accepted)) board.clearPending();
  },
  async undo() {
    if (board.undoChip()) return;
    await sendBets("undo", {}, gettext("Your last confirmed bets are cancelled and refunded"));
  },
  async remove() {
    board.clearPending();
    if (board.confirmedTotal()) await sendBets("remove", {}, gettext("All your bets are removed and refunded"));
  },
  rebet: () => sendBets("rebet", { multiplier: 1 }, gettext("Your last bets are placed again")),
  "rebet-double": () => sendBets("rebet", { multiplier: 2 }, gettext("Your last bets are placed again, doubled")),
};

for (const button of app.querySelectorAll("[data-action]")) {
  button.addEventListener("click", () => {
    showBetMessage("");
    actions[button.dataset.action]();
  });
}

const chips = [...app.querySelectorAll("[data-chip]")];
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

// --- Tools: limits, history, sound, full screen --------------------------------------------

tool("limits").addEventListener("click", () => {
  renderLimits($("[data-limits]"), $("[data-differential]"), state.table, currency);
  renderYourLimits($("[data-your-limits]"), state.table, personalLimits);
  dialog("limits").showModal();
});

tool("history").addEventListener("click", async () => {
  const container = $("[data-history]");
  container.textContent = gettext("Loading…");
  dialog("history").showModal();
  try {
    renderHistory(container, await getJSON(urls.history));
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    container.textContent = reasonText(error);
  }
});

const instantButton = tool("instant");
instantButton.setAttribute("aria-pressed", String(instantBets()));
instantButton.addEventListener("click", () => {
  const on = !instantBets();
  localStorage.setItem(INSTANT_KEY, on ? "on" : "off");
  instantButton.setAttribute("aria-pressed", String(on));
  const text = on
    ? gettext("Instant bets: each chip is placed as you put it down")
    : gettext("Instant bets off: confirm your chips");
  showBetMessage(text, "ok");
  placeChipsAtOnce();
});

const soundButton = tool("sound");
soundButton.setAttribute("aria-pressed", String(soundIsOn()));
soundButton.addEventListener("click", () => {
  const on = !soundIsOn();
  setSound(on);
  soundButton.setAttribute("aria-pressed", String(on));
  video?.setSound(on);
});
app.addEventListener(
  "pointerdown",
  () => {
    unlockSound();
    video?.setSound(soundIsOn()); // the first gesture lets the video play aloud, if the player's sound is on
  },
  { once: true },
);

const fullscreenButton = tool("fullscreen");
fullscreenButton.hidden = !document.fullscreenEnabled;
fullscreenButton.addEventListener("click", () => {
  if (document.fullscreenElement) document.exitFullscreen();
  else document.documentElement.requestFullscreen();
});
document.addEventListener("fullscreenchange", () => {
  fullscreenButton.setAttribute("aria-pressed", String(Boolean(document.fullscreenElement)));
});

setBalance($("[data-balance]").textContent);
updateControls();
