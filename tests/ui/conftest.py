import uuid
from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from tests.factories import CoupFactory, TableFactory, UserFactory
from wagering.wallets import wallet_deposit


def fund(user, amount: str) -> None:
    wallet_deposit(user=user, amount=Decimal(amount), idempotency_key=uuid.uuid4().hex, reason="test")


@pytest.fixture
def player(db):
    user = UserFactory(username="alice")
    fund(user, "1000.00")
    return user


@pytest.fixture
def player_client(client, player):
    client.force_login(player)
    return client


@pytest.fixture
def table(db):
    return TableFactory(code="pb1", name="Punto Banco 1")


@pytest.fixture
def coup(table):
    """The table's live coup, taking bets for another minute."""
    return CoupFactory(table=table, betting_closes_at=timezone.now() + timedelta(minutes=1))
