/**
 * A table dealt on demand (templates/rng_table.html, seed 004): the player puts chips down (click adds the
 * selected chip, right-click or a long press takes it off), then Deal places them and deals a coup of their own
 * shoe at once; Rebet and deal repeats their last bets. One request per click (its request_id: a double click,
 * or the request sent again, deals one coup). No socket and no timer: the answer carries the cards, the result
 * and the roads of the player's shoe. The cards come from the shoe of the dealing scene (scene.js) and turn
 * over; with "Squeeze my cards" on (kept in localStorage) they come face down for the player to squeeze
 * (squeeze.js). The result, the win and the balance show once every card is open.
 */

import { ApiError, getJSON, postJSON } from "./api.js";
import { MAIN_BETS, winningBets } from "./bets.js";
import { BetBoard, setupChipTray } from "./board.js";
import { CoupView } from "./coup-view.js";
import { reasonText } from "./errors.js";
import { formatCents, formatMoney, toCents } from "./money.js";
import { RoadsPanel } from "./roads-panel.js";
import { reducedMotion } from "./squeeze.js";

const SQUEEZE_KEY = "punto.rng.squeeze";
const CARD_GAP_MS = 380; // between two cards leaving the shoe

const app = document.getElementById("rng-app");
const $ = (selector) => app.querySelector(selector);
const config = JSON.parse(document.getElementById("rng-board").textContent);
const chips = [...app.querySelectorAll("[data-chip]")];
const dealButtons = [...app.querySelectorAll('[data-action="deal"], [data-action="rebet-deal"]')];
let commitment = app.dataset.shoeCommitment;
let dealing = false;
let cardsTurned = () => {}; // called as each card turns face up, while a deal waits for its cards to open
const coupView = new CoupView(app, {
  squeezeTurnMs: Number(app.dataset.squeezeTurnMs),
  onTurn: () => cardsTurned(),
});
const roads = new RoadsPanel(app);
roads.show(JSON.parse(document.getElementById("rng-roads").textContent), app.querySelector("[data-shoe-number]").textContent);

const squeezeToggle = $("[data-squeeze-toggle]");
const squeezing = () => localStorage.getItem(SQUEEZE_KEY) === "on";
squeezeToggle.setAttribute("aria-pressed", String(squeezing()));
squeezeToggle.addEventListener("click", () => {
  localStorage.setItem(SQUEEZE_KEY, squeezing() ? "off" : "on");
  squeezeToggle.setAttribute("aria-pressed", String(squeezing()));
});

const board = new BetBoard($("[data-board]"), {
  chipValues: chips.map((chip) => toCents(chip.dataset.chip)),
  onChange: () => {
    $("[data-stake-total]").textContent = formatCents(board.stakes.pendingTotal());
  },
});
board.build([...MAIN_BETS, ...config.side_bets], config.payouts);
setupChipTray(chips, board);
board.lock(!commitment);

/** The balance shown, here and in the header. A partner's seamless wallet holds it for a launched player: the
 * page may be drawn before the wallet said it (empty), so it is asked again (data-balance-url). */
function showBalance(amount) {
  if (amount == null || String(amount).trim() === "") return;
  $("[data-balance]").textContent = formatMoney(amount);
  const inHeader = document.querySelector("[data-header-balance]");
  if (inHeader) inHeader.textContent = formatMoney(amount);
}

if (app.dataset.balanceUrl && !$("[data-balance]").textContent.trim()) {
  getJSON(app.dataset.balanceUrl)
    .then((answer) => showBalance(answer.balance))
    .catch((error) => {
      if (!(error instanceof ApiError)) throw error;
    });
}

function say(message) {
  $("[data-bet-message]").textContent = message;
}

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Once the cards at `positions` are all face up (turned by themselves, or squeezed open). */
function opened(positions) {
  return new Promise((resolve) => {
    cardsTurned = () => {
      if (positions.some((position) => coupView.faceDown.isFaceDown(position))) return;
      cardsTurned = () => {};
      resolve();
    };
    cardsTurned();
  });
}

/**
 * Deal the coup's cards from the scene's shoe, one after another (at once if the player asks for reduced motion).
 * Squeezed, they come as the tableau deals them, each round of cards waiting for the player to open it: Player's
 * and Banker's first, their second, then each third card (a hand's next card would turn its last one over).
 */
async function dealCards(cards, squeeze) {
  coupView.clear();
  coupView.showMine(squeeze ? ["player", "banker"] : []);
  const dealt = cards.map((card, position) => ({ ...card, position }));
  const rounds = squeeze ? [dealt.slice(0, 2), dealt.slice(2, 4), ...dealt.slice(4).map((card) => [card])] : [dealt];
  for (const round of rounds) {
    for (const card of round) {
      coupView.addCard(card);
      if (!reducedMotion()) await pause(CARD_GAP_MS);
    }
    await opened(round.map((card) => card.position));
  }
}

