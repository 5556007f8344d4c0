"""The player pages: sign in and out, the lobby, the table page."""

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

pytestmark = pytest.mark.django_db


def test_the_lobby_lists_every_table_with_its_main_limits(client, table):
    page = client.get("/").content.decode()
    assert 'data-lobby-table="pb1"' in page and "Punto Banco 1" in page
    assert 'href="/tables/pb1/"' in page and 'data-lobby-table="pb1" data-follow>' in page
    assert "<dt>Player</dt><dd>1–1,000 EUR</dd>" in page and "<dt>Tie</dt><dd>1–100 EUR</dd>" in page
    assert 'href="/accounts/login/"' in page


def test_an_empty_lobby_says_so(client, db):
    assert "No table is open right now" in client.get("/").content.decode()


def test_sign_in_then_sign_out(client, player):
    player.set_password("punto-demo")
    player.save()
    assert client.get("/accounts/login/").status_code == 200
    response = client.post("/accounts/login/", {"username": "alice", "password": "punto-demo"})
    assert response.status_code == 302 and response["Location"] == "/"
    page = client.get("/").content.decode()
    assert "alice" in page and 'action="/accounts/logout/"' in page
    assert client.post("/accounts/logout/").status_code == 302
    assert "_auth_user_id" not in client.session


def test_a_wrong_password_is_refused_with_a_message(client, player):
    response = client.post("/accounts/login/", {"username": "alice", "password": "wrong"})
    assert response.status_code == 200
    assert "Please enter a correct username and password" in response.content.decode()
    assert "_auth_user_id" not in client.session


def test_the_staff_login_stays_in_the_admin(client, db):
    assert client.get("/admin/login/").status_code == 200


def test_the_table_page_needs_a_signed_in_player(client, table):
    response = client.get("/tables/pb1/")
    assert response.status_code == 302 and response["Location"] == "/accounts/login/?next=/tables/pb1/"


def test_the_table_page(player_client, table):
    response = player_client.get("/tables/pb1/")
    assert response.status_code == 200
    page = response.content.decode()
    assert 'data-socket="/ws/tables/pb1/"' in page
    assert 'data-bets-url="/tables/pb1/bets/"' in page and 'data-rebet-url="/tables/pb1/bets/rebet/"' in page
    assert '<output class="balance" data-balance>1000.00</output>' in page
    for chip in (1, 5, 10, 25, 100):
        assert f'aria-label="Chip {chip}"' in page
    for action in ("undo", "remove", "rebet", "rebet-double", "confirm"):
        assert f'data-action="{action}"' in page
    assert 'name="csrf-token"' in page and 'maxlength="200"' in page
    assert 'data-squeeze-turn-ms="2500"' in page  # a card offered to squeeze turns by itself after 2.5 s


def test_the_squeeze_s_wait_is_the_deployment_s(player_client, table, settings):
    settings.SQUEEZE_TURN_SECONDS = 4.25
    assert 'data-squeeze-turn-ms="4250"' in player_client.get("/tables/pb1/").content.decode()


def test_an_unknown_table_is_not_found(player_client, db):
    response = player_client.get("/tables/nope/")
    assert response.status_code == 404
    page = response.content.decode()
    assert "There is nothing here" in page and 'href="/"' in page and "base.css" in page  # the site's own page


def test_a_form_without_its_csrf_token_shows_the_sites_own_page(player):
    client = Client(enforce_csrf_checks=True)
    client.force_login(player)
    response = client.post("/accounts/logout/")
    assert response.status_code == 403
    page = response.content.decode()
    assert "This form has expired" in page and "base.css" in page and 'href="/"' in page
    assert "_auth_user_id" in client.session  # nothing was done


def test_a_server_error_shows_the_sites_own_page(rf):
    from django.views.defaults import server_error

    response = server_error(rf.get("/"))
    assert response.status_code == 500
    page = response.content.decode()
    assert "Something went wrong on our side" in page and "Nothing you asked for was changed" in page


def test_a_player_without_a_wallet_sees_a_zero_balance(client, table):
    client.force_login(get_user_model().objects.create_user(username="newcomer"))
    assert '<output class="balance" data-balance>0.00</output>' in client.get("/tables/pb1/").content.decode()
