"""The wagering admin: read-only money, deposits and withdrawals through the services, CSV reports."""

import csv
import io
import re
from decimal import Decimal

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse
from django.utils import timezone

from casino.lifecycle.settlement import coup_settle
from tests.factories import CoupFactory, UserFactory, coup_deal_and_resolve, staff_login
from tests.wagering.conftest import fund
from wagering.models import Account, Bet, LedgerTransaction, ShoeReport, TableDayReport
from wagering.placement import bet_batch_place
from wagering.reports import shoe_report_build, table_day_report_build
from wagering.selectors import wallet_balance

D = Decimal


@pytest.fixture
def admin_client(client, db):
    return staff_login(client, UserFactory(is_staff=True, is_superuser=True))


@pytest.fixture
def wallet(db):
    user = UserFactory()
    fund(user, "100.00")
    return user.wallet


@pytest.fixture
def reports(table):
    user = UserFactory()
    fund(user, "100.00")
    coup = CoupFactory(table=table)
    bet_batch_place(user=user, coup=coup, bets={"banker": "40"})
    coup_deal_and_resolve(coup, "9S 2H KD 3C")
    coup_settle(coup_id=coup.pk)
    [day] = table_day_report_build(table_id=table.pk, day=timezone.now().date())
    [shoe] = shoe_report_build(shoe_id=coup.shoe_id)
    return day, shoe


def export(client, model, ids):
    url = reverse(f"admin:wagering_{model}_changelist")
    response = client.post(url, {"action": "export_csv", "_selected_action": ids})
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    return list(csv.DictReader(io.StringIO(response.content.decode())))


def test_reports_export_as_csv(admin_client, reports, table):
    day, shoe = reports
    [row] = export(admin_client, "tabledayreport", [day.pk])
    assert row["table"] == table.code and row["day"] == day.day.isoformat()
    assert (row["coups"], row["player_wins"], row["staked"], row["returned"], row["house_win"]) == (
        "1",
        "1",
        "40.00",
        "0.00",
        "40.00",
    )
    assert row["hold_percent"] == "100.00"
    [row] = export(admin_client, "shoereport", [shoe.pk])
    assert (row["table"], row["shoe"], row["house_win"]) == (table.code, "1", "40.00")


def test_reports_can_be_recomputed_from_the_admin(admin_client, reports):
    day, _ = reports
    TableDayReport.objects.filter(pk=day.pk).update(staked=D("0.00"))
    url = reverse("admin:wagering_tabledayreport_changelist")
    admin_client.post(url, {"action": "rebuild", "_selected_action": [day.pk]})
    day.refresh_from_db()
    assert day.staked == D("40.00")
    assert ShoeReport.objects.count() == 1


def test_every_wagering_page_opens_read_only(admin_client, reports, wallet):
    entry = LedgerTransaction.objects.first()
    for name, args in [
        ("account_changelist", []),
        ("account_change", [wallet.pk]),
        ("ledgertransaction_changelist", []),
        ("ledgertransaction_change", [entry.pk]),
        ("bet_changelist", []),
        ("bet_change", [Bet.objects.first().pk]),
        ("idempotencykey_changelist", []),
        ("tabledayreport_changelist", []),
        ("shoereport_changelist", []),
    ]:
        response = admin_client.get(reverse(f"admin:wagering_{name}", args=args))
        assert response.status_code == 200, name
    assert admin_client.get(reverse("admin:wagering_account_add")).status_code == 403
    assert (
        admin_client.post(reverse("admin:wagering_account_change", args=[wallet.pk]), {"balance": "1e6"}).status_code
        == 403
    )
    assert wallet_balance(user=wallet.user) == D("100.00")


def money_form(client, wallet):
    url = reverse("admin:wagering_account_move_money", args=[wallet.pk])
    response = client.get(url)
    assert response.status_code == 200
    key = re.search(r'name="idempotency_key" value="([0-9a-f]+)"', response.content.decode()).group(1)
    return url, key


def test_a_deposit_from_the_admin_goes_through_the_service_once(admin_client, wallet):
    url, key = money_form(admin_client, wallet)
    form = {"operation": "deposit", "amount": "25.50", "reason": "cash at the cage", "idempotency_key": key}
    response = admin_client.post(url, form)
    assert response.status_code == 302
    admin_client.post(url, form)  # submitted twice
    assert wallet_balance(user=wallet.user) == D("125.50")
    entry = LedgerTransaction.objects.filter(kind="deposit").latest("pk")
    assert entry.reason == "cash at the cage" and entry.actor.is_superuser
    assert money_form(admin_client, wallet)[1] != key  # every form its own key


def test_a_refused_withdrawal_shows_why(admin_client, wallet):
    url, key = money_form(admin_client, wallet)
    response = admin_client.post(
        url, {"operation": "withdrawal", "amount": "150", "reason": "payout", "idempotency_key": key}
    )
    assert response.status_code == 200
    assert "short by 50.00" in response.content.decode()
    assert wallet_balance(user=wallet.user) == D("100.00")


def test_a_reason_is_required(admin_client, wallet):
    url, key = money_form(admin_client, wallet)
    response = admin_client.post(url, {"operation": "deposit", "amount": "10", "reason": "", "idempotency_key": key})
    assert response.status_code == 200
    assert wallet_balance(user=wallet.user) == D("100.00")


def test_moving_money_needs_the_permission(client, wallet):
    staff = UserFactory(is_staff=True)
    staff.user_permissions.add(Permission.objects.get(codename="view_account"))
    staff_login(client, staff)
    url = reverse("admin:wagering_account_move_money", args=[wallet.pk])
    assert client.get(url).status_code == 403
    staff.user_permissions.add(Permission.objects.get(codename="move_money"))
    assert client.get(url).status_code == 200


def test_system_accounts_have_no_money_form(admin_client, wallet):
    house = Account.objects.create(kind=Account.Kind.HOUSE)
    assert admin_client.get(reverse("admin:wagering_account_move_money", args=[house.pk])).status_code == 404
