"""Settlement by the paytables (once, however often it runs), void refunds, and game recall."""

from decimal import Decimal

import pytest
from django.db import IntegrityError, transaction

from casino import lifecycle
from casino.lifecycle.settlement import coup_settle
from casino.lifecycle.tasks import coup_settle_task
from tables.models import AuditLog, Coup
from tests.factories import CoupFactory, TableFactory, UserFactory, coup_deal_and_resolve
from tests.wagering.conftest import fund
from wagering.cancellation import bet_batch_undo, coup_bets_refund
from wagering.checks import ledger_check
from wagering.errors import SettlementRefused
from wagering.models import Account, Bet, BetSettlement, LedgerTransaction
from wagering.placement import bet_batch_place
from wagering.selectors import player_round_history, wallet_balance

D = Decimal
PLAYER_NATURAL_9 = "9S 2H KD 3C"  # P 9, B 5: player wins, no pairs
BANKER_SIX = "TS 6H 2D KC 2S"  # P 4, B 6: banker wins with 6
TIE_WITH_PAIRS = "8S 8H 8D 8C"  # 6-6 tie, both hands pairs


def house_balance() -> Decimal:
    return Account.objects.filter(kind=Account.Kind.HOUSE).values_list("balance", flat=True).first() or D("0.00")


def bettor(coup, bets, amount="1000.00"):
    user = UserFactory()
    fund(user, amount)
    bet_batch_place(user=user, coup=coup, bets=bets)
    return user


@pytest.mark.parametrize(
    ("cards", "bets", "returned"),
    [
        (PLAYER_NATURAL_9, {"player": "100"}, "200.00"),
        (PLAYER_NATURAL_9, {"banker": "100"}, "0.00"),
        (BANKER_SIX, {"banker": "100"}, "195.00"),  # 5% commission
        (BANKER_SIX, {"banker": "1.01"}, "1.96"),  # 1.9695, rounded down to the cent
        (TIE_WITH_PAIRS, {"player": "100", "tie": "10"}, "190.00"),  # the tie pushes player and banker bets
        (TIE_WITH_PAIRS, {"banker": "100"}, "100.00"),
        (TIE_WITH_PAIRS, {"tie": "10", "player_pair": "5", "banker_pair": "5"}, "210.00"),  # 8:1, 11:1, 11:1
        (PLAYER_NATURAL_9, {"tie": "10", "player_pair": "5"}, "0.00"),
    ],
)
def test_every_bet_is_paid_by_its_paytable(coup, cards, bets, returned):
    user = bettor(coup, bets)
    staked = sum(D(stake) for stake in bets.values())
    coup_deal_and_resolve(coup, cards)
    coup_settle(coup_id=coup.pk)
    assert wallet_balance(user=user) == D("1000.00") - staked + D(returned)
    assert house_balance() == staked - D(returned)
    assert Account.objects.get(kind=Account.Kind.BETS_IN_PLAY).balance == D("0.00")
    assert ledger_check().ok


def test_outcomes_are_recorded_per_bet(coup):
    user = bettor(coup, {"player": "100", "tie": "10", "player_pair": "5"})
    coup_deal_and_resolve(coup, TIE_WITH_PAIRS)
    coup_settle(coup_id=coup.pk)
    outcomes = {bet.bet_type: (bet.state, bet.settlement.outcome, bet.settlement.returned) for bet in user.bets.all()}
    assert outcomes == {
        "player": ("settled", "push", D("100.00")),
        "tie": ("settled", "win", D("90.00")),
        "player_pair": ("settled", "win", D("60.00")),
    }


def test_the_coups_own_rules_pay_no_commission_and_tie_nine_to_one(db):
    table = TableFactory(commission=False, tie_pays=9)
    coup = CoupFactory(table=table)
    banker_six = bettor(coup, {"banker": "100"})
    coup_deal_and_resolve(coup, BANKER_SIX)
    coup_settle(coup_id=coup.pk)
    assert wallet_balance(user=banker_six) == D("1050.00")  # a banker win with 6 pays 1:2
    coup = CoupFactory(table=table)
    tie = bettor(coup, {"tie": "10"})
    table.tie_pays = 8  # a change of rules takes effect from the next coup
    table.save()
    coup_deal_and_resolve(coup, TIE_WITH_PAIRS)
    coup_settle(coup_id=coup.pk)
    assert wallet_balance(user=tie) == D("1090.00")


