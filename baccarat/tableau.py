"""The tableau of drawing rules (seed 000 §8, seed 001 "Baccarat Drawing Rules").

This is the one place the drawing rules are written; the coup, the dealer console
and the odds analyzer all ask these two functions.
"""

NATURAL_TOTALS = frozenset({8, 9})

# Banker's two-card total -> the player's third-card values on which the banker draws.
# Totals 0-2 always draw, 7 always stands (8-9 are naturals and never reach here).
_BANKER_DRAWS_ON_PLAYER_THIRD = {
    0: frozenset(range(10)),
    1: frozenset(range(10)),
    2: frozenset(range(10)),
    3: frozenset({0, 1, 2, 3, 4, 5, 6, 7, 9}),
    4: frozenset({2, 3, 4, 5, 6, 7}),
    5: frozenset({4, 5, 6, 7}),
    6: frozenset({6, 7}),
    7: frozenset(),
}


def is_natural(two_card_total: int) -> bool:
    return two_card_total in NATURAL_TOTALS


def player_draws(player_total: int) -> bool:
    """Whether the player draws a third card (neither hand has a natural): on 0-5."""
    return player_total <= 5


def banker_draws(banker_total: int, player_third_value: int | None) -> bool:
    """Whether the banker draws a third card (neither hand has a natural).

    ``player_third_value`` is the baccarat value of the player's third card, or
    ``None`` when the player stood: then the banker draws on 0-5 and stands on 6-7.
    """
    if player_third_value is None:
        return banker_total <= 5
    return player_third_value in _BANKER_DRAWS_ON_PLAYER_THIRD[banker_total]
