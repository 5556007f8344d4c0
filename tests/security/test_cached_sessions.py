"""Sessions are read from the cache (SESSION_ENGINE cached_db), the user from the database on every request:
a signed-in request reads no session row, and signing out, a password change or an account made staff take
effect at the next request, as with sessions in the database."""

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from tests.factories import TableFactory, UserFactory

pytestmark = pytest.mark.django_db
BETS = "/tables/cs1/bets/"


@pytest.fixture
def player():
    return UserFactory()


@pytest.fixture
def player_client(player):
    TableFactory(code="cs1")
    client = Client()
    client.force_login(player)
    return client


def test_a_signed_in_request_reads_no_session_row(player_client):
    with CaptureQueriesContext(connection) as queries:
        assert player_client.get(BETS).status_code == 200
    assert not [query for query in queries if "django_session" in query["sql"]]


def test_signing_out_ends_the_session_at_once_its_cookie_replayed_is_anonymous(player_client):
    cookie = player_client.cookies["sessionid"].value
    player_client.logout()
    replayed = Client()
    replayed.cookies["sessionid"] = cookie
    response = replayed.get(BETS)
    assert response.status_code == 401 and response.json()["error"]["code"] == "not_signed_in"


def test_a_password_changed_elsewhere_signs_the_session_out_at_its_next_request(player_client, player):
    assert player_client.get(BETS).status_code == 200
    player.set_password("another secret 123")
    player.save()
    assert player_client.get(BETS).status_code == 401


def test_an_account_made_staff_is_refused_the_bet_endpoints_at_its_next_request(player_client, player):
    """Its session has no verified second factor: a staff account without one is anonymous (staff rules)."""
    assert player_client.get(BETS).status_code == 200
    type(player).objects.filter(pk=player.pk).update(is_staff=True)
    response = player_client.get(BETS)
    assert response.status_code == 401 and response.json()["error"]["code"] == "not_signed_in"
