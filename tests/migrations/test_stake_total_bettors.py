"""wagering/0023: the coups' running stake totals gain their bettor counts, filled from the bets standing (placed,
not cancelled): a player counts once per bet type however many batches, and not on a type they undid."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from tests.factories import CoupFactory
from tests.wagering.conftest import funded
from wagering.cancellation import bet_batch_undo
from wagering.models import CoupStakeTotal
from wagering.placement import bet_batch_place

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.database_owner]  # migrates: as the owner
BEFORE, AFTER = ("wagering", "0022_ledger_roots_inserts_checked"), ("wagering", "0023_stake_total_bettors")


def migrate(target: tuple[str, str]) -> None:
    MigrationExecutor(connection).migrate([target])


def test_the_bettors_are_counted_from_the_bets_standing():
    coup = CoupFactory()
    ann, bob = funded(), funded()
    bet_batch_place(user=ann, coup=coup, bets={"banker": "10"})
    bet_batch_place(user=ann, coup=coup, bets={"banker": "5", "tie": "1"})
    bet_batch_place(user=bob, coup=coup, bets={"banker": "20", "player_pair": "2"})
    bet_batch_place(user=bob, coup=coup, bets={"tie": "1"})
    bet_batch_undo(user=bob, coup=coup)
    counted = sorted(CoupStakeTotal.objects.values_list("bet_type", "bettors"))

    migrate(BEFORE)
    migrate(AFTER)

    assert sorted(CoupStakeTotal.objects.values_list("bet_type", "bettors")) == counted
    assert counted == [("banker", 2), ("player_pair", 1), ("tie", 1)]
