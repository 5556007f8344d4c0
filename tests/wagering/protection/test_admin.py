"""Players' protection in the admin: shown read-only with its history; staff allowed to make a limit stricter
do so through the service (never looser, the refusal shown, audited); no screen or crafted request edits the
row, deletes it, or shortens or lifts a break. Who may (the roles): tests/security/test_role_matrix_admin.py."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal as D

import pytest
from django.contrib.auth.models import Permission
from django.forms.models import model_to_dict
from django.urls import reverse
from django.utils import timezone

from tables.models import AuditLog
from tables.roles import PIT_BOSS, SURVEILLANCE, roles_ensure
from tests.factories import UserFactory, staff_login
from wagering.models import PlayerProtection
from wagering.protection.services import protection_break_take, protection_limits_set, protection_operator_exclude

pytestmark = pytest.mark.django_db


@pytest.fixture
def player():
    return UserFactory(username="zoe")


@pytest.fixture
def cashier(client):
    """Staff granted the one permission, as a cashier is granted ``move_money``."""
    user = UserFactory(username="cashier", is_staff=True)
    user.user_permissions.add(
        Permission.objects.get(codename="change_playerprotection", content_type__app_label="wagering")
    )
    staff_login(client, user)
    return user


def row_of(user) -> dict:
    return model_to_dict(PlayerProtection.objects.get(pk=user.pk))


def change_url(user) -> str:
    return reverse("admin:wagering_playerprotection_change", args=[user.pk])


def stricter_url(user) -> str:
    return reverse("admin:wagering_playerprotection_stricter", args=[user.pk])


def test_the_page_shows_limits_pending_breaks_session_and_who_changed_what(client, player, monkeypatch):
    protection_limits_set(user=player, limits={"loss_day": D("100"), "deposit_week": D("500")})
    protection_limits_set(user=player, limits={"loss_day": D("300")})  # looser: pending for 24 h
    protection_break_take(user=player, kind="time_out", duration="24h")
    boss = UserFactory(username="boss", is_staff=True)
    boss.groups.add(roles_ensure()[PIT_BOSS])
    page = staff_login(client, boss).get(change_url(player)).content.decode()
    assert "Net loss a day" in page and "100.00" in page and "300.00" in page  # in force, and pending
    pending = PlayerProtection.objects.get(pk=player.pk).pending["loss_day"]["effective_at"]
    assert pending in page
    assert "timed out until" in page and "in force" in page
    assert page.count("protection_limits_set") == 2 and "protection_time_out" in page
    assert 'name="_save"' not in page and "Make limits stricter" not in page  # a pit boss only looks
    later = timezone.now() + timedelta(hours=25)
    monkeypatch.setattr(timezone, "now", lambda: later)
    page = staff_login(client, boss).get(change_url(player)).content.decode()  # signed in again: 25 h idle
    assert "300.00" in page and pending not in page  # the cooling-off over: in force, nothing pending


def test_staff_make_a_limit_stricter_and_it_is_audited_with_who(client, cashier, player):
    protection_limits_set(user=player, limits={"loss_day": D("100")})
    assert "Make limits stricter" in client.get(change_url(player)).content.decode()
    response = client.post(stricter_url(player), {"loss_day": "40.00", "session_minutes": "90"})
    assert response.status_code == 302 and response["Location"] == change_url(player)
    row = row_of(player)
    assert row["loss_day"] == D("40.00") and row["session_minutes"] == 90 and row["pending"] == {}
    entry = AuditLog.objects.filter(object_type="PlayerProtection", object_id=str(player.pk)).first()
    assert (entry.actor, entry.action) == (cashier, "protection_limits_set")
    assert entry.before == {"loss_day": "100.00", "session_minutes": None}
    assert entry.after == {"loss_day": "40.00", "session_minutes": "90"}


def test_a_player_without_a_row_gets_one_from_staff_stricter(client, cashier, player):
    assert client.get(stricter_url(player)).status_code == 200
    client.post(stricter_url(player), {"deposit_month": "250"})
    assert row_of(player)["deposit_month"] == D("250.00")


@pytest.mark.parametrize(
    "asked", [{"loss_day": "100.01"}, {"session_minutes": "61"}, {"loss_week": "5", "loss_day": "101"}]
)
def test_looser_is_refused_with_the_services_message_and_changes_nothing(client, cashier, player, asked):
    """Higher than in force: refused whole, even beside a stricter one."""
    protection_limits_set(user=player, limits={"loss_day": D("100"), "session_minutes": 60})
    before, audited = row_of(player), AuditLog.objects.count()
    page = client.post(stricter_url(player), asked)
    assert page.status_code == 200
    assert "Nothing was changed: staff and operators may only make a limit stricter" in page.content.decode()
    assert row_of(player) == before and AuditLog.objects.count() == audited


@pytest.mark.parametrize(
    "asked",
    [
        {},
        {"loss_day": ""},
        {"loss_day": "-5"},
        {"loss_day": "0"},
        {"loss_day": "abc"},
        {"loss_day": "1e3"},
        {"loss_day": "9" * 30},
        {"session_minutes": "0"},
        {"session_minutes": "1.5"},
        {"session_minutes": "100000"},
    ],
)
def test_bad_input_is_refused_by_the_form_and_changes_nothing(client, cashier, player, asked):
    protection_limits_set(user=player, limits={"loss_day": D("100")})
    before, audited = row_of(player), AuditLog.objects.count()
    response = client.post(stricter_url(player), asked)
    assert response.status_code == 200 and "errorlist" in response.content.decode()
    assert row_of(player) == before and AuditLog.objects.count() == audited


def test_a_self_exclusion_cannot_be_shortened_or_lifted_from_the_admin(client, player):
    protection_break_take(user=player, kind="self_exclusion", duration="1y")
    protection_operator_exclude(user=player, actor_label="partner:acme")
    superuser = UserFactory(username="root", is_staff=True, is_superuser=True)
    staff_login(client, superuser)
    before, audited = row_of(player), AuditLog.objects.count()
    offered = client.get(stricter_url(player)).content.decode() + client.get(change_url(player)).content.decode()
    assert "self_excluded_until" not in offered and "operator_excluded_at" not in offered  # no field for them
    crafted = {
        "self_excluded_until": "2000-01-01T00:00:00Z",
        "timed_out_until": "",
        "operator_excluded_at": "",
        "_save": "Save",
    }
    assert client.post(change_url(player), crafted).status_code == 403
    assert (
        client.post(reverse("admin:wagering_playerprotection_add"), {"user": player.pk, **crafted}).status_code == 403
    )
    delete = reverse("admin:wagering_playerprotection_delete", args=[player.pk])
    assert client.post(delete, {"post": "yes"}).status_code == 403
    changelist = reverse("admin:wagering_playerprotection_changelist")
    bulk_delete = {"action": "delete_selected", "_selected_action": [player.pk], "post": "yes"}
    assert client.post(changelist, bulk_delete).status_code == 403
    client.post(stricter_url(player), {**crafted, "loss_day": "10"})  # only the limit is read
    after = row_of(player)
    assert after.pop("loss_day") == D("10.00") and before.pop("loss_day") is None
    assert after == before and AuditLog.objects.count() == audited + 1


def test_surveillance_sees_the_protection_but_cannot_make_it_stricter(client, player):
    protection_limits_set(user=player, limits={"loss_day": D("100")})
    watcher = UserFactory(username="eye", is_staff=True)
    watcher.groups.add(roles_ensure()[SURVEILLANCE])
    staff_login(client, watcher)
    assert client.get(change_url(player)).status_code == 200
    before = row_of(player)
    assert client.post(stricter_url(player), {"loss_day": "1"}).status_code == 403
    assert row_of(player) == before


def test_staff_accounts_have_no_protection_page(client, cashier):
    assert client.get(stricter_url(cashier)).status_code == 404
