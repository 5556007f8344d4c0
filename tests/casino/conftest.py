"""The dealer console's fixtures, shared by its tests (the steps, the seats, the status poll)."""

import pytest

from tests.casino.test_console import live_coup, step
from tests.factories import SHUFFLED_AND_CUT


@pytest.fixture
def betting(dealer, dealer_table):
    """A shoe in play and a coup taking bets."""
    step(dealer, dealer_table, "shoe_start", **SHUFFLED_AND_CUT, shuffle_method="table", burn_card="5H")
    step(dealer, dealer_table, "coup_open")
    return live_coup(dealer_table)
