"""Responsible gaming on the account page and the reality check's endpoint (issue 31): a player sets limits
(stricter at once, looser after the cooling-off, shown with its time), chooses the reality check, takes a
break after a confirmation; bad input changes nothing; nobody sees or changes another player's; visitors sign in
first, staff and partners' players are refused."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.test import Client
from django.utils import timezone

from kernel.security import LAUNCH_SESSION_KEY
from tables.models import AuditLog
from tests.factories import UserFactory, staff_login
from tests.ui.conftest import fund
from wagering.models import PlayerProtection
from wagering.placement import bet_batch_place
from wagering.protection.services import play_session_start, protection_limits_set

pytestmark = pytest.mark.django_db
URL = "/account/"
CHECK = "/account/reality-check/"


def row_of(user) -> dict | None:
    """The player's protection row as plain values (None: they have none), to show that nothing changed."""
    return PlayerProtection.objects.filter(user=user).values().first()


def protection_audits() -> int:
    return AuditLog.objects.filter(action__startswith="protection_").count()


def test_a_stricter_limit_applies_at_once_a_looser_one_after_the_cooling_off_shown_with_its_time(
    player_client, player, settings
):
    settings.PLAYER_PROTECTION_TIME_ZONE = "Europe/London"
    response = player_client.post(URL, {"form": "loss", "loss-loss_day": "50", "loss-loss_week": ""}, follow=True)
    assert b"Daily loss limit: 50.00 EUR, in force now." in response.content
    assert PlayerProtection.objects.get(user=player).loss_day == Decimal("50.00")

    before = timezone.now()
    response = player_client.post(URL, {"form": "loss", "loss-loss_day": "80.00"}, follow=True)
    row = PlayerProtection.objects.get(user=player)
    assert row.loss_day == Decimal("50.00")
    applies = timezone.datetime.fromisoformat(row.pending["loss_day"]["effective_at"])
    assert before + timedelta(hours=24) <= applies <= timezone.now() + timedelta(hours=24)
    shown = timezone.localtime(applies, timezone.zoneinfo.ZoneInfo("Europe/London")).strftime("%Y-%m-%d %H:%M")
    page = response.content.decode()
    assert f'Changes to 80.00 EUR: applies at <time datetime="{applies.isoformat()}">{shown} GMT</time>' in page
    assert "In force: 50.00 EUR" in page and 'value="50.00"' in page

    # Another group saved, this one left as it stands: its pending change stays, its cooling-off not restarted.
    player_client.post(URL, {"form": "loss", "loss-loss_day": "50.00", "loss-loss_week": "200"})
    row = PlayerProtection.objects.get(user=player)
    assert row.pending["loss_day"]["effective_at"] == applies.isoformat() and row.loss_week == Decimal("200.00")
    player_client.post(URL, {"form": "loss", "loss-loss_day": "80", "loss-loss_week": "200"})  # the pending value
    assert PlayerProtection.objects.get(user=player).pending["loss_day"]["effective_at"] == applies.isoformat()

    # Removing a limit is looser too; a session limit in minutes, stricter at once.
    player_client.post(URL, {"form": "deposit", "deposit-deposit_month": "300"})
    player_client.post(URL, {"form": "deposit", "deposit-deposit_month": ""})
    player_client.post(URL, {"form": "session", "session-session_minutes": "90"})
    row = PlayerProtection.objects.get(user=player)
    assert row.deposit_month == Decimal("300.00") and row.pending["deposit_month"]["value"] is None
    assert row.session_minutes == 90
    page = player_client.get(URL).content.decode()
    assert "Changes to No limit: applies at" in page and "In force: 90 minutes" in page


def test_the_reality_check_and_a_break_taken_only_once_confirmed(player_client, player):
    response = player_client.post(URL, {"form": "reality_check", "minutes": "15"}, follow=True)
    assert b"A reality check will come every 15 minutes." in response.content
    assert PlayerProtection.objects.get(user=player).reality_check_minutes == 15

    response = player_client.post(URL, {"form": "break", "kind": "self_exclusion", "duration": "1y"})
    assert response.status_code == 200 and b"data-break-confirm" in response.content
    assert b"neither you nor our staff can end it sooner" in response.content
    assert PlayerProtection.objects.get(user=player).self_excluded_until is None  # not yet: not confirmed
    player_client.post(URL, {"form": "break", "kind": "self_exclusion", "duration": "1y", "confirmed": "on"})
    until = PlayerProtection.objects.get(user=player).self_excluded_until
    assert timedelta(days=364) < until - timezone.now() <= timedelta(days=365)
    assert b'data-break-in-force="self_exclusion"' in player_client.get(URL).content


@pytest.mark.parametrize(
    "data",
    [
        {"form": "loss", "loss-loss_day": "-5"},
        {"form": "loss", "loss-loss_day": "1e3"},
        {"form": "loss", "loss-loss_day": "10.001"},
        {"form": "loss", "loss-loss_day": "abc"},
        {"form": "deposit", "deposit-deposit_day": "0"},
        {"form": "session", "session-session_minutes": "0"},
        {"form": "session", "session-session_minutes": "100000"},
        {"form": "reality_check", "minutes": "45"},
        {"form": "break", "kind": "time_out", "duration": "1y", "confirmed": "on"},
        {"form": "break", "kind": "forever", "duration": "5y", "confirmed": "on"},
    ],
)
def test_bad_input_is_refused_in_words_and_changes_nothing(player_client, player, data):
    protection_limits_set(user=player, limits={"loss_day": Decimal("50"), "deposit_day": Decimal("20")})
    before, audits = row_of(player), protection_audits()
    response = player_client.post(URL, data)
    assert response.status_code == 400
    assert b'class="form-error"' in response.content
    assert row_of(player) == before and protection_audits() == audits


