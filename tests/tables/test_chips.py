"""The chips a table offers: set per table by the pit boss (audited), offered up to the table's highest
maximum in the player's currency, each on the table page."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from tables.errors import TableError
from tables.limit_sets import limit_set_write
from tables.models import AuditLog, BetLimit
from tables.models.floor import DEFAULT_CHIP_VALUES
from tables.selectors import table_chips
from tables.services import table_rules_update


def test_a_table_offers_its_chips_up_to_its_highest_maximum_in_the_currency(auto_table, pit_boss):
    assert table_chips(table=auto_table, currency="EUR") == list(DEFAULT_CHIP_VALUES)  # banker/player 1,000
    BetLimit.objects.filter(limit_set__table=auto_table, maximum__gt=100).update(maximum=Decimal("100.00"))
    assert table_chips(table=auto_table, currency="EUR") == [1, 5, 10, 25, 100]
    limit_set_write(table=auto_table, currency="USD", max_differential=Decimal("50000.00"))
    BetLimit.objects.filter(limit_set__table=auto_table, limit_set__currency="USD", bet_type="banker").update(
        maximum=Decimal("5000.00")
    )
    table = table_rules_update(
        table=auto_table, actor=pit_boss, changes={"chip_values": [5, 25, 100, 1000, 5000, 10000]}, reason="high limit"
    )
    assert table_chips(table=table, currency="USD") == [5, 25, 100, 1000, 5000]
    assert table_chips(table=table, currency="GBP") == [5, 25, 100, 1000, 5000, 10000]  # no limits: all
    BetLimit.objects.filter(limit_set__table=auto_table, limit_set__currency="EUR").update(maximum=Decimal("2.00"))
    assert table_chips(table=table, currency="EUR") == [5]  # the smallest chip at least
    change = AuditLog.objects.get(action="rules_changed")
    assert (change.before["chip_values"], change.after["chip_values"]) == (
        list(DEFAULT_CHIP_VALUES),
        [5, 25, 100, 1000, 5000, 10000],
    )


@pytest.mark.parametrize(
    "values",
    [[], [5, 1], [1, 1, 5], [0, 5], [-5], [2.5], ["5"], [True], list(range(1, 10)), [2_000_000], {"1": 1}, "1,5"],
)
def test_chip_values_that_are_not_a_list_of_chips_are_refused_and_change_nothing(auto_table, pit_boss, values):
    with pytest.raises(TableError) as refused:
        table_rules_update(table=auto_table, actor=pit_boss, changes={"chip_values": values}, reason="try")
    assert refused.value.code == "invalid_rules" and "'chip_values'" in str(refused.value)
    auto_table.refresh_from_db()
    assert auto_table.chip_values == list(DEFAULT_CHIP_VALUES)
    assert not AuditLog.objects.filter(action="rules_changed").exists()


def test_the_table_page_offers_the_tables_chips_thousands_as_k(auto_table, pit_boss):
    table_rules_update(table=auto_table, actor=pit_boss, changes={"chip_values": [10, 100, 1000]}, reason="evening")
    client = Client()
    client.force_login(get_user_model().objects.create_user(username="chips-player"))
    page = client.get(reverse("play:table", args=[auto_table.code])).content.decode()
    assert page.count('class="chip chip--') == 3
    assert 'data-chip="1000" aria-label="Chip 1000"' in page and ">1K</button>" in page
