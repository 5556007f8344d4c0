/**
 * The lobby: each open table's card follows its table on the lobby's one WebSocket (every table's
 * events, each naming its table) — the betting timer, the coup's cards as they are dealt (its live preview),
 * the result, the dealer, the last results and a mini Big Road. A closed table's card is not followed: the
 * server drew it closed.
 */

import { handTotal, miniCardElement } from "./cards.js";
import { countDown, serverClock } from "./countdown.js";
import { connectTable } from "./live.js";
import { WINNER_NAMES, totalsWinnerFirst } from "./results.js";
import { BEAD_LETTERS, renderBigRoad } from "./roads.js";
import { cutCardNotice } from "./shoe.js";
import { inPlay } from "./table-state.js";

const RESULTS_SHOWN = 12;
const SNAPSHOT_RETRY_MS = 1100; // the lobby's socket serves one snapshot a second past its burst
const ROAD_CELL = 12;
const PHONE_ROAD_CELL = 10; // lobby.css's compact cards, below 40rem
const PHONE = "(max-width: 40rem)";
const STILL_EVERY_MS = 5000; // the demo encoder writes a still every 3 s (casino/management/demo_video.py)
const RESULT_NAMES = { B: pgettext("result", "Banker"), P: pgettext("result", "Player"), T: pgettext("result", "Tie") };

/** The page's parameters (templates/lobby.html): the list of tables, absent when there is none, and its data. */
export function readParams(document) {
  const list = document.querySelector(".lobby-tables");
  return { list, serverNow: list?.dataset.serverNow, socket: list?.dataset.socket };
}

export function init({ list, serverNow, socket }) {
  if (!list) return;
  const clock = serverClock(serverNow);
  const cards = new Map();
  const live = connectTable(socket, {
    onMessage: (message) => cards.get(message.table)?.handle(message),
    onStatus: (state) => {
      if (state === "reconnecting") for (const card of cards.values()) card.reconnecting();
    },
  });
  for (const card of list.querySelectorAll("[data-lobby-table][data-follow]")) {
    cards.set(card.dataset.lobbyTable, followTable(card, live, clock));
  }
}

