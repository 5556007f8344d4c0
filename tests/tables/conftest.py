import pytest
from django.contrib.auth import get_user_model

from tables.services import table_create, table_open


@pytest.fixture
def pit_boss(db):
    return get_user_model().objects.create_user(username="boss", password="x", is_staff=True)


@pytest.fixture
def auto_table(db, pit_boss):
    table = table_create(code="t1", name="Test 1", actor=pit_boss, betting_seconds=5)
    return table_open(table=table, actor=pit_boss)


@pytest.fixture
def dealer_table(db, pit_boss):
    table = table_create(code="d1", name="Dealer 1", actor=pit_boss, dealing_mode="dealer")
    return table_open(table=table, actor=pit_boss)