def test_an_unknown_form_is_a_bad_request(player_client, player):
    before = row_of(player)  # the sign-in started a session
    assert player_client.post(URL, {"form": "loss_day", "loss_day": "1"}).status_code == 400
    assert row_of(player) == before


def test_another_players_protection_is_never_shown_nor_changed(player_client, player, coup):
    bob = UserFactory(username="bob")
    fund(bob, "100.00")
    bet_batch_place(user=player, coup=coup, bets={"player": "5"})
    protection_limits_set(user=bob, limits={"loss_day": Decimal("77.77")})
    protection_limits_set(user=bob, limits={"loss_day": Decimal("99.99")})  # pending
    play_session_start(user=bob)
    bet_batch_place(user=bob, coup=coup, bets={"banker": "40"})
    bob_before = row_of(bob)
    page = player_client.get(URL).content.decode()
    assert "77.77" not in page and "99.99" not in page
    # A form names no player: whatever is posted, only the signed-in player's row moves.
    player_client.post(URL, {"form": "loss", "loss-loss_day": "10", "user": str(bob.pk), "user_id": str(bob.pk)})
    assert row_of(bob) == bob_before and PlayerProtection.objects.get(user=player).loss_day == Decimal("10.00")
    answer = player_client.get(CHECK).json()
    assert answer["session_summary"]["staked"] == "5.00"  # the player's own bets only
    assert answer["protection"]["reality_check_due_at"] != bob_before["reality_check_due_at"].isoformat()


def test_visitors_sign_in_first_staff_and_partners_players_are_refused(client, player):
    assert client.get(URL).status_code == 302
    assert client.post(URL, {"form": "loss", "loss-loss_day": "10"}).status_code == 302
    assert client.get(CHECK).status_code == 401 and client.get(CHECK).json()["error"]["code"] == "not_signed_in"
    assert client.post(CHECK, {"answer": "continue"}, content_type="application/json").status_code == 401

    staff = UserFactory(username="pitboss", is_staff=True)
    staff_login(client, staff)
    assert client.post(URL, {"form": "loss", "loss-loss_day": "10"}).status_code == 403
    assert client.get(CHECK).json()["error"]["code"] == "staff_account"
    assert not PlayerProtection.objects.exists()

    launched = Client()
    launched.force_login(player)
    session = launched.session
    session[LAUNCH_SESSION_KEY] = {"partner_name": "Partner"}
    session.save()
    before = row_of(player)  # the sign-in started a session
    page = launched.get(URL)
    assert page.status_code == 200 and b"data-responsible-gaming" not in page.content
    assert launched.post(URL, {"form": "loss", "loss-loss_day": "10"}).status_code == 403
    assert row_of(player) == before


def test_changes_need_the_csrf_token(player):
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(player)
    before = row_of(player)
    assert strict.post(URL, {"form": "loss", "loss-loss_day": "10"}).status_code == 403
    assert strict.post(CHECK, {"answer": "continue"}, content_type="application/json").status_code == 403
    assert row_of(player) == before


def test_a_due_reality_check_shows_the_session_and_is_answered_once(player_client, player):
    play_session_start(user=player)
    assert player_client.get(CHECK).json()["session_summary"] == {
        "minutes": 0,
        "staked": "0.00",
        "returned": "0.00",
        "net": "0.00",
    }
    refused = player_client.post(CHECK, {"answer": "continue"}, content_type="application/json")
    assert refused.status_code == 400 and refused.json()["error"]["code"] == "invalid_limit"  # none due yet

    due = timezone.now() - timedelta(seconds=1)
    PlayerProtection.objects.filter(user=player).update(
        reality_check_due_at=due, session_started_at=timezone.now() - timedelta(minutes=61)
    )
    for body in ({"answer": "maybe"}, {"answer": ["continue"]}, {}):
        response = player_client.post(CHECK, body, content_type="application/json")
        assert response.status_code == 400
    assert player_client.post(CHECK, "continue", content_type="application/json").status_code == 400
    assert player_client.get(CHECK).status_code == 200  # reading it answers nothing
    assert PlayerProtection.objects.get(user=player).reality_check_due_at == due

    answer = player_client.post(CHECK, {"answer": "continue"}, content_type="application/json").json()
    assert answer["session_summary"]["minutes"] == 61 and answer["currency"] == "EUR"
    next_due = PlayerProtection.objects.get(user=player).reality_check_due_at
    assert timedelta(minutes=59) < next_due - timezone.now() <= timedelta(minutes=60)
    assert answer["protection"]["reality_check_due_at"] == next_due.isoformat()
    assert AuditLog.objects.filter(action="protection_reality_check_answered").count() == 1
    again = player_client.post(CHECK, {"answer": "continue"}, content_type="application/json")
    assert again.status_code == 400 and PlayerProtection.objects.get(user=player).reality_check_due_at == next_due
