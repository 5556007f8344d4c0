"""``kernel.lookups``: a membership test that finds what ``__in`` finds, and on PostgreSQL is one statement text
whatever the number of values (psycopg caches it; a group commit's reads of hundreds of players no longer split
a statement of hundreds of placeholders at every batch)."""

import pytest
from django.db import connection
from django.db.models import F

from kernel.lookups import AnyOf
from tests.factories import UserFactory
from tests.wagering.conftest import postgres_only
from wagering.models import Account
from wagering.wallets import wallet_deposit

pytestmark = pytest.mark.django_db


@pytest.fixture
def wallets():
    users = [UserFactory() for _ in range(4)]
    for user in users:
        wallet_deposit(user=user, amount=5, idempotency_key=f"lookups-{user.pk}", reason="test")
    return [user.pk for user in users]


@pytest.mark.parametrize("chosen", [[], [0], [1, 3], [0, 1, 2, 3]])
def test_any_of_finds_what_in_finds(wallets, chosen):
    ids = [wallets[index] for index in chosen]
    found = Account.objects.filter(AnyOf(F("user_id"), ids)).values_list("user_id", flat=True)
    assert sorted(found) == sorted(Account.objects.filter(user_id__in=ids).values_list("user_id", flat=True))
    assert sorted(found) == sorted(ids)


def test_a_value_is_a_value_not_sql(wallets):
    assert not Account.objects.filter(AnyOf(F("currency"), ["EUR') OR ('1' = '1"])).exists()


@postgres_only
def test_the_statement_is_one_text_whatever_the_number_of_values():
    def compiled(count: int) -> tuple[str, tuple]:
        wallets = Account.objects.filter(AnyOf(F("user_id"), range(count)), kind=Account.Kind.PLAYER)
        return wallets.query.get_compiler(connection=connection).as_sql()

    (one, _), (many, many_params) = compiled(1), compiled(300)
    assert one == many and "= ANY(%s)" in one
    assert list(many_params[0]) == list(range(300))
