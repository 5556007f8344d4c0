"""Every privileged action against every role: the expected answer, and nothing changed when refused.

Roles: anonymous, a player, a partner's API key (and another partner's), dealer, pit boss,
surveillance (read-only) and a superuser. Admin actions are listed from the admin classes
themselves: a new action without an entry here fails ``test_every_admin_action_is_in_the_matrix``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from django.contrib import admin
from django.urls import reverse

from tables.models import Shoe
from tests.security.conftest import (
    DEALER_ROLE,
    OTHER_PARTNER,
    PARTNER,
    PIT_BOSS_ROLE,
    PLAYER,
    ROLES,
    STAFF_ROLES,
    SUPERUSER,
    SURVEILLANCE_ROLE,
    Floor,
    database_state,
)

pytestmark = pytest.mark.django_db

FLOOR_BOSSES = frozenset({PIT_BOSS_ROLE, SUPERUSER})
VIEWERS = frozenset({PIT_BOSS_ROLE, SURVEILLANCE_ROLE, SUPERUSER})
ROOT = frozenset({SUPERUSER})
REASON = {"reason": "role matrix"}


@dataclass(frozen=True)
class AdminAction:
    allowed: frozenset[str]
    target: Callable[[Floor], object]  # the selected object
    form: dict | None = None  # the confirmation page's form (None: the action has no confirmation)
    changes: bool = True  # False: a read-only action (an export)


ADMIN_ACTIONS = {
    ("tables.table", "open_tables"): AdminAction(FLOOR_BOSSES, lambda f: f.closed_table, REASON),
    ("tables.table", "close_tables"): AdminAction(FLOOR_BOSSES, lambda f: f.open_table, REASON),
    ("tables.table", "order_no_bet_coups"): AdminAction(FLOOR_BOSSES, lambda f: f.open_table, {"count": "1", **REASON}),
    ("tables.table", "replace_cards"): AdminAction(FLOOR_BOSSES, lambda f: f.open_table, REASON),
    ("tables.table", "reduce_no_bet_coups"): AdminAction(
        FLOOR_BOSSES, lambda f: f.closed_table, {"count": "1", **REASON}
    ),
    ("tables.table", "cancel_no_bet_coups"): AdminAction(FLOOR_BOSSES, lambda f: f.closed_table, REASON),
    ("tables.shoe", "cancel_cut"): AdminAction(FLOOR_BOSSES, lambda f: Shoe.objects.get(table__code="d3"), REASON),
    ("tables.shoe", "cancel_shuffle"): AdminAction(FLOOR_BOSSES, lambda f: Shoe.objects.get(table__code="d3"), REASON),
    ("tables.table", "log_dealer_in"): AdminAction(
        FLOOR_BOSSES, lambda f: f.unstaffed_dealer_table, {"dealer": "dealer"}
    ),
    ("tables.table", "log_dealer_out"): AdminAction(FLOOR_BOSSES, lambda f: f.staffed_dealer_table, {}),
    ("tables.coup", "void_coups"): AdminAction(FLOOR_BOSSES, lambda f: f.live_coup, REASON),
    ("tables.coup", "request_result_correction"): AdminAction(
        FLOOR_BOSSES, lambda f: f.settled_coup, {"player_cards": "TS 2D 2S", "banker_cards": "6H KC", **REASON}
    ),
    ("tables.resultcorrection", "approve_corrections"): AdminAction(
        FLOOR_BOSSES, lambda f: f.pending_correction, REASON
    ),
    ("tables.resultcorrection", "reject_corrections"): AdminAction(
        FLOOR_BOSSES, lambda f: f.pending_correction, REASON
    ),
    ("tables.coupvoidrequest", "approve_void_requests"): AdminAction(ROOT, lambda f: f.pending_void_request, REASON),
    ("tables.coupvoidrequest", "reject_void_requests"): AdminAction(ROOT, lambda f: f.pending_void_request, REASON),
    ("tables.coup", "hold_coups"): AdminAction(FLOOR_BOSSES, lambda f: f.live_coup, REASON),
    ("tables.coup", "release_coups"): AdminAction(FLOOR_BOSSES, lambda f: f.coup_held_by_hand, REASON),
    ("tables.coup", "deal_held_card_in_this_coup"): AdminAction(FLOOR_BOSSES, lambda f: f.held_coup, REASON),
    ("tables.coup", "keep_held_card_for_next_coup"): AdminAction(FLOOR_BOSSES, lambda f: f.held_coup, REASON),
    ("tables.personallimitmarker", "revoke_markers"): AdminAction(FLOOR_BOSSES, lambda f: f.marker, REASON),
    ("wagering.tabledayreport", "export_csv"): AdminAction(
        VIEWERS, lambda f: f.open_table.day_reports.get(), changes=False
    ),
    ("wagering.tabledayreport", "rebuild"): AdminAction(ROOT, lambda f: f.open_table.day_reports.get()),
    ("wagering.shoereport", "export_csv"): AdminAction(
        VIEWERS, lambda f: f.live_coup.shoe.reports.get(), changes=False
    ),
    ("wagering.shoereport", "rebuild"): AdminAction(ROOT, lambda f: f.live_coup.shoe.reports.get()),
    ("partners.partner", "api_key_create"): AdminAction(ROOT, lambda f: f.partner),
    ("partners.partnerapikey", "revoke"): AdminAction(ROOT, lambda f: f.api_key.api_key),
    ("partners.webhookendpoint", "disable"): AdminAction(ROOT, lambda f: f.endpoint),
    ("partners.webhookdelivery", "resend"): AdminAction(ROOT, lambda f: f.failed_delivery),
    ("partners.wallettransaction", "retry"): AdminAction(ROOT, lambda f: f.pending_wallet_transaction),
}


def admin_actions_declared() -> set[tuple[str, str]]:
    return {
        (model._meta.label_lower, action if isinstance(action, str) else action.__name__)
        for model, model_admin in admin.site._registry.items()
        for action in model_admin.actions or ()
    }


def test_every_admin_action_is_in_the_matrix():
    assert admin_actions_declared() == set(ADMIN_ACTIONS)


def refused_as(role: str, response, *, forbidden: tuple[str, ...] = STAFF_ROLES) -> None:
    """Staff without the permission get 403; anyone else (partner keys included) the staff sign-in."""
    if role in forbidden:
        assert response.status_code == 403, (role, response.status_code)
    else:
        assert response.status_code == 302 and response["Location"].startswith("/admin/login/?next="), role


def run_action(client, label: str, name: str, spec: AdminAction, floor_state: Floor):
    target = spec.target(floor_state)
    form = {
        key: str(floor_state.users[value].pk) if key == "dealer" else value for key, value in (spec.form or {}).items()
    }
    data = {"action": name, "_selected_action": [target.pk], "index": "0"}
    if spec.form is not None:
        data.update({"confirmed": "yes", **form})
    app_label, model_name = label.split(".")
    return client.post(reverse(f"admin:{app_label}_{model_name}_changelist"), data)


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize(("label", "name"), sorted(ADMIN_ACTIONS))
def test_admin_actions(floor_state, client_as, label, name, role):
    spec = ADMIN_ACTIONS[(label, name)]
    before = database_state()
    response = run_action(client_as(role), label, name, spec, floor_state)
    if role not in spec.allowed:
        refused_as(role, response)
        assert database_state() == before
        return
    assert response.status_code in (200, 302), response.status_code
    if spec.changes:
        assert database_state() != before
    else:
        assert response["Content-Type"].startswith("text/csv")
        assert database_state() == before


# --- Admin pages: who views, adds, changes and deletes ----------------------------------------------

FLOOR_VIEWERS = {
    "tables.table": VIEWERS | {DEALER_ROLE},
    "tables.coup": VIEWERS | {DEALER_ROLE},
}
ADDERS = {
    "tables.pit": ROOT,
    "tables.table": ROOT,
    "tables.limitset": FLOOR_BOSSES,
    "tables.personallimitmarker": FLOOR_BOSSES,
    "partners.partner": ROOT,
    "auth.user": ROOT,
    "auth.group": ROOT,
}


def viewers_of(label: str) -> frozenset[str]:
    app_label = label.split(".")[0]
    if label in FLOOR_VIEWERS:
        return frozenset(FLOOR_VIEWERS[label])
    return VIEWERS if app_label in ("tables", "wagering", "partners") else ROOT


REGISTERED = sorted(model._meta.label_lower for model in admin.site._registry)


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("label", REGISTERED)
def test_admin_changelist_and_add_pages(floor_state, client_as, label, role):
    app_label, model_name = label.split(".")
    client = client_as(role)
    changelist = client.get(reverse(f"admin:{app_label}_{model_name}_changelist"))
    if role in viewers_of(label):
        assert changelist.status_code == 200
    else:
        refused_as(role, changelist)
    add = client.get(reverse(f"admin:{app_label}_{model_name}_add"))
    if role in ADDERS.get(label, ()):
        assert add.status_code == 200
    else:
        refused_as(role, add)


SENSITIVE_OBJECTS = {
    "tables.pit": lambda f: f.pit,
    "tables.table": lambda f: f.open_table,
    "tables.limitset": lambda f: f.open_table.limit_sets.get(),
    "tables.coup": lambda f: f.live_coup,
    "tables.resultcorrection": lambda f: f.pending_correction,
    "tables.personallimitmarker": lambda f: f.marker,
    "tables.auditlog": lambda f: f.open_table.audit_entries.first(),
    "wagering.account": lambda f: f.users[PLAYER].wallet,
    "wagering.bet": lambda f: f.live_coup.bets.get(),
    "wagering.ledgertransaction": lambda f: f.users[PLAYER].wallet.entries.first().transaction,
    "partners.partner": lambda f: f.partner,
    "partners.partnerapikey": lambda f: f.api_key.api_key,
    "auth.user": lambda f: f.users[PLAYER],
}
CHANGERS = {
    "tables.pit": ROOT,
    "tables.table": FLOOR_BOSSES,
    "tables.limitset": FLOOR_BOSSES,
    "partners.partner": ROOT,
    "auth.user": ROOT,
}


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("label", sorted(SENSITIVE_OBJECTS))
def test_admin_change_and_delete_of_sensitive_objects(floor_state, client_as, label, role):
    """Nobody deletes money or floor records (a superuser may delete a user); only the allowed change one."""
    app_label, model_name = label.split(".")
    obj = SENSITIVE_OBJECTS[label](floor_state)
    client = client_as(role)
    before = database_state()
    change_url = reverse(f"admin:{app_label}_{model_name}_change", args=[obj.pk])
    if role in CHANGERS.get(label, ()):
        assert 'name="_save"' in client.get(change_url).content.decode()
    elif role in viewers_of(label):  # the page, read-only; a post is refused
        page = client.get(change_url)
        assert page.status_code == 200 and 'name="_save"' not in page.content.decode()
        assert client.post(change_url, {"name": "hacked", "reason": "x"}).status_code == 403
    else:
        refused_as(role, client.get(change_url))
        refused_as(role, client.post(change_url, {"name": "hacked", "reason": "x"}))
    assert database_state() == before

    deleted = client.post(reverse(f"admin:{app_label}_{model_name}_delete", args=[obj.pk]), {"post": "yes"})
    if role == SUPERUSER and label == "auth.user":  # the page says why not: the player's bets and ledger stay
        assert deleted.status_code == 200 and "Cannot delete user" in deleted.content.decode()
    else:
        refused_as(role, deleted)
    assert database_state() == before


@pytest.mark.parametrize("role", ROLES)
def test_moving_money_in_the_admin(floor_state, client_as, role):
    wallet = floor_state.users[PLAYER].wallet
    url = reverse("admin:wagering_account_move_money", args=[wallet.pk])
    client = client_as(role)
    before = database_state()
    form = {"operation": "deposit", "amount": "50.00", "reason": "cage", "idempotency_key": "matrix-1"}
    response = client.post(url, form)
    if role == SUPERUSER:
        assert response.status_code == 302 and database_state() != before
        return
    refused_as(role, response)
    assert database_state() == before


# --- Admin pages of their own (reports, money moves): every one listed -----------------------------------

# The reports add up rows their viewers may read (seat sessions, tray counts): pit bosses and surveillance
# read them, a dealer does not (tables.roles gives dealers no view of them).
ADMIN_REPORT_PAGES = {
    "tables_seatsession_ratings": VIEWERS,
    "wagering_traycount_shifts": VIEWERS,
}
ADMIN_PAGES_TESTED_APART = {"wagering_account_move_money": "test_moving_money_in_the_admin"}
DJANGO_ADMIN_PAGES = ("_changelist", "_add", "_history", "_delete", "_change")


def test_every_admin_page_of_its_own_is_in_the_matrix():
    declared = {
        pattern.name
        for model_admin in admin.site._registry.values()
        for pattern in model_admin.get_urls()
        if pattern.name and not pattern.name.endswith(DJANGO_ADMIN_PAGES)
    }
    assert declared == set(ADMIN_REPORT_PAGES) | set(ADMIN_PAGES_TESTED_APART)


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("name", sorted(ADMIN_REPORT_PAGES))
def test_admin_report_pages(floor_state, client_as, name, role):
    """Read-only: a post is answered as a get, and changes nothing."""
    client = client_as(role)
    before = database_state()
    for response in (client.get(reverse(f"admin:{name}")), client.post(reverse(f"admin:{name}"), {"since": "x"})):
        if role in ADMIN_REPORT_PAGES[name]:
            assert response.status_code == 200
        else:
            refused_as(role, response)
    assert database_state() == before


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
    "round": ApiCall("get", {"round_id": "live"}),
    "webhooks": ApiCall("post", {}, {"url": "https://hooks.example.org/x"}),
    "sessions": ApiCall("post", {}, {"player_id": "p-9", "currency": "EUR"}),
    "reconciliation": ApiCall("get", {}, query="?date=2026-11-24"),
    "float": ApiCall("get", {}),
    "float-statement": ApiCall("get", {}),
    "table-rounds": ApiCall("get", {"code": "pb1"}),
    "webhook": ApiCall("delete", {"webhook_id": "endpoint"}, players_own=True),
}


def test_every_api_endpoint_is_in_the_matrix():
    from partners.api.urls import v1

    assert {pattern.name for pattern in v1} == set(API_CALLS)


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("name", sorted(API_CALLS))
def test_partner_api(floor_state, client_as, name, role):
    call = API_CALLS[name]
    ids = {"live": floor_state.live_coup.round_id, "endpoint": floor_state.endpoint.pk}
    url = reverse(f"api:{name}", kwargs={key: ids.get(value, value) for key, value in call.kwargs.items()})
    url += call.query
    kwargs = {"HTTP_IDEMPOTENCY_KEY": f"matrix-{name}"}
    if call.body is not None:
        kwargs.update(data=json.dumps(call.body), content_type="application/json")
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


def test_every_bet_endpoint_is_in_the_matrix():
    from casino.players.api_urls import urlpatterns

    assert {pattern.name for pattern in urlpatterns} == set(BET_ENDPOINTS)


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("name", BET_ENDPOINTS)
def test_player_bet_endpoints(floor_state, client_as, name, role):
    url = reverse(f"wagering:{name}", kwargs={"code": "pb1"})
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
