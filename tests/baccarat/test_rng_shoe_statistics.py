"""Private four-deck shoes dealt through to the cut card (issue 30, seed 004): over 10^6 coups, Player, Banker and
Tie come out as often as ``baccarat.odds`` computes exactly for four decks, within 3σ.

The million coups are dealt by numpy, many shoes at once, with the drawing rules read from ``baccarat.tableau``
and the cut card rule of ``baccarat.shoe.ShoeDealer``; that dealer is first held to the project's own, coup for
coup, on shoes of ``new_shoe_order`` (the project's dealing: with the CSPRNG's shuffle about 100 µs a coup, so
10^6 took minutes; a slow test deals them so, from a seeded shuffle).

Each million is drawn from a fixed seed. A fair shoe misses a 3σ bound 0.27% of the time on each of the three
outcomes, so fresh draws failed about one CI run in a hundred (two such tests, two passes) with nothing wrong.
Seeded, each test deals the same million every run: a change to the tableau or the cut card rule that moves the
odds by about 3σ (0.15 percentage points) or more fails both, a change to the shuffle the slow one (the fast one
shuffles with numpy). Which source of randomness the shuffle draws from is not what they test: ``new_shoe_order``
shuffles the same way whatever ``rng`` it is given (play's is the CSPRNG)."""

from __future__ import annotations

import math
from random import Random

import numpy as np
import pytest

from baccarat.coup import BANKER, PLAYER, TIE
from baccarat.odds import ShoeComposition, analyze
from baccarat.rules import CUT_ONE_MORE_COUP
from baccarat.shoe import ShoeDealer, burn_count, cut_card_position, new_shoe_order
from baccarat.tableau import banker_draws, player_draws

DECKS = 4
CARDS = DECKS * 52
CUT = cut_card_position(deck_count=DECKS, cards_behind=52)
WINNERS = (PLAYER, BANKER, TIE)
SEED = 2026
# The tableau as tables: does the Player draw on a two-card total; does the Banker draw on its total, given the
# Player's third card's value (10: the Player stood).
PLAYER_DRAWS = np.array([player_draws(total) for total in range(10)])
BANKER_DRAWS = np.array(
    [[banker_draws(total, None if third == 10 else third) for third in range(11)] for total in range(8)]
    + [[False] * 11] * 2  # 8 and 9 are naturals: no one draws
)
VALUES = np.array([card.value for card in new_shoe_order(1, rng=Random(0))] * DECKS, dtype=np.int8)


def deal_shoes(orders: np.ndarray) -> np.ndarray:
    """Deal each shoe (a row of card values) from its burn to its last coup as ``ShoeDealer`` does (the cut card
    out at a coup's first card: that coup is the last; later: one more). Each coup's winner: 0 Player, 1 Banker,
    2 Tie, for every shoe and coup (-1 once a shoe has ended)."""
    shoes = len(orders)
    rows = np.arange(shoes)
    first = orders[:, 0]
    position = 1 + np.where(first == 0, 10, first).astype(np.int64)
    last_coup = np.full(shoes, np.iinfo(np.int64).max)
    results = []
    coup = 0
    while True:
        coup += 1
        dealing = coup <= last_coup
        if not dealing.any():
            return np.stack(results, axis=1)
        at = position

        def card(offset, at=at):
            return orders[rows, np.minimum(at + offset, CARDS - 1)]

        player_two = (card(0) + card(2)) % 10
        banker_two = (card(1) + card(3)) % 10
        natural = (player_two >= 8) | (banker_two >= 8)
        player_third = ~natural & PLAYER_DRAWS[player_two]
        third_value = np.where(player_third, card(4), 10)
        banker_third = ~natural & BANKER_DRAWS[banker_two, third_value]
        player_total = (player_two + np.where(player_third, third_value, 0)) % 10
        banker_total = (banker_two + np.where(banker_third, card(4 + player_third), 0)) % 10
        winner = np.where(player_total > banker_total, 0, np.where(banker_total > player_total, 1, 2))
        taken = 4 + player_third + banker_third
        cut_out = dealing & (last_coup == np.iinfo(np.int64).max) & (position <= CUT) & (position + taken > CUT)
        last_coup = np.where(cut_out, np.where(position == CUT, coup, coup + 1), last_coup)
        results.append(np.where(dealing, winner, -1))
        position = np.where(dealing, position + taken, position)


def test_the_vectorised_dealer_deals_as_the_projects_own():
    rng = Random(30)
    orders = [new_shoe_order(DECKS, rng=rng) for _ in range(40)]
    dealt = deal_shoes(np.array([[card.value for card in order] for order in orders], dtype=np.int8))
    for order, row in zip(orders, dealt, strict=True):
        dealer = ShoeDealer(order, cut_card_position=CUT, cut_card_rule=CUT_ONE_MORE_COUP)
        assert dealer.burn().burned == tuple(order[1 : 1 + burn_count(order[0])])
        winners = []
        while not dealer.finished:
            winners.append(WINNERS.index(dealer.deal_coup().winner))
        assert row[row >= 0].tolist() == winners


def test_a_million_coups_of_private_shoes_match_the_exact_odds():
    exact = analyze(ShoeComposition.full(DECKS))
    generator = np.random.default_rng(SEED)
    counts = np.zeros(3, dtype=np.int64)
    while counts.sum() < 1_000_000:
        winners = deal_shoes(generator.permuted(np.tile(VALUES, (4_000, 1)), axis=1))
        counts += np.bincount(winners[winners >= 0], minlength=3)
    coups = int(counts.sum())
    for index, winner in enumerate(WINNERS):
        p = exact.outcomes[winner] / exact.total
        sigma = math.sqrt(p * (1 - p) / coups)
        assert abs(counts[index] / coups - p) <= 3 * sigma, (winner, counts[index] / coups, p, sigma)


@pytest.mark.slow
def test_a_million_coups_dealt_by_the_projects_own_dealer_match_the_exact_odds():
    """The same, through ``new_shoe_order`` and ``ShoeDealer`` themselves: some 20 seconds."""
    exact = analyze(ShoeComposition.full(DECKS))
    rng = Random(SEED)
    counts = dict.fromkeys(WINNERS, 0)
    while sum(counts.values()) < 1_000_000:
        dealer = ShoeDealer(new_shoe_order(DECKS, rng=rng), cut_card_position=CUT, cut_card_rule=CUT_ONE_MORE_COUP)
        dealer.burn()
        while not dealer.finished:
            counts[dealer.deal_coup().winner] += 1
    coups = sum(counts.values())
    for winner in WINNERS:
        p = exact.outcomes[winner] / exact.total
        assert abs(counts[winner] / coups - p) <= 3 * math.sqrt(p * (1 - p) / coups), winner
