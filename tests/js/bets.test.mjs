import "./setup.mjs";

import assert from "node:assert/strict";
import { test } from "node:test";

import { betLabel, betsText, offeredBets, winningBets } from "../../static/js/bets.js";

/** A resolved coup as the table's socket sends it; `cards`: [hand, code] in the order dealt. */
const coup = ({ cards, ...fields }) => ({
  natural: false,
  player_pair: false,
  banker_pair: false,
  ...fields,
  cards: cards.map(([hand, card]) => ({ hand, card })),
});

test("a natural win wins its hand's bonus; four cards are small", () => {
  const natural = coup({
    winner: "player",
    natural: true,
    player_total: 9,
    banker_total: 5,
    cards: [["player", "4S"], ["banker", "2H"], ["player", "5D"], ["banker", "3C"]],
  });
  assert.deepEqual(winningBets(natural), ["player", "player_bonus", "small"]);
});

test("a win by 4 or more wins the bonus, by 3 it does not; five or six cards are big", () => {
  const byFour = coup({
    winner: "player",
    player_total: 7,
    banker_total: 3,
    cards: [["player", "2S"], ["banker", "KH"], ["player", "3D"], ["banker", "3C"], ["player", "2H"]],
  });
  assert.deepEqual(winningBets(byFour), ["player", "player_bonus", "big"]);
  const byThree = coup({
    winner: "banker",
    player_total: 4,
    banker_total: 7,
    cards: [["player", "2S"], ["banker", "4H"], ["player", "2D"], ["banker", "3C"], ["player", "KH"]],
  });
  assert.deepEqual(winningBets(byThree), ["banker", "big"]);
});

test("pairs: each hand's, either pair, and a perfect pair only for the same card twice", () => {
  const perfect = coup({
    winner: "banker",
    banker_pair: true,
    player_total: 6,
    banker_total: 7,
    cards: [["player", "2S"], ["banker", "QH"], ["player", "4D"], ["banker", "QH"], ["player", "KC"], ["banker", "7S"]],
  });
  assert.deepEqual(winningBets(perfect), ["banker", "banker_pair", "either_pair", "perfect_pair", "big"]);
  const mixed = coup({
    winner: "player",
    player_pair: true,
    player_total: 6,
    banker_total: 5,
    cards: [["player", "8S"], ["banker", "2H"], ["player", "8H"], ["banker", "3C"], ["player", "KH"], ["banker", "KD"]],
  });
  assert.deepEqual(winningBets(mixed), ["player", "player_pair", "either_pair", "big"]);
});

test("a tie wins neither hand's bonus, even a natural one", () => {
  const tie = coup({
    winner: "tie",
    natural: true,
    player_total: 8,
    banker_total: 8,
    cards: [["player", "4S"], ["banker", "5H"], ["player", "4D"], ["banker", "3C"]],
  });
  assert.deepEqual(winningBets(tie), ["tie", "small"]);
});

test("the board offers the main bets, then the table's side bets", () => {
  assert.deepEqual(offeredBets({ side_bets: [] }), ["player", "tie", "banker"]);
  assert.deepEqual(offeredBets({ side_bets: ["player_pair", "big"] }), ["player", "tie", "banker", "player_pair", "big"]);
});

test("bets by the names players see", () => {
  assert.equal(betLabel("either_pair"), "Either Pair");
  assert.equal(betLabel("lucky_six"), "lucky six"); // a bet type the page has no name for yet
  assert.equal(betsText({ player: "10", tie: "1.5" }), "Player 10.00, Tie 1.50");
  assert.equal(betsText({}), "");
});
