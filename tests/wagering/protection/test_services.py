"""The protection services: limits with their cooling-off, staff and operators stricter only, breaks that only
lengthen, the operator's exclusion, reality checks, session starts and the calendar periods. Every refusal
leaves the row and the audit log as they were; every change is audited. The clock is moved by patching
``django.utils.timezone.now``, which the services and the bet paths read."""

from __future__ import annotations

from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from decimal import Decimal as D

import pytest
from django.forms.models import model_to_dict
from django.utils import timezone

from casino.lifecycle.settlement import coup_settle
from tables.models import AuditLog
from tests.factories import CoupFactory, TableFactory, UserFactory, coup_deal_and_resolve
from tests.wagering.conftest import fund
from tests.wagering.test_result_resettlement import BANKER_SIX, correct
from wagering.errors import ProtectionRefused
from wagering.models import PlayerProtection
from wagering.placement import bet_batch_place
from wagering.protection.checks import break_refusal, play_refusal
from wagering.protection.periods import period_bounds
from wagering.protection.services import (
    SESSION_LONGEST,
    play_session_start,
    protection_break_take,
    protection_limits_set,
    protection_operator_exclude,
    protection_operator_exclusion_lift,
    protection_reality_check_choose,
    reality_check_answer,
    session_summary,
)
from wagering.protection.standing import player_protection, players_losses

pytestmark = pytest.mark.django_db


@pytest.fixture
def player():
    return UserFactory()


@pytest.fixture
def staff():
    return UserFactory(is_staff=True)


@pytest.fixture
def clock(monkeypatch):
    """``clock.move(timedelta)``: every later ``timezone.now()`` that much later; ``clock.set(datetime)``."""

    class Clock:
        def __init__(self) -> None:
            self.at = timezone.now()
            monkeypatch.setattr(timezone, "now", lambda: self.at)

        def move(self, by: timedelta) -> None:
            self.at += by

        def set(self, at: datetime) -> None:
            self.at = at

    return Clock()


def now_of(player):
    return player_protection(user_id=player.pk, at=timezone.now())


def audits(player) -> list[str]:
    rows = AuditLog.objects.filter(object_type="PlayerProtection", object_id=str(player.pk)).order_by("id")
    return list(rows.values_list("action", flat=True))


def row_state(player) -> dict | None:
    row = PlayerProtection.objects.filter(pk=player.pk).first()
    return None if row is None else model_to_dict(row)


@contextmanager
def refused(player, code: str):
    """The block raises ``ProtectionRefused`` with ``code`` and changes neither the row nor the audit log."""
    before, audited = row_state(player), AuditLog.objects.count()
    with pytest.raises(ProtectionRefused) as error:
        yield error
    assert error.value.code == code, error.value.as_dict()
    assert error.value.message  # said in words
    assert row_state(player) == before and AuditLog.objects.count() == audited


def audited_once(player, action: str):
    """The block writes exactly one audit row for the player, ``action``."""

    @contextmanager
    def block():
        before = audits(player)
        yield
        assert audits(player) == [*before, action]

    return block()


# --- Limits and the cooling-off --------------------------------------------------------------------


@pytest.mark.parametrize("looser", [D("200"), None], ids=["raised", "removed"])
def test_raising_or_removing_a_limit_waits_24_hours_shown_as_pending(player, clock, looser):
    protection_limits_set(user=player, limits={"loss_day": D("100")})
    start = clock.at
    with audited_once(player, "protection_limits_set"):
        protection = protection_limits_set(user=player, limits={"loss_day": looser})
    assert protection.loss == {"day": D("100.00")}
    change = protection.pending["loss_day"]
    assert change["value"] == (None if looser is None else "200.00")
    assert datetime.fromisoformat(change["effective_at"]) == start + timedelta(hours=24)
    clock.move(timedelta(hours=24) - timedelta(seconds=1))
    assert now_of(player).loss == {"day": D("100.00")} and "loss_day" in now_of(player).pending
    clock.move(timedelta(seconds=1))
    assert now_of(player).loss == ({} if looser is None else {"day": D("200.00")})
    assert now_of(player).pending == {}


def test_the_cooling_off_is_the_setting(player, clock, settings):
    settings.PLAYER_LIMIT_COOLING_OFF_HOURS = 72
    protection_limits_set(user=player, limits={"deposit_week": D("100")})
    protection_limits_set(user=player, limits={"deposit_week": D("500")})
    clock.move(timedelta(hours=71))
    assert now_of(player).deposit == {"week": D("100.00")}
    clock.move(timedelta(hours=1))
    assert now_of(player).deposit == {"week": D("500.00")}


