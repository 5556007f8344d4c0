"""A partner's seamless wallet down, then back: the round settles at once, its credit waits in the wallet
queue and is sent again by a real worker until acknowledged; another table's settlement never waits.

Real workers (settlement, wallet), as in the Procfile, on the test database and Redis.
"""

from __future__ import annotations

import time
from decimal import Decimal

import pytest
from django.utils import timezone

from casino.lifecycle import loop
from partners import seamless, wallet_sending
from partners.models import WalletTransaction
from partners.services import partner_player_create
from partners.wallet_settings import partner_wallet_set
from tables.models import Coup
from tests.faults.test_webhook_starvation import open_table, settled
from tests.partners.conftest import partner_make
from tests.partners.fake_wallet import SECRET, FakeWallet
from tests.processes import wait_until
from wagering.checks import ledger_check
from wagering.placement import bet_batch_place

pytestmark = [pytest.mark.faults, pytest.mark.postgres, pytest.mark.redis, pytest.mark.django_db(transaction=True)]

WORKER_ENV = {"WEBHOOK_ALLOW_PRIVATE_TARGETS": "true"}  # the fake wallet listens on 127.0.0.1


def coup_taking_bets(table) -> Coup:
    while not Coup.objects.filter(table=table, state=Coup.State.BETTING).exists():
        loop.table_step(table_id=table.pk)
    return Coup.objects.get(table=table, state=Coup.State.BETTING)


def resolve(table, coup: Coup) -> None:
    Coup.objects.filter(pk=coup.pk).update(betting_closes_at=timezone.now())
    while loop.table_step(table_id=table.pk).kind is not loop.StepKind.RESOLVED:
        pass


def credit_state(coup: Coup) -> str | None:
    credit = WalletTransaction.objects.filter(coup=coup, kind="credit").first()
    return credit.state if credit is not None else None


def test_a_wallet_down_holds_no_settlement_and_gets_its_credit_when_back(processes, real_worker_tasks, players):
    processes.worker(queues="settlement", **WORKER_ENV)
    processes.worker(queues="wallet", pool="prefork", **WORKER_ENV)
    with FakeWallet({"u-1": "100.00"}) as wallet:
        partner = partner_wallet_set(
            partner=partner_make("acme"), mode="seamless", wallet_url=wallet.url, wallet_secret=SECRET
        )
        player, _ = partner_player_create(partner=partner, external_id="u-1")
        table = open_table("seamless")
        coup = coup_taking_bets(table)
        seamless.seamless_bet_place(player=player, coup=coup, bets={"banker": "10.00", "tie": "1.00"})
        assert wallet.balances["u-1"] == Decimal("89.00")
        wallet.behaviour = "fail"  # down from here: 500 to everything
        resolve(table, coup)
        wait_until(lambda: settled(coup), what="the round settled while the wallet is down", timeout=10)
        wait_until(lambda: credit_state(coup) == "pending", what="its credit recorded, pending")

        other = open_table("elsewhere")
        elsewhere = coup_taking_bets(other)
        bet_batch_place(user=players[0], coup=elsewhere, bets={"player": "20.00"})
        resolve(other, elsewhere)
        wait_until(lambda: settled(elsewhere), what="another table settled meanwhile", timeout=8)

        credit = WalletTransaction.objects.get(coup=coup, kind="credit")
        wait_until(lambda: WalletTransaction.objects.get(pk=credit.pk).attempts >= 2, what="the credit sent again")
        assert credit_state(coup) == "pending"
        wallet.behaviour = "ok"
        back_at = time.monotonic()
        wait_until(lambda: credit_state(coup) == "acknowledged", what="the credit acknowledged once the wallet is back")
        assert time.monotonic() - back_at < wallet_sending.RETRY_MAX_SECONDS
    credit.refresh_from_db()
    returned = Decimal(credit.amount)
    assert wallet.balances["u-1"] == Decimal("89.00") + returned
    assert [body["transaction_id"] for body in wallet.operations("credit")].count(str(credit.transaction_id)) >= 2
    assert ledger_check().ok