/** The cards open: the result, what came back and the balance, the roads. */
function showCoup(answer) {
  coupView.showResult(answer);
  const won = toCents(answer.total_returned);
  $("[data-won]").textContent = won
    ? interpolate(gettext("You get back %(amount)s"), { amount: formatMoney(answer.total_returned) }, true)
    : gettext("No win this time");
  board.showWinners(winningBets(answer));
  $("[data-info='round']").textContent = answer.round_id;
  showBalance(answer.balance);
  $("[data-phase]").textContent = gettext("Place your chips, then Deal");
  roads.show(answer.roads, answer.shoe_number);
  addRound(answer);
}

const WINNER_NAMES = { player: pgettext("hand", "Player"), banker: pgettext("hand", "Banker"), tie: pgettext("result", "Tie") };

/** The round on top of "Your rounds", as the page draws the earlier ones (templates/rng_table.html). */
function addRound(answer) {
  const list = $("[data-rounds]");
  list.querySelector("[data-rounds-none]")?.remove();
  const part = (className, text) => {
    const element = document.createElement("span");
    element.className = className;
    element.textContent = text;
    return element;
  };
  const staked = Object.values(answer.bets).reduce((sum, amount) => sum + toCents(amount), 0);
  const item = document.createElement("li");
  item.append(
    part("rng-round-id", answer.round_id),
    " ",
    part(`rng-round-winner rng-round-winner--${answer.winner}`, WINNER_NAMES[answer.winner]),
    ` ${answer.player_total}–${answer.banker_total} `,
    part("rng-round-net", `${formatCents(staked)} → ${formatMoney(answer.total_returned)}`),
  );
  list.prepend(item);
}

function showShoe(answer) {
  if (answer.shoe_ended) {
    const revealed = $("[data-revealed]");
    revealed.hidden = false;
    $("[data-revealed-commitment]").textContent = answer.shoe_ended.commitment;
    $("[data-revealed-salt]").textContent = answer.shoe_ended.salt;
    $("[data-revealed-order]").textContent = answer.shoe_ended.card_order.join(" ");
  }
  const shoe = answer.shoe;
  commitment = shoe?.commitment ?? "";
  $("[data-commitment]").textContent = commitment || "—";
  $("[data-shoe-number]").textContent = shoe ? String(shoe.number) : "";
  $("[data-info='shoe']").textContent = shoe ? String(shoe.number) : "—";
  $("[data-progress]").textContent = shoe
    ? interpolate(
        ngettext("%(coups)s coup dealt · %(cards)s cards left", "%(coups)s coups dealt · %(cards)s cards left", shoe.coups),
        { coups: shoe.coups, cards: shoe.cards_left },
        true,
      )
    : "";
}

async function deal({ rebet }) {
  if (dealing || !commitment) return;
  const bets = board.stakes.pendingBets();
  if (!rebet && !Object.keys(bets).length) {
    say(gettext("Put your chips on the board first"));
    return;
  }
  dealing = true;
  for (const button of dealButtons) button.disabled = true;
  $('[data-action="clear"]').disabled = true; // the chips are on the coup being dealt
  board.lock(true);
  say("");
  $("[data-phase]").textContent = gettext("Dealing…");
  const body = { commitment, request_id: crypto.randomUUID(), ...(rebet ? { rebet: true } : { bets }) };
  try {
    const answer = await postJSON(app.dataset.dealUrl, body);
    board.clearPending();
    board.setConfirmed(answer.bets);
    $("[data-won]").textContent = "";
    const squeeze = squeezing();
    if (squeeze) $("[data-phase]").textContent = gettext("Squeeze your cards: drag each one, or Enter to turn it");
    await dealCards(answer.cards, squeeze);
    showCoup(answer);
    board.payOut(
      Object.entries(answer.bets).map(([betType, stake]) => ({
        bet_type: betType,
        stake,
        returned: answer.returned[betType],
        outcome: answer.outcomes[betType],
      })),
    );
    showShoe(answer);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    say(reasonText(error));
    $("[data-phase]").textContent = gettext("Place your chips, then Deal");
  } finally {
    dealing = false;
    for (const button of dealButtons) button.disabled = !commitment;
    $('[data-action="clear"]').disabled = false;
    board.lock(!commitment);
  }
}

$('[data-action="deal"]').addEventListener("click", () => deal({ rebet: false }));
$('[data-action="rebet-deal"]').addEventListener("click", () => deal({ rebet: true }));
$('[data-action="clear"]').addEventListener("click", () => board.clearPending());