def test_lowering_applies_at_once_and_drops_a_pending_raise(player, clock):
    protection_limits_set(user=player, limits={"loss_week": D("100"), "session_minutes": 120})
    protection_limits_set(user=player, limits={"loss_week": D("300"), "session_minutes": 240})
    assert set(now_of(player).pending) == {"loss_week", "session_minutes"}
    protection = protection_limits_set(user=player, limits={"loss_week": D("50")})
    assert protection.loss == {"week": D("50.00")} and set(protection.pending) == {"session_minutes"}
    clock.move(timedelta(hours=25))
    assert now_of(player).loss == {"week": D("50.00")} and now_of(player).session_minutes == 240


def test_a_new_limit_where_there_was_none_applies_at_once(player):
    protection = protection_limits_set(user=player, limits={"deposit_day": D("20"), "session_minutes": 30})
    assert protection.deposit == {"day": D("20.00")} and protection.session_minutes == 30
    assert protection.pending == {}


def test_a_due_pending_change_is_kept_when_another_limit_changes(player, clock):
    protection_limits_set(user=player, limits={"loss_day": D("100")})
    protection_limits_set(user=player, limits={"loss_day": D("200")})
    clock.move(timedelta(hours=25))
    protection = protection_limits_set(user=player, limits={"loss_day": D("150"), "loss_month": D("900")})
    assert protection.loss == {"day": D("150.00"), "month": D("900.00")}  # 150 is stricter than the 200 in force


# --- Staff and operators: stricter only --------------------------------------------------------------


@pytest.mark.parametrize("by", ["staff", "operator"])
@pytest.mark.parametrize("asked", [{"loss_day": D("100.01")}, {"loss_day": None}, {"session_minutes": 61}])
def test_staff_and_operators_may_not_loosen(player, staff, by, asked):
    protection_limits_set(user=player, limits={"loss_day": D("100"), "session_minutes": 60})
    actor = {"actor": staff} if by == "staff" else {"actor_label": "partner:acme"}
    with refused(player, "stricter_only") as error:
        protection_limits_set(user=player, limits={"deposit_day": D("5"), **asked}, **actor)
    assert error.value.details["limit"] in asked  # the stricter deposit_day beside it was not applied either


@pytest.mark.parametrize("by", ["staff", "operator"])
def test_staff_and_operators_make_stricter_at_once_audited_as_themselves(player, staff, by):
    protection_limits_set(user=player, limits={"loss_day": D("100")})
    protection_limits_set(user=player, limits={"loss_day": D("300")})  # the player's raise, pending
    actor = {"actor": staff} if by == "staff" else {"actor_label": "partner:acme"}
    with audited_once(player, "protection_limits_set"):
        protection = protection_limits_set(user=player, limits={"loss_day": D("80"), "loss_week": D("400")}, **actor)
    assert protection.loss == {"day": D("80.00"), "week": D("400.00")} and protection.pending == {}
    entry = AuditLog.objects.filter(object_type="PlayerProtection").first()
    assert entry.actor_label == (staff.get_username() if by == "staff" else "partner:acme")
    assert entry.before == {"loss_day": "100.00", "loss_week": None}
    assert entry.after == {"loss_day": "80.00", "loss_week": "400.00"}


def test_a_player_setting_their_own_limit_as_actor_is_the_player(player):
    protection_limits_set(user=player, limits={"loss_day": D("100")}, actor=player)
    assert "loss_day" in protection_limits_set(user=player, limits={"loss_day": D("200")}, actor=player).pending


# --- Bad input: a clear error, nothing changed ------------------------------------------------------

