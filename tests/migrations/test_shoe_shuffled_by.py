"""tables/0019: a sealed preliminary shoe recorded before "who shuffled" existed says it was not recorded (seed
000 §2.1.1: shuffled in the preparation zone, not by the dealer who recorded it), so a cut cancelled on it can
be made again; a table shuffle and an RNG shoe name nobody."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from tables.models import Shoe
from tables.services import table_create, table_open
from tables.shoes import shoe_prepare
from tests.factories import physical_shoe_start

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.database_owner]  # migrates: as the owner
BEFORE, AFTER = ("tables", "0018_pits"), ("tables", "0019_shoe_shuffled_by")


def migrate(target: tuple[str, str]) -> None:
    executor = MigrationExecutor(connection)
    executor.migrate([target])


def test_sealed_shoes_recorded_before_say_who_shuffled_was_not_recorded(auto_table, pit_boss):
    dealer_tables = [
        table_open(table=table_create(code=code, name=code, actor=pit_boss, dealing_mode="dealer"), actor=pit_boss)
        for code in ("d1", "d2")
    ]
    sealed = physical_shoe_start(table=dealer_tables[0], actor=pit_boss, burn_card="5H", seal_number="S-1")
    at_the_table = physical_shoe_start(table=dealer_tables[1], actor=pit_boss, burn_card="5H")
    rng = shoe_prepare(table=auto_table, actor=pit_boss)

    migrate(BEFORE)
    migrate(AFTER)

    shuffled_by = dict(Shoe.objects.values_list("pk", "shuffled_by"))
    assert shuffled_by.pop(sealed.pk) == "not recorded (prepared before the shuffler was named)"
    assert {at_the_table.pk, rng.pk} <= set(shuffled_by) and set(shuffled_by.values()) == {""}