def test_settling_twice_pays_once(coup, django_capture_on_commit_callbacks):
    user = bettor(coup, {"player": "100"})
    coup_deal_and_resolve(coup, PLAYER_NATURAL_9)
    with django_capture_on_commit_callbacks(execute=True):
        coup_settle_task.delay(coup.pk)
        coup_settle_task.delay(coup.pk)
    assert wallet_balance(user=user) == D("1100.00")
    assert LedgerTransaction.objects.filter(kind=LedgerTransaction.Kind.SETTLEMENT).count() == 1
    assert BetSettlement.objects.count() == 1
    coup.refresh_from_db()
    assert coup.state == Coup.State.SETTLED and coup.settled_at is not None
    assert AuditLog.objects.filter(action="coup_settled", object_id=str(coup.pk)).count() == 1


@pytest.mark.books_broken_on_purpose
def test_a_bet_cannot_be_settled_twice_even_by_mistake(coup):
    bettor(coup, {"player": "100"})
    coup_deal_and_resolve(coup, PLAYER_NATURAL_9)
    coup_settle(coup_id=coup.pk)
    Coup.objects.filter(pk=coup.pk).update(state=Coup.State.RESOLVED)
    Bet.objects.filter(coup=coup).update(state=Bet.State.ACCEPTED)
    with pytest.raises(IntegrityError), transaction.atomic():
        coup_settle(coup_id=coup.pk)


def test_a_resolved_coup_without_bets_is_simply_marked_settled(coup):
    coup_deal_and_resolve(coup, PLAYER_NATURAL_9)
    assert coup_settle(coup_id=coup.pk) == []
    coup.refresh_from_db()
    assert coup.state == Coup.State.SETTLED
    assert not LedgerTransaction.objects.filter(kind=LedgerTransaction.Kind.SETTLEMENT).exists()


@pytest.mark.parametrize("state", [Coup.State.BETTING, Coup.State.NO_MORE_BETS, Coup.State.DEALING])
def test_only_a_resolved_coup_is_settled(coup, state):
    bettor(coup, {"player": "100"})
    Coup.objects.filter(pk=coup.pk).update(state=state)
    with pytest.raises(SettlementRefused) as error:
        coup_settle(coup_id=coup.pk)
    assert error.value.code == "not_resolved"
    assert not BetSettlement.objects.exists()


def test_settlement_pushes_the_result_to_the_table_and_balances_to_each_player(
    coup, sent_events, django_capture_on_commit_callbacks
):
    winner = bettor(coup, {"player": "100"})
    loser = bettor(coup, {"tie": "10"})
    coup_deal_and_resolve(coup, PLAYER_NATURAL_9)
    sent_events.clear()
    with django_capture_on_commit_callbacks(execute=True):
        coup_settle(coup_id=coup.pk)
    table = [data for kind, event, data in sent_events if (kind, event) == ("table", "settlement")]
    assert table == [
        {
            "round_id": coup.round_id,
            "result": coup.result().as_dict(),
            "bets": 2,
            "staked": {"EUR": "110.00"},
            "returned": {"EUR": "200.00"},
        }
    ]
    players = {data["balance"]: data for kind, event, data in sent_events if (kind, event) == ("user", "settlement")}
    assert set(players) == {str(wallet_balance(user=winner)), str(wallet_balance(user=loser))} == {"1100.00", "990.00"}
    assert players["1100.00"]["bets"] == [
        {"bet_type": "player", "stake": "100.00", "outcome": "win", "returned": "200.00"}
    ]