BAD_LIMITS = [
    ({"loss_day": D("-5")}, "invalid_amount"),
    ({"loss_day": "-5"}, "invalid_amount"),
    ({"loss_day": 0}, "invalid_amount"),
    ({"loss_day": "0.00"}, "invalid_amount"),
    ({"deposit_month": D("1e13")}, "invalid_amount"),
    ({"deposit_month": "9" * 40}, "invalid_amount"),
    ({"loss_week": "0.001"}, "invalid_amount"),
    ({"loss_week": "abc"}, "invalid_amount"),
    ({"loss_week": "NaN"}, "invalid_amount"),
    ({"loss_week": D("Infinity")}, "invalid_amount"),
    ({"loss_week": "1e3"}, "invalid_amount"),
    ({"loss_week": 10.5}, "invalid_amount"),
    ({"loss_week": True}, "invalid_amount"),
    ({"loss_week": ["10"]}, "invalid_amount"),
    ({"session_minutes": 0}, "invalid_limit"),
    ({"session_minutes": -30}, "invalid_limit"),
    ({"session_minutes": 24 * 60 + 1}, "invalid_limit"),
    ({"session_minutes": "30"}, "invalid_limit"),
    ({"session_minutes": 30.0}, "invalid_limit"),
    ({"session_minutes": True}, "invalid_limit"),
    ({"loss_year": D("10")}, "invalid_limit"),
    ({"self_excluded_until": None}, "invalid_limit"),
    ({"operator_excluded_at": None}, "invalid_limit"),
    ({"pending": {}}, "invalid_limit"),
    ({"reality_check_minutes": 15}, "invalid_limit"),
    ({"loss_day": D("10"), "Loss_Day": D("10")}, "invalid_limit"),  # one bad name refuses the whole change
]


@pytest.mark.parametrize(("limits", "code"), BAD_LIMITS, ids=[str(list(limits.items())) for limits, _ in BAD_LIMITS])
def test_bad_limits_are_refused_and_change_nothing(player, limits, code):
    protection_limits_set(user=player, limits={"loss_day": D("100")})
    with refused(player, code):
        protection_limits_set(user=player, limits=limits)


def test_bad_limits_of_a_player_without_protection_make_no_row(player):
    with refused(player, "invalid_amount"):
        protection_limits_set(user=player, limits={"loss_day": "-1"})
    assert row_state(player) is None


@pytest.mark.parametrize("minutes", [0, 45, -15, 15.0, "15", True, None, 600])
def test_the_reality_check_interval_is_15_30_or_60(player, minutes):
    protection_reality_check_choose(user=player, minutes=30)
    with refused(player, "invalid_limit"):
        protection_reality_check_choose(user=player, minutes=minutes)


@pytest.mark.parametrize(
    ("kind", "duration"),
    [
        ("time_out", "6m"),
        ("self_exclusion", "24h"),
        ("time_out", "1h"),
        ("nap", "24h"),
        ("self_exclusion", ""),
        ("time_out", None),
        (None, None),
        ("TIME_OUT", "24h"),
        ("time_out", 24),
    ],
)
def test_a_break_is_one_of_the_offered_durations(player, kind, duration):
    protection_limits_set(user=player, limits={"loss_day": D("100")})
    with refused(player, "invalid_limit"):
        protection_break_take(user=player, kind=kind, duration=duration)


@pytest.mark.parametrize(
    "launch",
    [
        {"reality_check_minutes": 0},
        {"reality_check_minutes": -15},
        {"reality_check_minutes": "15"},
        {"session_limit_minutes": 0},
        {"session_limit_minutes": 24 * 60 + 1},
        {"session_limit_minutes": 1.5},
        {"loss_limit": D("-1")},
        {"loss_limit": 0},
        {"loss_limit": "abc"},
        {"loss_limit": D("1e20")},
    ],
)
def test_a_launch_with_bad_values_is_refused_and_changes_nothing(player, launch):
    play_session_start(user=player)
    code = "invalid_amount" if "loss_limit" in launch else "invalid_limit"
    with refused(player, code):
        play_session_start(user=player, **launch)


# --- Breaks: only lengthened; a self-exclusion cannot be undone -----------------------------------------


@pytest.mark.parametrize(
    ("kind", "long", "short", "field"),
    [("time_out", "6w", "24h", "timed_out_until"), ("self_exclusion", "5y", "6m", "self_excluded_until")],
)
def test_a_break_taken_again_only_lengthens(player, clock, kind, long, short, field):
    until = getattr(protection_break_take(user=player, kind=kind, duration=long), field)
    assert until == clock.at + {"6w": timedelta(weeks=6), "5y": timedelta(days=5 * 365 + 1)}[long]
    clock.move(timedelta(days=1))
    with audited_once(player, f"protection_{kind}"):
        assert getattr(protection_break_take(user=player, kind=kind, duration=short), field) == until
    assert break_refusal(now_of(player)).code == ("timed_out" if kind == "time_out" else "self_excluded")