/** The card's handling of its table's messages, and what it shows while the socket reconnects. */
function followTable(card, live, clock) {
  const status = card.querySelector("[data-status]");
  const timer = card.querySelector("[data-timer]");
  const bar = card.querySelector("[data-timer-bar]");
  const dealer = card.querySelector("[data-dealer]");
  const bettors = card.querySelector("[data-bettors]");
  let stopTimer = () => {};
  let bettingSeconds = 1;
  const snapshotAgain = () => live.send({ type: "snapshot", table: card.dataset.lobbyTable });

  const setStatus = (text, phase) => {
    status.textContent = text;
    card.dataset.phase = phase;
  };

  function showCoup(coup, isOpen) {
    stopTimer();
    timer.hidden = true;
    if (!inPlay(coup)) {
      if (!isOpen) setStatus(pgettext("table", "Closed"), "closed");
      else if (coup?.winner) showResult(coup);
      else setStatus(gettext("Next coup soon"), "idle");
      return;
    }
    if (coup.state !== "betting" || coup.no_bet) {
      setStatus(coup.state === "held" ? gettext("Held by the pit") : gettext("Dealing"), "dealing");
      return;
    }
    timer.hidden = false;
    stopTimer = countDown(clock, coup.betting_closes_at, (left) => {
      bar.style.width = `${Math.min(100, (left / bettingSeconds) * 100)}%`;
      const seconds = Math.ceil(left);
      if (left > 0) setStatus(interpolate(gettext("Place your bets · %(seconds)s s"), { seconds }, true), "betting");
      else setStatus(gettext("No more bets"), "dealing");
    });
  }

  function showResult(coup) {
    const [high, low] = totalsWinnerFirst(coup);
    const text = interpolate(gettext("%(winner)s %(high)s–%(low)s"), { winner: WINNER_NAMES[coup.winner], high, low }, true);
    setStatus(text, `result-${coup.winner}`);
  }

  function showRoads(roads) {
    const box = card.querySelector("[data-big-road]");
    const size = matchMedia(PHONE).matches ? PHONE_ROAD_CELL : ROAD_CELL;
    const columns = Math.max(12, Math.floor(box.clientWidth / size));
    box.replaceChildren(renderBigRoad(roads.big_road, { columns, size }));
    const results = roads.bead_plate.slice(-RESULTS_SHOWN).reverse();
    card.querySelector("[data-results]").replaceChildren(
      ...results.map((bead) => {
        const item = document.createElement("li");
        item.className = `bead bead--${bead.result}`;
        item.textContent = BEAD_LETTERS[bead.result] ?? bead.result;
        item.setAttribute("aria-label", RESULT_NAMES[bead.result]);
        return item;
      }),
    );
  }

  // The live preview: each hand's cards as dealt, and its total.
  const hands = { player: [], banker: [] };
  const showHands = () => {
    for (const [hand, codes] of Object.entries(hands)) {
      card.querySelector(`[data-hand-cards="${hand}"]`).replaceChildren(...codes.map(miniCardElement));
      card.querySelector(`[data-hand-total="${hand}"]`).textContent = codes.length ? handTotal(codes) : "";
    }
    card.querySelector("[data-scene]").dataset.dealt = hands.player.length + hands.banker.length;
  };
  const dealt = (cards) => {
    hands.player = cards.filter((each) => each.hand === "player").map((each) => each.card);
    hands.banker = cards.filter((each) => each.hand === "banker").map((each) => each.card);
    showHands();
  };
  const cardDealt = (data) => {
    hands[data.hand].push(data.card);
    showHands();
  };

  let shoe = null;
  const cutCard = card.querySelector("[data-cut-card]");
  const showCutCard = (coup) => {
    if (!cutCard) return;
    cutCard.textContent = cutCardNotice(shoe, coup);
    cutCard.hidden = !cutCard.textContent;
  };

  const showDealer = (name) => {
    if (dealer) dealer.textContent = name ? pgettext("before a name", ": ") + name : "";
  };

  const handlers = {
    snapshot(data) {
      bettingSeconds = data.table.rules.betting_seconds;
      shoe = data.shoe_info;
      showDealer(data.table.dealer);
      showCoup(data.coup, data.table.is_open);
      showCutCard(data.coup);
      dealt(data.coup?.cards ?? []);
      showRoads(data.roads);
    },
    betting_open(coup) {
      bettors.hidden = true; // the count drawn by the server was the previous coup's
      showCoup(coup, true);
      showCutCard(coup);
      dealt([]);
    },
    cut_card_out: snapshotAgain,
    dealer_changed: (data) => showDealer(data.dealer),
    no_more_bets: () => showCoup({ state: "no_more_bets" }, true),
    card(data) {
      setStatus(gettext("Dealing"), "dealing");
      if (data.position === hands.player.length + hands.banker.length) cardDealt(data);
      else snapshotAgain(); // a card missed (a reconnect): the snapshot has them all
    },
    coup_held: () => showCoup({ state: "held" }, true),
    coup_resumed: snapshotAgain,
    result(coup) {
      showResult(coup);
      dealt(coup.cards);
    },
    roads: showRoads,
    shoe_change: snapshotAgain,
    table_opened: snapshotAgain,
    table_closed: () => {
      stopTimer();
      timer.hidden = true;
      setStatus(pgettext("table", "Closed"), "closed");
    },
    error: (data) => {
      if (data.code === "snapshot_too_fast") setTimeout(snapshotAgain, SNAPSHOT_RETRY_MS);
    },
  };

  return {
    handle: (message) => handlers[message.type]?.(message.data),
    reconnecting: () => {
      stopTimer();
      timer.hidden = true;
      setStatus(gettext("Reconnecting…"), "idle");
    },
  };
}

/** The tables ticked to play together (the multi-table view): at most four, the others greyed out meanwhile. */
export function setupMultiPick(root, maximum = 4) {
  const picks = [...root.querySelectorAll("[data-multi-pick]")];
  const limit = () => {
    const full = picks.filter((pick) => pick.checked).length >= maximum;
    for (const pick of picks) pick.disabled = full && !pick.checked;
  };
  for (const pick of picks) pick.addEventListener("change", limit);
  limit();
}

/** The dealer tables' stills (a video's frame a few seconds old) taken again every few seconds; one that fails (no
 * stream at the moment) is hidden, the card's cards and road left, until one loads. */
export function refreshStills(root, every = STILL_EVERY_MS) {
  const stills = [...root.querySelectorAll("[data-still]")];
  for (const still of stills) {
    still.addEventListener("error", () => (still.hidden = true));
    still.addEventListener("load", () => (still.hidden = false));
    if (still.complete && still.naturalWidth === 0) still.hidden = true; // failed before this script ran
  }
  if (!stills.length) return;
  setInterval(() => {
    if (document.hidden) return;
    for (const still of stills) still.src = `${still.dataset.still}?at=${Date.now()}`;
  }, every);
}

// Run by the page that loads it (templates/lobby.html); imported without a page (the unit tests), it waits.
if (globalThis.document) {
  init(readParams(document));
  setupMultiPick(document);
  refreshStills(document);
}
