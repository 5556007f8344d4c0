"""A partner's bet reads its table and live coup once, in the API's thread, handed to the group commit's batch
as the table page's bets are (``casino.players.intake``): the batch reads them again, once for all, only when
its requests read different coups (one rolled over between their reads): a batch never takes two coups' locks."""

import uuid

import pytest

from partners import bets
from partners.bets import PARTNER_BETS, PartnerBetRequest
from tables.models import Coup
from tables.selectors import table_with_live_coup
from tests.factories import CoupFactory, TableFactory
from tests.partners.conftest import client_for, partner_make, player_make
from wagering.models import Bet

pytestmark = pytest.mark.django_db


@pytest.fixture
def batch_reads(batch_reads_counted) -> list[str]:
    return batch_reads_counted(bets)


def asked(partner, player, read, key: str) -> PartnerBetRequest:
    table, live = read
    stakes = {"player": "10.00"}
    request = {"operation": "bet", "player_id": player.external_id, "table": table.code, "round_id": "", "bets": stakes}
    return PartnerBetRequest(
        partner=partner, player=player, table=table, live=live, stakes=stakes, round_id="", key=key, request=request
    )


def test_a_bet_over_the_api_reads_the_table_and_its_coup_once(batch_reads):
    coup = CoupFactory(table=TableFactory(code="br1"))
    partner = partner_make("reads")
    player_make(partner)
    response = client_for(partner).post(
        "/api/v1/players/p-1/bets/",
        {"table": "br1", "bets": {"banker": "10"}},
        format="json",
        HTTP_IDEMPOTENCY_KEY=uuid.uuid4().hex,
    )
    assert response.status_code == 201 and response.json()["round_id"] == coup.round_id
    assert batch_reads == []  # the view's read, handed over


def test_a_run_that_read_the_same_coup_reads_nothing_again(batch_reads):
    coup = CoupFactory(table=TableFactory(code="br2"))
    partner = partner_make("same")
    players = [player_make(partner, f"p-{index}") for index in range(3)]
    read = table_with_live_coup(code="br2")
    outcomes = PARTNER_BETS.carry_out("br2", [asked(partner, player, read, f"k-{player.pk}") for player in players])
    assert [outcome.placed.balance for outcome in outcomes] == [990, 990, 990]
    assert batch_reads == [] and Bet.objects.filter(coup=coup).count() == 3


@pytest.mark.parametrize("run", [1, 2])
def test_requests_that_read_a_coup_which_rolled_over_are_carried_out_on_the_new_one(batch_reads, run):
    table = TableFactory(code="br3")
    old = CoupFactory(table=table)
    partner = partner_make("rolled")
    stale, fresh = player_make(partner, "p-1"), player_make(partner, "p-2")
    old_read = table_with_live_coup(code="br3")
    Coup.objects.filter(pk=old.pk).update(state=Coup.State.RESOLVED)  # the coup rolls over
    new = CoupFactory(table=table)
    requests = [asked(partner, stale, old_read, "k-1"), asked(partner, fresh, table_with_live_coup(code="br3"), "k-2")]
    outcomes = PARTNER_BETS.carry_out("br3", requests[:run])
    if run == 1:  # alone, on the coup it read: its state is read again under its lock
        assert outcomes[0].code == "betting_closed" and batch_reads == []
    else:
        assert [outcome.placed.batch.coup_id for outcome in outcomes] == [new.pk, new.pk] and batch_reads == ["br3"]
