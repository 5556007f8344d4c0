"""Partner requests at once on PostgreSQL: one idempotency key moves money once, one player id makes one player."""

from decimal import Decimal

import pytest

from casino.partner_api.deal import partner_coup_deal, partner_shoe_ready
from partners import services as partner_services
from partners.models import PartnerPlayer
from tables.models import Coup
from tests.factories import TableFactory
from tests.partners.conftest import partner_make, player_make
from tests.wagering.conftest import postgres_only
from tests.wagering.test_concurrency import all_at_once
from wagering.checks import ledger_check
from wagering.errors import WalletRejected
from wagering.models import LedgerTransaction
from wagering.selectors import wallet_balance

pytestmark = [postgres_only, pytest.mark.django_db(transaction=True)]


def test_the_same_key_sent_many_times_at_once_deposits_once():
    partner = partner_make("acme")
    player = player_make(partner, "p-1", balance="0")

    def deposit(index):
        return partner_services.partner_wallet_deposit(
            partner=partner, player=player, amount="25.00", idempotency_key="retry-storm"
        )

    results = all_at_once(8, deposit)
    assert {result.transaction.pk for result in results} == {results[0].transaction.pk}
    assert sorted(result.replayed for result in results) == [False] + [True] * 7
    assert wallet_balance(user=player.user) == Decimal("25.00")
    assert LedgerTransaction.objects.filter(kind="deposit").count() == 1
    assert ledger_check().ok


def test_withdrawals_at_once_never_overdraw_the_wallet():
    partner = partner_make("acme")
    player = player_make(partner, "p-1", balance="100.00")

    def withdraw(index):
        return partner_services.partner_wallet_withdraw(
            partner=partner, player=player, amount="30.00", idempotency_key=f"wd-{index}"
        )

    results = all_at_once(6, withdraw)
    refused = [result for result in results if isinstance(result, WalletRejected)]
    assert len(refused) == 3 and {error.code for error in refused} == {"insufficient_funds"}
    assert wallet_balance(user=player.user) == Decimal("10.00")
    assert ledger_check().ok


def test_one_player_id_created_many_times_at_once_is_one_player():
    partner = partner_make("acme")
    results = all_at_once(6, lambda index: partner_services.partner_player_create(partner=partner, external_id="u-7"))
    assert not [result for result in results if isinstance(result, Exception)]
    assert len({player.pk for player, _ in results}) == 1
    assert sorted(created for _, created in results) == [False] * 5 + [True]
    assert PartnerPlayer.objects.filter(external_id="u-7").count() == 1


def test_one_deal_sent_many_times_at_once_deals_one_coup():
    """A table dealt on demand (issue 30): a retry storm of one Idempotency-Key is one coup, one answer."""
    partner = partner_make("acme")
    player = player_make(partner, "p-1", balance="100.00")
    table = TableFactory(code="rng5", dealing_mode="rng", decks=4)
    commitment = partner_shoe_ready(partner=partner, player=player, table=table)["commitment"]

    def deal(index):
        return partner_coup_deal(
            partner=partner,
            player=player,
            table=table,
            bets={"banker": Decimal("10.00")},
            commitment=commitment,
            idempotency_key="deal-storm",
        )

    results = all_at_once(6, deal)
    assert not [result for result in results if isinstance(result, Exception)], results
    assert len({answer["round_id"] for answer, _ in results}) == 1
    assert sorted(result.replayed for _, result in results) == [False] + [True] * 5
    assert Coup.objects.filter(player=player.user).count() == 1
    assert wallet_balance(user=player.user) == Decimal(results[0][0]["balance"])
    assert ledger_check().ok
