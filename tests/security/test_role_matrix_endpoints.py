"""The dealer console, the surveillance pages, the partner API and the players' bet endpoints against every
role: the expected answer, and nothing changed when refused. Each list of pages is compared with its URL
configuration, so a new page without an entry here fails its ``test_every_..._is_in_the_matrix``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest
from django.urls import reverse

from tests.security.conftest import (
    DEALER_ROLE,
    OTHER_PARTNER,
    PARTNER,
    PIT_BOSS_ROLE,
    PLAYER,
    ROLES,
    STAFF_ROLES,
    SUPERUSER,
    VIEWERS,
    database_state,
    refused_as,
)

pytestmark = pytest.mark.django_db


# --- The dealer console ------------------------------------------------------------------------------

PIT = frozenset({PIT_BOSS_ROLE, SUPERUSER})  # tables.operate_table (a superuser has every permission)
CONSOLE_USERS = frozenset({DEALER_ROLE, *PIT})  # tables.deal
TABLE_DEALER = frozenset({DEALER_ROLE})  # the one logged in at the staffed table: the only one whose steps act there
DEALER_OR_PIT = TABLE_DEALER | PIT  # the seats' steps: the table's dealer or a pit boss
# (method, URL name, per table, who may): a GET of the console's pages by whoever may, a step carried out (or
# refused by the game) and back to the table.
CONSOLE_STEPS = (
    ("get", "tables", False, CONSOLE_USERS),
    ("get", "table", True, CONSOLE_USERS),
    ("get", "status", True, CONSOLE_USERS),
    ("get", "pit", False, PIT),
    ("post", "shoe_start", True, TABLE_DEALER),
    ("post", "shoe_cut_start", True, TABLE_DEALER),
    ("post", "shoe_cut_card_out", True, TABLE_DEALER),
    ("post", "shoe_finish", True, TABLE_DEALER),
    ("post", "coup_open", True, TABLE_DEALER),
    ("post", "coup_close_betting", True, TABLE_DEALER),
    ("post", "coup_card", True, TABLE_DEALER),
    ("post", "coup_resolve", True, TABLE_DEALER),
    ("post", "hand_shown_by_dealer", True, DEALER_OR_PIT),
    ("post", "banker_shown_first", True, PIT),
    ("post", "patron_seat", True, DEALER_OR_PIT),
    ("post", "patron_move", True, DEALER_OR_PIT),
    ("post", "patron_unseat", True, DEALER_OR_PIT),
    ("post", "seat_bet", True, DEALER_OR_PIT),
    ("post", "seat_buy_in", True, DEALER_OR_PIT),
    ("post", "seat_bets_reduce", True, DEALER_OR_PIT),
    ("post", "shoe_holder_pass", True, DEALER_OR_PIT),
    ("post", "shoe_holder_decline", True, DEALER_OR_PIT),
    ("post", "seat_bet_override", True, PIT),
    ("post", "tray_count", True, PIT),
    ("post", "tray_fill", True, PIT),
    ("post", "tray_credit", True, PIT),
)


def test_every_console_page_is_in_the_matrix():
    from casino.console.urls import urlpatterns

    assert {pattern.name for pattern in urlpatterns} == {name for _, name, _, _ in CONSOLE_STEPS}


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize(("method", "name", "per_table", "allowed"), CONSOLE_STEPS)
def test_dealer_console(floor_state, client_as, method, name, per_table, allowed, role):
    url = reverse(f"console:{name}", kwargs={"code": floor_state.staffed_dealer_table.code} if per_table else {})
    before = database_state()
    response = getattr(client_as(role), method)(url, {"shuffle_method": "table"} if method == "post" else None)
    if role in allowed:
        # the page, or the step carried out (or refused by the game, as these forms are) and back to the table
        assert response.status_code == (200 if method == "get" else 302)
        if method == "post":
            assert response["Location"] == reverse("console:table", kwargs={"code": "d1"})
        return
    refused_as(role, response, forbidden=(PLAYER, *STAFF_ROLES))  # a signed-in player is not sent to sign in
    assert database_state() == before


# --- The surveillance pages: read-only, for the roles that may see shoes and bets ------------------------

SURVEILLANCE_PAGES = {"floor": lambda f: {}, "shoe": lambda f: {"shoe_id": f.live_coup.shoe_id}}


def test_every_surveillance_page_is_in_the_matrix():
    from casino.surveillance.urls import urlpatterns

    assert {pattern.name for pattern in urlpatterns} == set(SURVEILLANCE_PAGES)


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("name", sorted(SURVEILLANCE_PAGES))
def test_surveillance_pages(floor_state, client_as, name, role):
    url = reverse(f"surveillance:{name}", kwargs=SURVEILLANCE_PAGES[name](floor_state))
    client = client_as(role)
    before = database_state()
    response = client.get(url)
    if role in VIEWERS:
        assert response.status_code == 200 and response["Content-Type"].startswith("text/html")
    else:
        refused_as(role, response, forbidden=(PLAYER, *STAFF_ROLES))  # partner keys are no session: sign in
    assert client.post(url).status_code == 405  # read-only, whoever asks
    assert database_state() == before


# --- The partner API: keys only, and a partner's players are its own -----------------------------------


@dataclass(frozen=True)
class ApiCall:
    method: str
    kwargs: dict
    body: dict | None = None
    players_own: bool = False  # about the partner's own player or webhook: another partner gets 404
    query: str = ""


API_CALLS = {
    "tables": ApiCall("get", {}),
    "table": ApiCall("get", {"code": "pb1"}),
    "shoe": ApiCall("get", {"code": "pb1", "number": 1}),
    "players": ApiCall("post", {}, {"player_id": "p-2"}),
    "player": ApiCall("get", {"player_id": "p-1"}, players_own=True),
    "deposits": ApiCall("post", {"player_id": "p-1"}, {"amount": "10.00"}, players_own=True),
    "withdrawals": ApiCall("post", {"player_id": "p-1"}, {"amount": "10.00"}, players_own=True),
    "bets": ApiCall("post", {"player_id": "p-1"}, {"table": "pb1", "bets": {"player": "5.00"}}, players_own=True),
    "player-rounds": ApiCall("get", {"player_id": "p-1"}, players_own=True),
    "exclusion": ApiCall("post", {"player_id": "p-1"}, {"reason": "the matrix"}, players_own=True),
    "round": ApiCall("get", {"round_id": "live"}),
    "webhooks": ApiCall("post", {}, {"url": "https://hooks.example.org/x"}),
    "sessions": ApiCall("post", {}, {"player_id": "p-9", "currency": "EUR"}),
    "reconciliation": ApiCall("get", {}, query="?date=2026-11-24"),
    "float": ApiCall("get", {}),
    "float-statement": ApiCall("get", {}),
    "table-rounds": ApiCall("get", {"code": "pb1"}),
    "webhook": ApiCall("delete", {"webhook_id": "endpoint"}, players_own=True),
    "deal": ApiCall(
        "post",
        {"code": "rng5"},
        {"player_id": "p-1", "bets": {"player": "5.00"}, "commitment": "commitment"},
        players_own=True,
    ),
}


def test_every_api_endpoint_is_in_the_matrix():
    from casino.partner_api.urls import v1 as served_by_casino
    from partners.api.urls import v1

    assert {pattern.name for pattern in [*v1, *served_by_casino]} == set(API_CALLS)


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("name", sorted(API_CALLS))
def test_partner_api(floor_state, client_as, name, role):
    call = API_CALLS[name]
    ids = {
        "live": floor_state.live_coup.round_id,
        "endpoint": floor_state.endpoint.pk,
        "commitment": floor_state.partner_rng_shoe.commitment,
    }
    url = reverse(f"api:{name}", kwargs={key: ids.get(value, value) for key, value in call.kwargs.items()})
    url += call.query
    kwargs = {"HTTP_IDEMPOTENCY_KEY": f"matrix-{name}"}
    if call.body is not None:
        body = {name: ids.get(value, value) if isinstance(value, str) else value for name, value in call.body.items()}
        kwargs.update(data=json.dumps(body), content_type="application/json")
    before = database_state()
    response = getattr(client_as(role), call.method)(url, **kwargs)
    if role == PARTNER or (role == OTHER_PARTNER and not call.players_own):
        assert response.status_code < 300, response.content
        if call.method != "get":
            assert database_state() != before
        return
    expected = 404 if role == OTHER_PARTNER else 401  # a session, even a superuser's, is no API key
    assert response.status_code == expected, (role, response.content)
    assert response.json()["error"]["code"]
    assert database_state() == before


# --- The players' bet endpoints: signed-in players only; staff accounts do not bet --------------------

BET_ENDPOINTS = ("bets", "bets_undo", "bets_remove", "bets_rebet", "history")
DEAL_ENDPOINT = "rng_deal"  # a table dealt on demand (tests/ui/test_rng_endpoint.py has the players' side)


def test_every_bet_endpoint_is_in_the_matrix():
    from casino.players.api_urls import urlpatterns

    assert {pattern.name for pattern in urlpatterns} == {*BET_ENDPOINTS, DEAL_ENDPOINT}


@pytest.mark.parametrize("role", ROLES)
def test_the_deal_endpoint_deals_for_nobody_but_a_player_at_a_table_dealt_on_demand(floor_state, client_as, role):
    url = reverse(f"players:{DEAL_ENDPOINT}", kwargs={"code": "pb1"})  # an automatic table
    before = database_state()
    response = client_as(role).post(url, json.dumps({"bets": {"banker": "50.00"}}), content_type="application/json")
    expected = (400, 409) if role == PLAYER else (403,) if role in STAFF_ROLES else (401,)
    assert response.status_code in expected, (role, response.content)
    assert response.json()["error"]["code"]
    assert database_state() == before


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("name", BET_ENDPOINTS)
def test_player_bet_endpoints(floor_state, client_as, name, role):
    url = reverse(f"players:{name}", kwargs={"code": "pb1"})
    client = client_as(role)
    before = database_state()
    if name == "history":
        response = client.get(url)
    else:
        body = {"bets": {"banker": "50.00"}} if name == "bets" else {}
        response = client.post(url, json.dumps(body), content_type="application/json")
    if role == PLAYER:
        assert response.status_code in (200, 409), response.content  # 409: e.g. no earlier bets to repeat
        if response.status_code == 200 and name != "history":
            assert database_state() != before
        return
    expected = 403 if role in STAFF_ROLES else 401  # an API key is no session
    assert response.status_code == expected, (role, response.content)
    assert response.json()["error"]["code"]
    assert database_state() == before