@pytest.mark.parametrize("players", [2, 40])
def test_settlement_queries_do_not_grow_with_the_bets(coup, players, django_assert_max_num_queries):
    for index in range(players):
        bettor(coup, {"banker" if index % 2 else "player": "10", "tie": "1", "player_pair": "1"})
    coup_deal_and_resolve(coup, BANKER_SIX)
    coup_settle(coup_id=coup.pk)  # creates the house account: every later settlement finds it
    other = CoupFactory()
    for index in range(players):
        bettor(other, {"banker" if index % 2 else "player": "10", "tie": "1"})
    coup_deal_and_resolve(other, BANKER_SIX)
    with django_assert_max_num_queries(19):  # the ledger, the bets, the report rows, the partners' webhooks
        coup_settle(coup_id=other.pk)
    assert BetSettlement.objects.filter(bet__coup=other).count() == players * 2


def test_a_void_coup_refunds_every_bet_once(coup, sent_events, django_capture_on_commit_callbacks):
    first = bettor(coup, {"player": "100", "tie": "10"})
    second = bettor(coup, {"banker": "50"})
    with django_capture_on_commit_callbacks(execute=True):
        lifecycle.coup_void(coup=coup, actor=None, reason="dealing error")
    assert (wallet_balance(user=first), wallet_balance(user=second)) == (D("1000.00"), D("1000.00"))
    assert set(Bet.objects.values_list("state", flat=True)) == {Bet.State.REFUNDED}
    assert set(BetSettlement.objects.values_list("outcome", flat=True)) == {BetSettlement.Outcome.REFUND}
    assert house_balance() == D("0.00")
    assert ("user", "bets_refunded") in {(kind, event) for kind, event, _ in sent_events}
    assert coup_bets_refund(coup=coup) == []  # again: nothing left to refund
    coup_settle(coup_id=coup.pk)  # a void coup is not settled
    assert wallet_balance(user=first) == D("1000.00")
    assert LedgerTransaction.objects.filter(kind=LedgerTransaction.Kind.REFUND).count() == 1
    assert AuditLog.objects.filter(action="coup_bets_refunded").count() == 1
    assert ledger_check().ok


def test_a_void_after_the_result_but_before_settlement_refunds(coup):
    user = bettor(coup, {"player": "100"})
    coup_deal_and_resolve(coup, PLAYER_NATURAL_9)
    with transaction.atomic():
        coup_bets_refund(coup=coup)
        Coup.objects.filter(pk=coup.pk).update(state=Coup.State.VOID)
    assert coup_settle(coup_id=coup.pk) == []
    assert wallet_balance(user=user) == D("1000.00")


def test_a_settled_coup_cannot_be_refunded(coup):
    user = bettor(coup, {"player": "100"})
    coup_deal_and_resolve(coup, PLAYER_NATURAL_9)
    coup_settle(coup_id=coup.pk)
    with pytest.raises(SettlementRefused) as error:
        coup_bets_refund(coup=coup)
    assert error.value.code == "settled"
    assert wallet_balance(user=user) == D("1100.00")


def test_game_recall_shows_each_round_with_the_balance_before_and_after(table):
    user = UserFactory()
    fund(user, "500.00")
    first = CoupFactory(table=table)
    bet_batch_place(user=user, coup=first, bets={"player": "100"})
    bet_batch_place(user=user, coup=first, bets={"tie": "10"})
    coup_deal_and_resolve(first, PLAYER_NATURAL_9)
    coup_settle(coup_id=first.pk)
    second = CoupFactory(table=table)
    bet_batch_place(user=user, coup=second, bets={"banker": "50"})
    bet_batch_place(user=user, coup=second, bets={"tie": "5"})
    bet_batch_undo(user=user, coup=second)
    coup_deal_and_resolve(second, PLAYER_NATURAL_9)
    coup_settle(coup_id=second.pk)
    latest, earlier = player_round_history(user=user)
    assert (earlier.round_id, earlier.balance_before, earlier.balance_after) == (
        first.round_id,
        D("500.00"),
        D("590.00"),
    )
    assert (earlier.staked, earlier.returned) == (D("110.00"), D("200.00"))
    assert (latest.round_id, latest.balance_before, latest.balance_after) == (second.round_id, D("590.00"), D("540.00"))
    assert [(bet["bet_type"], bet["state"], bet["outcome"]) for bet in latest.bets] == [
        ("banker", "settled", "lose"),
        ("tie", "cancelled", ""),
    ]
    assert player_round_history(user=user, limit=1) == [latest]