def test_a_time_out_is_lengthened_by_a_longer_one(player, clock):
    first = protection_break_take(user=player, kind="time_out", duration="24h").timed_out_until
    clock.move(timedelta(hours=1))
    assert protection_break_take(user=player, kind="time_out", duration="7d").timed_out_until > first


def test_a_self_exclusion_cannot_be_undone_before_its_end(player, staff, clock):
    until = protection_break_take(user=player, kind="self_exclusion", duration="6m").self_excluded_until
    for actor in ({}, {"actor": staff}, {"actor_label": "partner:acme"}):
        with refused(player, "invalid_limit"):
            protection_limits_set(user=player, limits={"self_excluded_until": None}, **actor)
    protection_break_take(user=player, kind="time_out", duration="24h")  # a shorter break of another kind
    protection_operator_exclude(user=player, actor_label="partner:acme")
    protection_operator_exclusion_lift(user=player, actor_label="partner:acme")
    play_session_start(user=player, session_limit_minutes=10)
    assert now_of(player).self_excluded_until == until
    clock.set(until - timedelta(seconds=1))
    assert break_refusal(now_of(player)).code == "self_excluded"
    clock.set(until)
    assert break_refusal(now_of(player)) is None  # over at its end, by itself


def test_the_operators_exclusion_lifted_leaves_the_players_own_breaks(player):
    protection_break_take(user=player, kind="time_out", duration="7d")
    with audited_once(player, "protection_operator_excluded"):
        protection_operator_exclude(user=player, actor_label="partner:acme", reason="register")
    assert break_refusal(now_of(player)).code == "self_excluded"
    with audited_once(player, "protection_operator_exclusion_lifted"):
        protection = protection_operator_exclusion_lift(user=player, actor_label="partner:acme")
    assert protection.operator_excluded_at is None and protection.timed_out_until is not None
    assert break_refusal(now_of(player)).code == "timed_out"
    entry = AuditLog.objects.filter(action="protection_operator_excluded").get()
    assert (entry.actor_label, entry.reason) == ("partner:acme", "register")


def test_excluding_again_keeps_the_first_date(player, clock):
    since = protection_operator_exclude(user=player, actor_label="partner:acme").operator_excluded_at
    clock.move(timedelta(days=3))
    assert protection_operator_exclude(user=player, actor_label="partner:acme").operator_excluded_at == since


# --- Reality checks ------------------------------------------------------------------------------------


def test_a_reality_check_is_answered_only_when_due_then_comes_again(player, clock):
    play_session_start(user=player, reality_check_minutes=15)
    with refused(player, "invalid_limit"):
        reality_check_answer(user=player, answer="continue")
    clock.move(timedelta(minutes=15))
    assert play_refusal(now_of(player)).code == "reality_check"
    with audited_once(player, "protection_reality_check_answered"):
        summary = reality_check_answer(user=player, answer="continue")
    assert summary == {"minutes": 15, "staked": "0.00", "returned": "0.00", "net": "0.00"}
    assert now_of(player).reality_check_due_at == clock.at + timedelta(minutes=15)
    assert play_refusal(now_of(player)) is None
    with refused(player, "invalid_limit"):
        reality_check_answer(user=player, answer="continue")  # answered: not due again yet


@pytest.mark.parametrize("answer", ["", "CONTINUE", "stop", None, 1, ["continue"], "continue "])
def test_a_bad_reality_check_answer_is_refused(player, clock, answer):
    play_session_start(user=player, reality_check_minutes=15)
    clock.move(timedelta(minutes=20))
    with refused(player, "invalid_limit"):
        reality_check_answer(user=player, answer=answer)
    assert play_refusal(now_of(player)).code == "reality_check"


def test_without_a_session_or_checks_nothing_is_due(player, settings):
    with refused(player, "invalid_limit"):
        reality_check_answer(user=player, answer="continue")
    settings.PLAYER_REALITY_CHECK_MINUTES = 0
    assert play_session_start(user=player).reality_check_due_at is None


def test_the_summary_counts_the_sessions_stakes_and_returns(player, clock):
    fund(player, "500.00")
    coup = CoupFactory(table=TableFactory())
    bet_batch_place(user=player, coup=CoupFactory(table=TableFactory()), bets={"banker": "40"})  # before: not counted
    clock.move(timedelta(seconds=1))
    play_session_start(user=player, reality_check_minutes=30)
    bet_batch_place(user=player, coup=coup, bets={"player": "100", "tie": "10"})
    coup_deal_and_resolve(coup, "9S 2H KD 3C")  # Player 9: 200 back on the Player bet
    coup_settle(coup_id=coup.pk)
    clock.move(timedelta(minutes=30))
    assert reality_check_answer(user=player, answer="history") == {
        "minutes": 30,
        "staked": "110.00",
        "returned": "200.00",
        "net": "90.00",
    }


