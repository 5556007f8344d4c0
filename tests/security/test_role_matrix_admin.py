"""The admin against every role: each action, changelist and add page, the change and delete of the
sensitive records, the money form and the report pages; the expected answer, and nothing changed when refused.

Roles: anonymous, a player, a partner's API key (and another partner's), dealer, pit boss,
surveillance (read-only) and a superuser. Admin actions are listed from the admin classes
themselves: a new action without an entry here fails ``test_every_admin_action_is_in_the_matrix``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest
from django.contrib import admin
from django.urls import reverse

from tables.models import AuditLog, Shoe
from tests.security.conftest import (
    DEALER_ROLE,
    PIT_BOSS_ROLE,
    PLAYER,
    ROLES,
    SUPERUSER,
    VIEWERS,
    Floor,
    database_state,
    refused_as,
)

pytestmark = pytest.mark.django_db

FLOOR_BOSSES = frozenset({PIT_BOSS_ROLE, SUPERUSER})
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
    "wagering.playerprotection": lambda f: f.users[PLAYER].protection,
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


@pytest.mark.parametrize("role", ROLES)
def test_making_a_players_limits_stricter_in_the_admin(floor_state, client_as, role):
    """A superuser (or staff granted ``wagering.change_playerprotection``, tests/wagering/protection/test_admin.py);
    a pit boss, a dealer, surveillance: refused, as they are a deposit."""
    player = floor_state.users[PLAYER]
    url = reverse("admin:wagering_playerprotection_stricter", args=[player.pk])
    client = client_as(role)
    before = database_state()
    response = client.post(url, {"loss_day": "50.00"})
    if role == SUPERUSER:
        assert response.status_code == 302 and database_state() != before
        assert AuditLog.objects.filter(action="protection_limits_set", actor_label=SUPERUSER).exists()
        return
    refused_as(role, response)
    refused_as(role, client.get(url))
    assert database_state() == before


# --- Admin pages of their own (reports, money moves): every one listed -----------------------------------

# The reports add up rows their viewers may read (seat sessions, tray counts): pit bosses and surveillance
# read them, a dealer does not (tables.roles gives dealers no view of them).
ADMIN_REPORT_PAGES = {
    "tables_seatsession_ratings": VIEWERS,
    "wagering_traycount_shifts": VIEWERS,
}
ADMIN_PAGES_TESTED_APART = {
    "wagering_account_move_money": "test_moving_money_in_the_admin",
    "wagering_playerprotection_stricter": "test_making_a_players_limits_stricter_in_the_admin",
}
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
