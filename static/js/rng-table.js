/**
 * A table dealt on demand (templates/rng_table.html, seed 004): the player puts chips down (click adds the
 * selected chip, right-click or a long press takes it off), then Deal places them and deals a coup of their own
 * shoe at once; Rebet and deal repeats their last bets. One request per click (its request_id: a double click,
 * or the request sent again, deals one coup). No socket and no timer: the answer carries the cards and result.
 */

import { ApiError, getJSON, postJSON } from "./api.js";
import { MAIN_BETS, winningBets } from "./bets.js";
import { BetBoard, setupChipTray } from "./board.js";
import { cardElement, handTotal } from "./cards.js";
import { reasonText } from "./errors.js";
import { resultAnnouncement } from "./results.js";
import { formatCents, formatMoney, toCents } from "./money.js";

const app = document.getElementById("rng-app");
const $ = (selector) => app.querySelector(selector);
const config = JSON.parse(document.getElementById("rng-board").textContent);
const chips = [...app.querySelectorAll("[data-chip]")];
const dealButtons = [...app.querySelectorAll('[data-action="deal"], [data-action="rebet-deal"]')];
let commitment = app.dataset.shoeCommitment;
let dealing = false;

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

function showCoup(answer) {
  for (const hand of ["player", "banker"]) {
    const codes = answer.cards.filter((card) => card.hand === hand).map((card) => card.card);
    $(`[data-cards="${hand}"]`).replaceChildren(...codes.map((code, index) => cardElement(code, { third: index === 2 })));
    $(`[data-total="${hand}"]`).textContent = String(handTotal(codes));
  }
  const coup = { ...answer, cards: answer.cards };
  $("[data-result]").textContent = resultAnnouncement(coup);
  $("[data-result]").dataset.winner = answer.winner;
  const won = toCents(answer.total_returned);
  $("[data-won]").textContent = won
    ? interpolate(gettext("You get back %(amount)s"), { amount: formatMoney(answer.total_returned) }, true)
    : gettext("No win this time");
  board.showWinners(winningBets(coup));
  $("[data-info='round']").textContent = answer.round_id;
  showBalance(answer.balance);
  $("[data-phase]").textContent = gettext("Place your chips, then Deal");
  addRound(answer);
}

function addRound(answer) {
  const list = $("[data-rounds]");
  list.querySelector("[data-rounds-none]")?.remove();
  const item = document.createElement("li");
  const staked = Object.values(answer.bets).reduce((sum, amount) => sum + toCents(amount), 0);
  item.textContent = `${answer.round_id} ${resultAnnouncement(answer)} ${formatCents(staked)} → ${formatMoney(answer.total_returned)}`;
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
  board.lock(true);
  say("");
  $("[data-phase]").textContent = gettext("Dealing…");
  const body = { commitment, request_id: crypto.randomUUID(), ...(rebet ? { rebet: true } : { bets }) };
  try {
    const answer = await postJSON(app.dataset.dealUrl, body);
    board.clearPending();
    board.setConfirmed(answer.bets);
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
    board.lock(!commitment);
  }
}

$('[data-action="deal"]').addEventListener("click", () => deal({ rebet: false }));
$('[data-action="rebet-deal"]').addEventListener("click", () => deal({ rebet: true }));
$('[data-action="clear"]').addEventListener("click", () => board.clearPending());
