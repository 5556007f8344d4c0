"""A bet request's table and live coup are read once: by the HTTP request's own thread, handed to the intake's
batch in its ``IntakeRequest``; by the batch, once for all, when one came without (a socket's) or when its
requests read different coups (one rolled over between their reads): a batch never takes two coups' locks."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from casino.players import intake
from casino.players.intake import IntakeRequest, bet_request_submit
from tables.models import Coup
from tables.selectors import table_with_live_coup
from tests.casino.test_intake import Batches, players
from tests.factories import CoupFactory, TableFactory
from wagering.models import Bet
from wagering.selectors import wallet_balance

pytestmark = pytest.mark.django_db(transaction=True)
D = Decimal


@pytest.fixture
def batch_reads(batch_reads_counted) -> list[str]:
    return batch_reads_counted(intake)


@pytest.fixture
def table(settings):
    settings.BET_INTAKE_GROUP_COMMIT = True
    return TableFactory(code="gc1")


def betting(table) -> Coup:
    return CoupFactory(table=table, betting_closes_at=timezone.now() + timedelta(minutes=5))


def asked(user, read, **fields) -> IntakeRequest:
    table, live = read
    bets = {"player": "10"}
    return IntakeRequest(user=user, table_code="gc1", kind="bet", bets=bets, table=table, live=live, **fields)


def test_a_batch_of_requests_that_read_the_same_coup_reads_nothing_again(table, batch_reads, monkeypatch):
    coup = betting(table)
    users = players(3)
    read = table_with_live_coup(code="gc1")
    batches = Batches(monkeypatch)
    futures = [batches.first(asked(users[0], read))] + [bet_request_submit(asked(user, read)) for user in users[1:]]
    batches.release()
    assert [future.result(timeout=10).balance for future in futures] == ["90.00"] * 3
    assert batch_reads == [] and batches.sizes == [1, 2]
    assert Bet.objects.filter(coup=coup).count() == 3


def test_a_socket_request_in_the_batch_makes_it_read_once_for_all(table, batch_reads, monkeypatch):
    betting(table)
    first, http, socket = players(3)
    read = table_with_live_coup(code="gc1")
    batches = Batches(monkeypatch)
    alone = batches.first(asked(first, read))
    together = [
        bet_request_submit(asked(http, read)),
        bet_request_submit(IntakeRequest(user=socket, table_code="gc1", kind="bet", bets={"player": "10"})),
    ]
    batches.release()
    assert [future.result(timeout=10).balance for future in (alone, *together)] == ["90.00"] * 3
    assert batch_reads == ["gc1"]  # the second batch's, once for its two requests


def test_requests_that_read_a_coup_which_rolled_over_are_carried_out_on_the_new_one_with_the_others(
    table, batch_reads, monkeypatch
):
    old = betting(table)
    first, stale, named_old, fresh = players(4)
    old_read = table_with_live_coup(code="gc1")
    batches = Batches(monkeypatch)
    alone = batches.first(asked(first, old_read))
    Coup.objects.filter(pk=old.pk).update(state=Coup.State.RESOLVED)  # the coup rolls over
    new = betting(table)
    new_read = table_with_live_coup(code="gc1")
    together = [
        bet_request_submit(asked(stale, old_read)),
        bet_request_submit(asked(named_old, old_read, round_id=old.round_id)),
        bet_request_submit(asked(fresh, new_read, round_id=new.round_id)),
    ]
    batches.release()
    assert alone.exception(timeout=10).code == "betting_closed"  # its coup's state, read again under its lock
    assert together[0].result(timeout=10).round_id == new.round_id
    assert together[1].exception(timeout=10).code == "round_changed"
    assert together[2].result(timeout=10).round_id == new.round_id
    assert batch_reads == ["gc1"]  # the second batch read once: its requests had read two coups
    assert set(Bet.objects.values_list("coup_id", "user_id")) == {(new.pk, stale.pk), (new.pk, fresh.pk)}
    assert wallet_balance(user=named_old) == wallet_balance(user=first) == D("100.00")


def test_requests_that_all_read_a_coup_since_finished_are_refused_betting_closed(table, batch_reads, monkeypatch):
    old = betting(table)
    users = players(2)
    old_read = table_with_live_coup(code="gc1")
    Coup.objects.filter(pk=old.pk).update(state=Coup.State.RESOLVED)
    betting(table)
    futures = [bet_request_submit(asked(user, old_read)) for user in users]
    assert [future.exception(timeout=10).code for future in futures] == ["betting_closed"] * 2
    assert not Bet.objects.exists() and batch_reads == []


def test_the_read_gives_the_orms_values_and_reads_any_other_field_when_asked(table):
    coup = betting(table)
    read_table, live = table_with_live_coup(code="gc1")
    stored = Coup.objects.select_related("table").get(pk=coup.pk)
    for field in Coup._meta.concrete_fields:
        assert getattr(live, field.attname) == getattr(stored, field.attname), field.name  # deferred: read now
    assert live.table is read_table and read_table.decks == stored.table.decks and read_table.name == stored.table.name
    Coup.objects.filter(pk=coup.pk).update(state=Coup.State.SETTLED)
    assert table_with_live_coup(code="gc1") == (stored.table, None)
    assert table_with_live_coup(code="nope") == (None, None)