def test_the_summary_counts_a_corrected_results_returns_as_the_loss_limits_do(player, bosses):
    fund(player, "500.00")
    play_session_start(user=player)
    coup = CoupFactory(table=TableFactory())
    bet_batch_place(user=player, coup=coup, bets={"player": "100"})
    coup_deal_and_resolve(coup, "9S 2H KD 3C")  # Player 9: 200 back
    coup_settle(coup_id=coup.pk)
    correct(coup, BANKER_SIX, bosses)  # the cards were misread: Banker won, the 200 are taken back

    def summary():
        return session_summary(protection=player_protection(user_id=player.pk, at=timezone.now()))

    assert summary() == {"minutes": 0, "staked": "100.00", "returned": "0.00", "net": "-100.00"}
    protection_limits_set(user=player, limits={"loss_day": D("500")})
    assert players_losses(protections=[now_of(player)])[player.pk] == {"day": D("100.00")}


def test_choosing_an_interval_brings_the_next_check_no_later(player, clock):
    play_session_start(user=player)  # the market's 60
    with audited_once(player, "protection_reality_check_chosen"):
        protection = protection_reality_check_choose(user=player, minutes=15)
    assert protection.reality_check_due_at == clock.at + timedelta(minutes=15)
    clock.move(timedelta(minutes=5))
    assert protection_reality_check_choose(user=player, minutes=60).reality_check_due_at == clock.at + timedelta(
        minutes=10
    )  # the due check stays where it was


# --- Sessions -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("market", "chosen", "launch", "every"),
    [
        (60, None, None, 60),
        (60, 30, None, 30),
        (60, 30, 20, 20),
        (60, None, 45, 45),
        (0, None, None, None),
        (0, 15, None, 15),
    ],
)
def test_reality_checks_come_every_the_launchs_else_the_players_else_the_markets(
    player, clock, settings, market, chosen, launch, every
):
    settings.PLAYER_REALITY_CHECK_MINUTES = market
    if chosen:
        protection_reality_check_choose(user=player, minutes=chosen)
    protection = play_session_start(user=player, reality_check_minutes=launch)
    assert protection.reality_check_every == every
    assert protection.reality_check_due_at == (clock.at + timedelta(minutes=every) if every else None)


@pytest.mark.parametrize(
    ("own", "launch", "minutes"), [(60, 90, 60), (60, 30, 30), (None, 30, 30), (45, None, 45), (None, None, None)]
)
def test_the_shorter_session_limit_wins(player, clock, own, launch, minutes):
    if own:
        protection_limits_set(user=player, limits={"session_minutes": own})
    protection = play_session_start(user=player, session_limit_minutes=launch)
    assert protection.session_started_at == clock.at
    assert protection.session_ends_at == (clock.at + timedelta(minutes=minutes) if minutes else None)
    if minutes:
        clock.move(timedelta(minutes=minutes))
        assert play_refusal(now_of(player)).code == "session_limit"


def test_a_pending_longer_session_limit_is_not_yet_the_players(player, clock):
    protection_limits_set(user=player, limits={"session_minutes": 30})
    protection_limits_set(user=player, limits={"session_minutes": 120})
    assert play_session_start(user=player).session_ends_at == clock.at + timedelta(minutes=30)
    clock.move(timedelta(hours=24))
    assert play_session_start(user=player).session_ends_at == clock.at + timedelta(minutes=120)


def test_a_launchs_loss_limit_lasts_its_session(player):
    protection = play_session_start(user=player, loss_limit=D("50"))
    assert protection.session_loss_limit == D("50.00") and protection.loss_limited
    assert play_session_start(user=player).session_loss_limit == D("50.00")  # signing in again keeps it
    PlayerProtection.objects.filter(pk=player.pk).update(session_started_at=timezone.now() - SESSION_LONGEST)
    assert play_session_start(user=player).session_loss_limit is None  # the next session has its own


