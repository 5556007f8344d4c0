"""``settlement_check``, the after-faults audit: silent on a sound floor, and it names what is wrong."""

from decimal import Decimal as D

import pytest

from casino.lifecycle.settlement import coup_settle
from tables.models import Coup, DealtCard
from tests.factories import CoupFactory, coup_deal_and_resolve
from tests.wagering.conftest import ledger_tampered
from tests.wagering.test_settlement import PLAYER_NATURAL_9, bettor
from wagering.checks import settlement_check
from wagering.models import Account, Bet

pytestmark = pytest.mark.django_db


@pytest.fixture
def settled_coup():
    coup = CoupFactory()
    bettor(coup, {"player": "100"})
    bettor(coup, {"banker": "50", "tie": "5"})
    coup_deal_and_resolve(coup, PLAYER_NATURAL_9)
    coup_settle(coup_id=coup.pk)
    return coup


def test_a_settled_floor_has_no_problem(settled_coup):
    check = settlement_check()
    assert check.problems == []
    assert check.coups == {Coup.State.SETTLED: 1}
    assert check.bets == {Bet.State.SETTLED: 3}


def test_a_coup_awaiting_settlement_is_a_problem_only_when_all_should_be_finished(settled_coup):
    coup = CoupFactory(table=settled_coup.table)
    bettor(coup, {"player": "10"})
    coup_deal_and_resolve(coup, PLAYER_NATURAL_9)
    assert settlement_check(finished=False).problems == []
    assert settlement_check().problems == [f"coups neither settled nor void: {settlement_check().coups}"]


@pytest.mark.books_broken_on_purpose
def test_an_open_bet_on_a_settled_coup_is_named(settled_coup):
    bet = Bet.objects.filter(coup=settled_coup).first()
    bet.settlement.delete()
    Bet.objects.filter(pk=bet.pk).update(state=Bet.State.ACCEPTED)
    assert f"bet {bet.pk}: still open on a settled coup" in settlement_check().problems


@pytest.mark.books_broken_on_purpose
def test_cards_out_of_order_are_named(settled_coup):
    card = DealtCard.objects.filter(coup=settled_coup).order_by("position").first()
    DealtCard.objects.filter(pk=card.pk).update(position=9)
    assert f"coup {settled_coup.pk}: cards out of order" in settlement_check().problems


@pytest.mark.books_broken_on_purpose
def test_a_wallet_that_does_not_add_up_is_named(settled_coup):
    wallet = Account.objects.filter(kind=Account.Kind.PLAYER).first()
    with ledger_tampered():
        Account.objects.filter(pk=wallet.pk).update(balance=wallet.balance + 1)
    (problem,) = settlement_check().problems
    assert problem.startswith(f"wallet of user {wallet.user_id}: {wallet.balance + 1}, expected {wallet.balance}")


@pytest.mark.books_broken_on_purpose
def test_bets_in_play_that_are_not_the_accepted_stakes_are_named(settled_coup):
    coup = CoupFactory(table=settled_coup.table)
    bettor(coup, {"player": "10"})
    assert settlement_check(finished=False).problems == []
    Bet.objects.filter(coup=coup).update(stake=D("12.00"))
    (problem,) = [problem for problem in settlement_check(finished=False).problems if "in play" in problem]
    assert problem == f"table {coup.table_id} EUR: bets in play 10.00, accepted stakes 12.00"
