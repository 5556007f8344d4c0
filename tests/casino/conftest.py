"""Fixtures shared by casino's tests: the dealer console's (the steps, the seats, the status poll) and the players'
sockets' (a signed-in player's session cookie)."""

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from tests.casino.test_console import live_coup, step
from tests.factories import SHUFFLED_AND_CUT


@pytest.fixture
def betting(dealer, dealer_table):
    """A shoe in play and a coup taking bets."""
    step(dealer, dealer_table, "shoe_start", **SHUFFLED_AND_CUT, shuffle_method="table", burn_card="5H")
    step(dealer, dealer_table, "coup_open")
    return live_coup(dealer_table)


def session_cookie(username: str) -> bytes:
    """A new player's session, as the cookie header a socket of theirs sends."""
    client = Client()
    client.force_login(get_user_model().objects.create_user(username=username))
    return f"sessionid={client.cookies['sessionid'].value}".encode()


@pytest.fixture
def alice(db) -> bytes:
    return session_cookie("alice")


@pytest.fixture
def bob(db) -> bytes:
    return session_cookie("bob")
