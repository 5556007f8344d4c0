"""The rules a coup opens with (``table_coup_rules``): the table's limits in each of its currencies, read in one
raw statement, as the models hold them, and as they are when the coup opens (a private coup at each deal)."""

from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from baccarat.rules import BetLimits
from tables.models import BetLimit, LimitSet
from tables.selectors import table_coup_rules
from tests.factories import TableFactory

pytestmark = pytest.mark.django_db


def test_every_currencys_limits_as_the_models_hold_them_in_one_statement():
    table = TableFactory(limits={"tie": ("1.00", "100.00", "500.00")}, max_differential=Decimal("2500.00"))
    usd = LimitSet.objects.create(table=table, currency="USD", max_differential=Decimal("900.50"))
    BetLimit.objects.create(limit_set=usd, bet_type="banker", minimum=Decimal("5"), maximum=Decimal("250.25"))
    LimitSet.objects.create(table=table, currency="GBP")  # its limits not set yet
    TableFactory(limits={"tie": ("9.00", "9.00", None)})  # another table's limits are not these

    with CaptureQueriesContext(connection) as statements:
        rules = table_coup_rules(table=table)

    assert len(statements) == 1
    assert list(rules.currencies) == sorted(rules.currencies) and len(rules.currencies) == 3  # the models' order
    expected = {
        limit_set.currency: (
            limit_set.max_differential,
            {
                limit.bet_type: BetLimits(
                    minimum=limit.minimum, maximum=limit.maximum, table_maximum=limit.table_maximum
                )
                for limit in limit_set.limits.order_by("id")
            },
        )
        for limit_set in table.limit_sets.all()
    }
    assert {
        currency: (limits.max_differential, limits.limits) for currency, limits in rules.currencies.items()
    } == expected
    assert rules.currencies["USD"].limits == {"banker": BetLimits(Decimal("5.00"), Decimal("250.25"), None)}
    assert rules.currencies["GBP"].limits == {}
    assert all(isinstance(limits.max_differential, Decimal) for limits in rules.currencies.values())


def test_a_limit_changed_is_the_next_coups_limit():
    table = TableFactory(limits={"tie": ("1.00", "100.00", "500.00")})
    BetLimit.objects.filter(limit_set__table=table, bet_type="tie").update(maximum=Decimal("50.00"))
    house = table.limit_sets.get().currency
    assert table_coup_rules(table=table).currencies[house].limits["tie"].maximum == Decimal("50.00")
