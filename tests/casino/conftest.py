"""The dealer console's fixtures, shared by its tests (the steps, the seats, the status poll)."""

import pytest

from tables.roles import DEALER
from tables.services import dealer_login
from tests.casino.test_console import live_coup, staff_client, step
from tests.factories import SHUFFLED_AND_CUT


@pytest.fixture
def dealer(dealer_table, pit_boss):
    """Carla, logged in as the dealer at the dealer table."""
    client = staff_client("carla", DEALER)
    dealer_login(table=dealer_table, dealer=client.user, actor=pit_boss)
    return client


@pytest.fixture
def betting(dealer, dealer_table):
    """A shoe in play and a coup taking bets."""
    step(dealer, dealer_table, "shoe_start", **SHUFFLED_AND_CUT, shuffle_method="table", burn_card="5H")
    step(dealer, dealer_table, "coup_open")
    return live_coup(dealer_table)
