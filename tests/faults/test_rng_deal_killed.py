"""A process killed (SIGKILL) between a deal's debit and its deal, at a table dealt on demand (issue 30): the
round is either dealt and paid, or given back, never half-written.

The player's own wallet: the debit and the deal are one transaction, so nothing of it stays. A partner's
seamless wallet: the debit was committed and acknowledged before the deal; the periodic sweep rolls it back
(``partners.wallet_sending``) and the partner gets its money back; the request_id answers
``request_in_progress`` (never a second debit). The process stops at that point by ``rng_deal_process``.
"""

from __future__ import annotations

import json
from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from casino.lifecycle.rng import RngDealAsked, rng_coup_deal, rng_shoe_ready
from partners.models import WalletTransaction
from partners.services import partner_player_create
from partners.tasks import wallet_transactions_resend
from partners.wallet_sending import DEBIT_ORPHANED_SECONDS
from partners.wallet_settings import partner_wallet_set
from tables.models import Coup, Shoe, Table
from tests.factories import TableFactory
from tests.faults.conftest import DEPOSIT
from tests.partners.conftest import partner_make
from tests.partners.fake_wallet import SECRET, FakeWallet
from tests.processes import python, subprocess_env
from wagering.checks import ledger_check, settlement_check
from wagering.errors import IdempotencyConflict
from wagering.models import Account, Bet, BetRequest
from wagering.selectors import wallet_balance

pytestmark = [pytest.mark.faults, pytest.mark.django_db(transaction=True)]
BETS = {"banker": "10.00"}


@pytest.fixture
def rng_table(transactional_db) -> Table:
    return TableFactory(code="rng5", name="Deal Your Own 5", dealing_mode=Table.DealingMode.RNG, decks=4)


def killed_after_the_debit(user, commitment: str, request_id: str, *extra: str, **env: str) -> None:
    """Deal in a process of its own, stopped between the debit and the deal, then killed there."""
    process = python(
        "-m",
        "tests.faults.rng_deal_process",
        str(user.pk),
        "rng5",
        commitment,
        request_id,
        json.dumps(BETS),
        *extra,
        env=subprocess_env(**env),
    )
    try:
        process.wait_for_line("paused", timeout=60)
    finally:
        process.kill()


def books_balanced() -> None:
    assert ledger_check().ok
    assert settlement_check().problems == []


def asked(user, table, commitment: str, request_id: str, seamless=None) -> RngDealAsked:
    return RngDealAsked(
        user=user, table=table, bets=BETS, commitment=commitment, request_id=request_id, seamless=seamless
    )


def test_own_wallet_a_deal_killed_after_its_debit_left_nothing(rng_table, players):
    player = players[0]
    shoe = rng_shoe_ready(table=rng_table, player=player)
    killed_after_the_debit(player, shoe.commitment, "k-1")
    assert wallet_balance(user=player) == DEPOSIT
    assert not Coup.objects.filter(player=player).exists() and not Bet.objects.exists()
    assert not BetRequest.objects.exists()  # the request's claim went with its transaction
    assert Shoe.objects.get(pk=shoe.pk).coups_started == 0
    books_balanced()
    answer = rng_coup_deal(asked=asked(player, rng_table, shoe.commitment, "k-1"))  # sent again: dealt once
    assert answer["replayed"] is False and Coup.objects.filter(player=player, state=Coup.State.SETTLED).count() == 1
    assert wallet_balance(user=player) == DEPOSIT - Decimal("10.00") + Decimal(answer["total_returned"])
    books_balanced()


def test_seamless_a_deal_killed_after_its_debit_is_rolled_back_by_the_sweep(rng_table):
    with FakeWallet({"u-1": "100.00"}) as wallet:
        partner = partner_wallet_set(
            partner=partner_make("acme"), mode="seamless", wallet_url=wallet.url, wallet_secret=SECRET
        )
        player, _ = partner_player_create(partner=partner, external_id="u-1")
        commitment = rng_shoe_ready(table=rng_table, player=player.user).commitment
        killed_after_the_debit(player.user, commitment, "k-2", "--seamless", WEBHOOK_ALLOW_PRIVATE_TARGETS="true")

        [debit] = WalletTransaction.objects.all()
        assert (debit.kind, debit.state, debit.batch_id, debit.coup_id) == ("debit", "acknowledged", None, None)
        assert wallet.balances["u-1"] == Decimal("90.00")  # taken by the partner; no coup, no bet of ours
        assert not Coup.objects.filter(player=player.user).exists() and not Bet.objects.exists()
        with pytest.raises(IdempotencyConflict) as again:  # a replay of the request: no second debit
            rng_coup_deal(asked=asked(player.user, rng_table, commitment, "k-2", seamless=player))
        assert again.value.code == "request_in_progress" and WalletTransaction.objects.count() == 1

        assert wallet_transactions_resend() == 0  # not yet: the process may still be on its way
        aged = timezone.now() - timedelta(seconds=DEBIT_ORPHANED_SECONDS + 1)
        WalletTransaction.objects.filter(pk=debit.pk).update(created_at=aged)
        assert wallet_transactions_resend() == 1  # the beat's sweep: the rollback recorded and sent
        [rollback] = WalletTransaction.objects.filter(kind="rollback")
        assert (rollback.rolls_back_id, rollback.amount, rollback.state) == (debit.pk, Decimal("10.00"), "acknowledged")
        [sent] = wallet.operations("rollback")
        assert sent["rolled_back_transaction_id"] == str(debit.transaction_id)
        assert wallet.balances["u-1"] == Decimal("100.00")
        assert wallet_transactions_resend() == 0  # given back once
        assert Account.objects.get(kind=Account.Kind.PARTNER_FLOAT, partner_code="acme").balance == 0
        books_balanced()

        dealt = rng_coup_deal(asked=asked(player.user, rng_table, commitment, "k-3", seamless=player))
        round_transactions = WalletTransaction.objects.filter(coup__round_id=dealt["round_id"]).order_by("pk")
        assert [t.kind for t in round_transactions] == ["debit", "credit"]
        books_balanced()
