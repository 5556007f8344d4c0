"""Game-history jobs: the per-table-day and per-shoe drop/win reports, idempotent, and their beat entries."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from casino import celery_app
from casino.lifecycle.settlement import coup_settle
from tables.models import Coup
from tests.factories import CoupFactory, ShoeFactory, UserFactory, coup_deal_and_resolve
from tests.wagering.conftest import fund
from wagering import tasks
from wagering.beat import BEAT_SCHEDULE
from wagering.cancellation import coup_bets_refund
from wagering.models import ShoeReport, TableDayReport
from wagering.placement import bet_batch_place
from wagering.reports import table_day_report_build

D = Decimal
PLAYER_NATURAL_9 = "9S 2H KD 3C"
BANKER_SIX = "TS 6H 2D KC 2S"
TIE = "8S 8H 8D 8C"


@pytest.fixture
def played_day(table):
    """Three coups played at the table today (a player win, a banker win, a tie) and one void."""
    alice, bob = UserFactory(), UserFactory()
    fund(alice, "1000")
    fund(bob, "1000")
    for cards, alice_bets, bob_bets in [
        (PLAYER_NATURAL_9, {"player": "100"}, {"banker": "50"}),  # alice +100, bob -50
        (BANKER_SIX, {"banker": "100"}, {"tie": "10"}),  # alice +95, bob -10
        (TIE, {"player": "20", "tie": "5"}, {}),  # push, +40
    ]:
        coup = CoupFactory(table=table)
        bet_batch_place(user=alice, coup=coup, bets=alice_bets)
        if bob_bets:
            bet_batch_place(user=bob, coup=coup, bets=bob_bets)
        coup_deal_and_resolve(coup, cards)
        coup_settle(coup_id=coup.pk)
    void = CoupFactory(table=table)
    bet_batch_place(user=bob, coup=void, bets={"player": "300"})
    coup_bets_refund(coup=void)
    Coup.objects.filter(pk=void.pk).update(state=Coup.State.VOID)
    return table


EXPECTED = {
    "coups": 3,
    "void_coups": 1,
    "player_wins": 1,
    "banker_wins": 1,
    "ties": 1,
    "bets": 6,
    "players": 2,
    "staked": D("285.00"),  # 100 + 50 + 100 + 10 + 20 + 5
    "returned": D("460.00"),  # 200 + 195 + 20 + 45
    "house_win": D("-175.00"),
    "hold_percent": D("-61.40"),
}


def report_values(report) -> dict:
    return {field: getattr(report, field) for field in EXPECTED}


def test_the_table_day_report_is_the_drop_and_win_of_the_day(played_day):
    [report] = table_day_report_build(table_id=played_day.pk, day=timezone.now().date())
    assert report_values(report) == EXPECTED


def test_report_jobs_can_run_again_and_catch_up(played_day):
    today = timezone.now().date()
    tasks.table_day_report_build.delay(played_day.pk, today.isoformat())
    tasks.table_day_report_build.delay(played_day.pk, today.isoformat())
    assert TableDayReport.objects.count() == 1
    assert report_values(TableDayReport.objects.get()) == EXPECTED
    # A coup of yesterday is in yesterday's report only.
    Coup.objects.filter(table=played_day, winner="tie").update(opened_at=timezone.now() - timedelta(days=1))
    tasks.table_day_report_build.delay(played_day.pk, today.isoformat())
    tasks.table_day_report_build.delay(played_day.pk, (today - timedelta(days=1)).isoformat())
    reports = {report.day: report for report in TableDayReport.objects.all()}
    assert (reports[today].coups, reports[today].ties, reports[today].staked) == (2, 0, D("260.00"))
    assert (reports[today - timedelta(days=1)].coups, reports[today - timedelta(days=1)].staked) == (1, D("25.00"))


def test_the_shoe_report(played_day):
    shoe = played_day.shoes.get()
    tasks.shoe_report_build.delay(shoe.pk)
    tasks.shoe_report_build.delay(shoe.pk)
    assert report_values(ShoeReport.objects.get(shoe=shoe)) == EXPECTED


def test_a_day_without_stakes_has_no_hold(table):
    coup = CoupFactory(table=table)
    coup_deal_and_resolve(coup, BANKER_SIX)
    coup_settle(coup_id=coup.pk)
    [report] = table_day_report_build(table_id=table.pk, day=timezone.now().date())
    assert (report.coups, report.banker_wins, report.staked, report.hold_percent) == (1, 1, D("0.00"), None)


def test_the_daily_job_builds_every_table_and_shoe_of_the_day(played_day):
    other = ShoeFactory()
    CoupFactory(table=other.table)
    tasks.day_reports_build.delay()
    tasks.day_reports_build.delay(day_iso=timezone.now().date().isoformat())
    assert TableDayReport.objects.count() == 2 and ShoeReport.objects.count() == 2
    assert report_values(TableDayReport.objects.get(table=played_day)) == EXPECTED
    tasks.day_reports_build.delay(days_ago=1)
    assert TableDayReport.objects.count() == 2


def test_the_beat_schedule_names_registered_tasks():
    for entry in BEAT_SCHEDULE.values():
        assert entry["task"] in celery_app.tasks
