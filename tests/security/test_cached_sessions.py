"""Sessions are read from the cache (SESSION_ENGINE cached_db), and a player's user row is kept there beside
them (casino.sign_in.session_users): a signed-in player's request reads neither, and signing out, a password
change, a deactivation or an account made staff take effect at the next request, as with both in the database.
Staff rows are read on every request."""

import time

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from casino.sign_in.session_users import SessionUserBackend
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


def test_a_signed_in_players_request_reads_no_user_row_once_it_is_kept(player_client, player):
    assert player_client.get(BETS).status_code == 200
    with CaptureQueriesContext(connection) as queries:
        response = player_client.get(BETS)
    assert response.status_code == 200 and response.wsgi_request.user == player
    assert response.wsgi_request.user.get_username() == player.get_username()
    assert not [query for query in queries if "auth_user" in query["sql"]]


def test_a_session_signed_in_before_rows_were_kept_stays_signed_in(player):
    """Sessions name the backend that signed them in: one named ModelBackend (before a release kept players' rows)
    is still the player's, not signed out by the release."""
    TableFactory(code="cs1")
    client = Client()
    client.force_login(player, backend="django.contrib.auth.backends.ModelBackend")
    response = client.get(BETS)
    assert response.status_code == 200 and response.wsgi_request.user == player


@pytest.mark.parametrize("role", ["is_staff", "is_superuser"])
def test_a_staff_row_is_read_on_every_request(role):
    staff = UserFactory(**{role: True})
    backend = SessionUserBackend()
    for _ in range(2):
        with CaptureQueriesContext(connection) as queries:
            assert backend.get_user(staff.pk) == staff
        assert [query for query in queries if "auth_user" in query["sql"]]


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


def test_a_deactivated_account_is_signed_out_at_its_next_request(player_client, player):
    assert player_client.get(BETS).status_code == 200
    player.is_active = False
    player.save()
    response = player_client.get(BETS)
    assert response.status_code == 401 and response.json()["error"]["code"] == "not_signed_in"


def test_an_account_made_staff_is_refused_the_bet_endpoints_at_its_next_request(player_client, player):
    """Its session has no verified second factor: a staff account without one is anonymous (staff rules)."""
    assert player_client.get(BETS).status_code == 200
    player.is_staff = True
    player.save()
    response = player_client.get(BETS)
    assert response.status_code == 401 and response.json()["error"]["code"] == "not_signed_in"


def test_a_change_behind_the_orms_back_takes_effect_when_the_kept_row_expires(player_client, player, settings):
    settings.SESSION_USER_CACHE_SECONDS = 1
    assert player_client.get(BETS).status_code == 200
    type(player).objects.filter(pk=player.pk).update(is_active=False)  # no save: the kept row is not told
    assert player_client.get(BETS).status_code == 200
    time.sleep(1.1)
    response = player_client.get(BETS)
    assert response.status_code == 401 and response.json()["error"]["code"] == "not_signed_in"


def test_a_row_read_just_before_a_change_committed_is_not_served_after_it(player, monkeypatch):
    """A request reads the player's row; a password change commits (voiding what is kept) before that request
    keeps the row it read: the old row (the old hash) must not be served, or a stolen session outlives it."""
    from django.contrib.auth.backends import ModelBackend

    read = ModelBackend.get_user

    def changed_meanwhile(self, user_id):
        row = read(self, user_id)
        player.set_password("a-New-Pass-2")
        player.save()
        return row

    monkeypatch.setattr(ModelBackend, "get_user", changed_meanwhile)
    SessionUserBackend().get_user(player.pk)
    monkeypatch.undo()
    assert SessionUserBackend().get_user(player.pk).password == player.password


def test_a_kept_row_of_another_shape_is_read_again(player_client, player):
    """Rows kept by an earlier release (other fields) are never shifted into this one's fields."""
    from django.core.cache import cache

    assert player_client.get(BETS).status_code == 200  # kept
    key = f"punto.session_users.{player.pk}"
    kept = cache.get(key)
    cache.set(key, {**kept, "fields": {"is_superuser": True, **kept["fields"], "extra": 1}}, 30)
    response = player_client.get(BETS)
    assert response.status_code == 200 and not response.wsgi_request.user.is_superuser
