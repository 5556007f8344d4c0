"""Property: whatever players do, no money is lost or created.

Hypothesis generates sequences of deposits, withdrawals, batches of bets, undos, removes,
rebets, settlements (with random cards) and voids. After every sequence each ledger
transaction sums to zero, every balance is the sum of its legs, no wallet is negative, and
the players hold exactly what was deposited, less what was withdrawn and what the house won.
"""

import contextlib
from decimal import Decimal

import pytest
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from baccarat.cards import deck
from baccarat.coup import CoupDeal
from casino.lifecycle.settlement import coup_settle
from tables.models import Coup
from tests.factories import CoupFactory, TableFactory, UserFactory, coup_deal_and_resolve
from wagering.cancellation import bet_batch_undo, bet_remove_all, coup_bets_refund
from wagering.checks import ledger_check
from wagering.errors import BetRejected, WalletRejected
from wagering.models import Account, Bet
from wagering.placement import bet_batch_place, bet_rebet
from wagering.selectors import coup_bet_totals
from wagering.wallets import wallet_deposit, wallet_withdraw

PLAYERS = 3
CARD_CODES = [card.code for card in deck()]
amounts = st.decimals(min_value=Decimal("0.01"), max_value=Decimal("3000"), places=2)
# A little over each bet type's maximum, so that some batches are refused.
STAKE_CAPS = {"player": 1100, "banker": 1100, "tie": 110, "player_pair": 55, "banker_pair": 55}


def stakes(cap: int):
    return st.one_of(
        st.integers(min_value=1, max_value=cap).map(Decimal),
        st.decimals(min_value=Decimal("0.50"), max_value=Decimal(cap), places=2),
    )


batches = st.lists(
    st.sampled_from(list(STAKE_CAPS)).flatmap(
        lambda bet_type: st.tuples(st.just(bet_type), stakes(STAKE_CAPS[bet_type]))
    ),
    min_size=1,
    max_size=3,
).map(dict)
player = st.integers(min_value=0, max_value=PLAYERS - 1)
ARGUMENTS = {
    "bet": (player, batches),
    "deposit": (player, amounts),
    "withdraw": (player, amounts),
    "undo": (player,),
    "remove": (player,),
    "rebet": (player, st.sampled_from([1, 2])),
    "settle": (st.lists(st.sampled_from(CARD_CODES), min_size=6, max_size=6),),
    "void": (),
}
WEIGHTED = ["bet"] * 6 + ["settle"] * 2 + ["deposit", "withdraw", "undo", "remove", "rebet", "void"]
operations = st.lists(
    st.sampled_from(WEIGHTED).flatmap(lambda name: st.tuples(st.just(name), *ARGUMENTS[name])),
    min_size=10,
    max_size=60,
)


def dealt(cards: list[str]) -> str:
    """As many of the cards as the coup takes."""
    deal = CoupDeal()
    for code in cards:
        if deal.complete:
            break
        deal.add(next(card for card in deck() if card.code == code))
    return " ".join(card.code for _, card in deal.order)


class Casino:
    def __init__(self):
        self.table = TableFactory(max_differential=Decimal("800.00"))
        self.users = [UserFactory() for _ in range(PLAYERS)]
        self.coup = CoupFactory(table=self.table)
        self.deposited = self.withdrawn = Decimal("0.00")
        self.keys = 0
        for index in range(PLAYERS):
            self.deposit(index, Decimal("2000.00"))

    def key(self) -> str:
        self.keys += 1
        return f"key-{self.keys}"

    def run(self, operation) -> None:
        name, *args = operation
        with contextlib.suppress(BetRejected, WalletRejected):  # refusals are part of the game
            getattr(self, name)(*args)

    def deposit(self, index, amount):
        wallet_deposit(user=self.users[index], amount=amount, idempotency_key=self.key())
        self.deposited += amount

    def withdraw(self, index, amount):
        wallet_withdraw(user=self.users[index], amount=amount, idempotency_key=self.key())
        self.withdrawn += amount

    def bet(self, index, bets):
        bet_batch_place(user=self.users[index], coup=self.coup, bets=bets)

    def undo(self, index):
        bet_batch_undo(user=self.users[index], coup=self.coup)

    def remove(self, index):
        bet_remove_all(user=self.users[index], coup=self.coup)

    def rebet(self, index, multiplier):
        bet_rebet(user=self.users[index], coup=self.coup, multiplier=multiplier)

    def settle(self, cards):
        coup_deal_and_resolve(self.coup, dealt(cards))
        coup_settle(coup_id=self.coup.pk)
        self.coup = CoupFactory(table=self.table)

    def void(self):
        coup_bets_refund(coup=self.coup)
        Coup.objects.filter(pk=self.coup.pk).update(state=Coup.State.VOID)
        self.coup = CoupFactory(table=self.table)


def accepted_stakes(coup) -> dict[str, Decimal]:
    stakes: dict[str, Decimal] = {}
    for bet in Bet.objects.filter(coup=coup, state=Bet.State.ACCEPTED):
        stakes[bet.bet_type] = stakes.get(bet.bet_type, Decimal("0.00")) + bet.stake
    return stakes


def balance(kind) -> Decimal:
    return sum(Account.objects.filter(kind=kind).values_list("balance", flat=True), Decimal("0.00"))


@pytest.mark.django_db
@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(operations=operations, last_cards=st.lists(st.sampled_from(CARD_CODES), min_size=6, max_size=6))
def test_money_is_never_lost_or_created(operations, last_cards):
    with transaction.atomic():
        casino = Casino()
        for operation in operations:
            casino.run(operation)
            assert (
                balance(Account.Kind.PLAYER) + balance(Account.Kind.BETS_IN_PLAY) + balance(Account.Kind.HOUSE)
                == casino.deposited - casino.withdrawn
            )
            assert coup_bet_totals(coup=casino.coup) == accepted_stakes(casino.coup)  # the running totals
        casino.settle(last_cards)
        check = ledger_check()
        assert check.ok, check
        assert not Account.objects.filter(kind=Account.Kind.PLAYER, balance__lt=0).exists()
        assert balance(Account.Kind.BETS_IN_PLAY) == 0
        house_win = balance(Account.Kind.HOUSE)
        assert balance(Account.Kind.PLAYER) == casino.deposited - casino.withdrawn - house_win
        assert balance(Account.Kind.PARTNER_FLOAT) == casino.withdrawn - casino.deposited
        transaction.set_rollback(True)
