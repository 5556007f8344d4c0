"""The drawing tableau, cell by cell, against seed 001's "Baccarat Drawing Rules" grid."""

import pytest

from baccarat.tableau import banker_draws, is_natural, player_draws

# Seed 001, copied as printed: banker score (rows 7..0) x player's third card 0..9, H = hit, S = stand.
SEED_GRID = """
7 S S S S S S S S S S
6 S S S S S S H H S S
5 S S S S H H H H S S
4 S S H H H H H H S S
3 H H H H H H H H S H
2 H H H H H H H H H H
1 H H H H H H H H H H
0 H H H H H H H H H H
"""


def seed_cells():
    for line in SEED_GRID.strip().splitlines():
        banker, *marks = line.split()
        for third, mark in enumerate(marks):
            yield int(banker), third, mark == "H"


@pytest.mark.parametrize(("banker_total", "player_third", "draws"), list(seed_cells()))
def test_banker_after_player_third_card(banker_total, player_third, draws):
    assert banker_draws(banker_total, player_third) is draws


@pytest.mark.parametrize("banker_total", range(8))
def test_banker_when_player_stands_draws_on_0_to_5(banker_total):
    # Seed 000: "(or no third card)" draws on 3, 4, 5; 0-2 always draw; 6 and 7 stand.
    assert banker_draws(banker_total, None) is (banker_total <= 5)


@pytest.mark.parametrize("player_total", range(8))
def test_player_draws_on_0_to_5_and_stands_on_6_7(player_total):
    assert player_draws(player_total) is (player_total <= 5)


@pytest.mark.parametrize("total", range(10))
def test_naturals_are_8_and_9(total):
    assert is_natural(total) is (total >= 8)


def test_seed_000_text_agrees_with_the_grid():
    # Seed 000 §8: banker 3 stands only on an 8; 4 draws on 2-7; 5 on 4-7; 6 on 6-7.
    draws_on = {3: set(range(10)) - {8}, 4: set(range(2, 8)), 5: set(range(4, 8)), 6: {6, 7}, 7: set()}
    for banker_total, values in draws_on.items():
        assert {v for v in range(10) if banker_draws(banker_total, v)} == values