def test_signing_in_again_neither_restarts_the_session_nor_dodges_its_reality_check(player):
    """Another device, or a sign-out and in: the running session's start, end and due check stand."""
    first = play_session_start(user=player, session_limit_minutes=60)
    PlayerProtection.objects.filter(pk=player.pk).update(reality_check_due_at=timezone.now() - timedelta(seconds=1))
    again = play_session_start(user=player)
    assert (again.session_started_at, again.session_ends_at) == (first.session_started_at, first.session_ends_at)
    assert again.reality_check_due_at < timezone.now()
    protection_limits_set(user=player, limits={"session_minutes": 5})  # lower: the running session too
    assert PlayerProtection.objects.get(pk=player.pk).session_ends_at == first.session_started_at + timedelta(minutes=5)


# --- Calendar periods ------------------------------------------------------------------------------------


def utc(*args) -> datetime:
    return datetime(*args, tzinfo=UTC)


def test_periods_in_utc(settings):
    settings.PLAYER_PROTECTION_TIME_ZONE = "UTC"
    at = utc(2026, 12, 31, 23, 59, 59)  # a Thursday
    assert period_bounds(period="day", at=at) == (utc(2026, 12, 31), utc(2027, 1, 1))
    assert period_bounds(period="week", at=at) == (utc(2026, 12, 28), utc(2027, 1, 4))
    assert period_bounds(period="month", at=at) == (utc(2026, 12, 1), utc(2027, 1, 1))
    assert period_bounds(period="day", at=utc(2027, 1, 1)) == (utc(2027, 1, 1), utc(2027, 1, 2))
    assert period_bounds(period="week", at=utc(2026, 12, 28)) == (utc(2026, 12, 28), utc(2027, 1, 4))
    assert period_bounds(period="month", at=utc(2028, 2, 15)) == (utc(2028, 2, 1), utc(2028, 3, 1))
    with pytest.raises(ValueError):
        period_bounds(period="year", at=at)


def test_periods_across_the_spring_daylight_saving_change(settings):
    """London, 29 March 2026: clocks go forward at 01:00 UTC; that day has 23 hours, and the periods after it
    start at midnight BST (23:00 UTC)."""
    settings.PLAYER_PROTECTION_TIME_ZONE = "Europe/London"
    at = utc(2026, 3, 29, 12)
    assert period_bounds(period="day", at=at) == (utc(2026, 3, 29), utc(2026, 3, 29, 23))
    assert period_bounds(period="week", at=at) == (utc(2026, 3, 23), utc(2026, 3, 29, 23))  # Monday 23rd
    assert period_bounds(period="month", at=at) == (utc(2026, 3, 1), utc(2026, 3, 31, 23))
    assert period_bounds(period="day", at=utc(2026, 3, 29, 23)) == (utc(2026, 3, 29, 23), utc(2026, 3, 30, 23))


def test_periods_across_the_autumn_change_in_another_zone(settings):
    """New York, 1 November 2026: clocks go back at 06:00 UTC; that day has 25 hours."""
    settings.PLAYER_PROTECTION_TIME_ZONE = "America/New_York"
    at = utc(2026, 11, 1, 20)
    assert period_bounds(period="day", at=at) == (utc(2026, 11, 1, 4), utc(2026, 11, 2, 5))
    assert period_bounds(period="month", at=at) == (utc(2026, 11, 1, 4), utc(2026, 12, 1, 5))
    assert period_bounds(period="week", at=at) == (utc(2026, 10, 26, 4), utc(2026, 11, 2, 5))


def test_a_daily_loss_limit_resets_at_local_midnight_on_the_day_the_clocks_change(player, clock, settings):
    """A bet at 22:30 UTC on 29 March 2026 is 23:30 in London: that day's; at 23:00 UTC a new day begins there."""
    settings.PLAYER_PROTECTION_TIME_ZONE = "Europe/London"
    fund(player, "500.00")
    protection_limits_set(user=player, limits={"loss_day": D("100")})
    clock.set(utc(2026, 3, 29, 22, 30))
    bet_batch_place(user=player, coup=CoupFactory(table=TableFactory()), bets={"banker": "80"})

    def lost_today():
        return players_losses(protections=[now_of(player)])[player.pk]

    clock.set(utc(2026, 3, 29, 22, 59, 59))
    assert lost_today() == {"day": D("80.00")}
    assert now_of(player).loss_windows()["day"][2] == utc(2026, 3, 29, 23)  # resets at
    clock.set(utc(2026, 3, 29, 23))
    assert lost_today() == {"day": D("0.00")}
    bet_batch_place(user=player, coup=CoupFactory(table=TableFactory()), bets={"banker": "100"})
