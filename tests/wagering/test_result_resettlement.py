"""Re-settlement after an approved result correction: compensating transactions to the cent, the original
settlement untouched, a wallet that cannot cover its debit, and settlement after a correction paying once."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.utils import timezone

from casino import lifecycle
from casino.lifecycle.settlement import coup_settle
from tables import corrections
from tables.models import Coup
from tests.factories import CoupFactory, TableFactory, UserFactory, coup_deal_and_resolve
from tests.wagering.conftest import fund, postgres_only
from tests.wagering.test_concurrency import all_at_once
from wagering.checks import ledger_check, settlement_check
from wagering.models import (
    Account,
    BetAdjustment,
    BetSettlement,
    LedgerEntry,
    LedgerTransaction,
    PlayerAdjustment,
)
from wagering.placement import bet_batch_place
from wagering.reports import table_day_report_build
from wagering.selectors import wallet_balance
from wagering.wallets import wallet_withdraw

D = Decimal
PLAYER_NATURAL_9 = "9S 2H KD 3C"  # dealt P 9S KD (9), B 2H 3C (5): player wins, no pairs
TIE_WITH_PAIRS = ("8S 8D", "8H 8C")  # 6-6, both hands pairs
BANKER_SIX = ("TS 2D 2S", "6H KC")  # P 4 (three cards), B 6: banker wins with 6
BANKER_NATURAL_PAIR = ("2S 3H", "9D 9C")  # P 5, B 8 natural with a pair


def correct(coup: Coup, hands: tuple[str, str], bosses, reason: str = "card misread"):
    """One boss requests, the other approves."""
    requester, approver = bosses
    correction = corrections.result_correction_request(
        coup=coup, player_cards=hands[0], banker_cards=hands[1], reason=reason, actor=requester
    )
    return lifecycle.result_correction_approve(correction=correction, actor=approver)


def account_balance(kind: str) -> Decimal:
    return Account.objects.filter(kind=kind).values_list("balance", flat=True).first() or D("0.00")


def bettor(coup, bets, amount="1000.00"):
    user = UserFactory()
    fund(user, amount)
    bet_batch_place(user=user, coup=coup, bets=bets)
    return user


def money_checked() -> None:
    assert ledger_check().ok, ledger_check().problems
    assert settlement_check().problems == []


@pytest.mark.parametrize(
    ("hands", "pia", "bob", "cid"),
    [
        (TIE_WITH_PAIRS, "1000.00", "1000.00", "1190.00"),  # player and banker push; tie 8:1, pairs 11:1
        (BANKER_SIX, "900.00", "1095.00", "980.00"),  # the winner loses; the loser wins less 5% commission
        (BANKER_NATURAL_PAIR, "900.00", "1095.00", "1040.00"),  # and the banker pair wins 11:1
    ],
)
def test_a_settled_coup_is_resettled_by_compensation_to_the_cent(bosses, hands, pia, bob, cid):
    coup = CoupFactory(table=TableFactory())
    players = {
        "pia": bettor(coup, {"player": "100"}),
        "bob": bettor(coup, {"banker": "100"}),
        "cid": bettor(coup, {"tie": "10", "banker_pair": "5", "player_pair": "5"}),
    }
    coup_deal_and_resolve(coup, PLAYER_NATURAL_9)
    coup_settle(coup_id=coup.pk)
    assert [wallet_balance(user=user) for user in players.values()] == [D("1100.00"), D("900.00"), D("980.00")]
    settlements = list(BetSettlement.objects.order_by("pk").values())
    entries = list(LedgerEntry.objects.order_by("pk").values())
    house = account_balance(Account.Kind.HOUSE)

    correct(coup, hands, bosses)

    expected = {"pia": D(pia), "bob": D(bob), "cid": D(cid)}
    assert {name: wallet_balance(user=user) for name, user in players.items()} == expected
    paid_more = sum(expected.values()) - D("1100.00") - D("900.00") - D("980.00")
    assert account_balance(Account.Kind.HOUSE) == house - paid_more
    assert list(BetSettlement.objects.order_by("pk").values()) == settlements  # never edited
    assert list(LedgerEntry.objects.order_by("pk").values())[: len(entries)] == entries
    correction_tx = LedgerTransaction.objects.get(kind=LedgerTransaction.Kind.CORRECTION)
    assert correction_tx.coup == coup
    legs = {entry.account.user_id: entry.amount for entry in correction_tx.entries.select_related("account")}
    assert legs.pop(None) == -paid_more  # the house's leg; no debt
    for name, user in players.items():
        moved = expected[name] - {"pia": D("1100.00"), "bob": D("900.00"), "cid": D("980.00")}[name]
        assert legs.get(user.pk, D("0.00")) == moved
    bob_bet = BetAdjustment.objects.get(bet__user=players["bob"])
    assert (bob_bet.outcome_before, bob_bet.returned_before) == ("lose", D("0.00"))
    assert bob_bet.outcome_after == ("push" if hands == TIE_WITH_PAIRS else "win")
    money_checked()

    [report] = table_day_report_build(table_id=coup.table_id, day=timezone.now().date())
    assert report.house_win == D("220.00") - (sum(expected.values()) - D("3000.00") + D("220.00"))


def test_a_wallet_that_cannot_cover_its_debit_owes_the_rest_and_a_later_credit_pays_it_back(bosses):
    coup = CoupFactory(table=TableFactory())
    pia = bettor(coup, {"player": "100"}, amount="100.00")
    coup_deal_and_resolve(coup, PLAYER_NATURAL_9)
    coup_settle(coup_id=coup.pk)
    wallet_withdraw(user=pia, amount="150.00", idempotency_key="pia-cash-out")
    assert wallet_balance(user=pia) == D("50.00")

    correct(coup, BANKER_SIX, bosses)  # the 200.00 she was paid is taken back: she has 50.00
    assert wallet_balance(user=pia) == D("0.00")
    owed = PlayerAdjustment.objects.get(user=pia)
    assert (owed.adjustment, owed.owed_change, owed.balance_after) == (D("-200.00"), D("150.00"), D("0.00"))
    assert account_balance(Account.Kind.PLAYER_DEBT) == D("-150.00")
    assert account_balance(Account.Kind.HOUSE) == D("100.00")  # her stake: the house is whole, 150.00 of it owed
    money_checked()

    correct(coup, ("9S KD", "2H 3C"), list(reversed(bosses)), reason="it was right after all")
    assert wallet_balance(user=pia) == D("50.00")  # +200.00: 150.00 pays back what she owed
    assert PlayerAdjustment.objects.filter(user=pia).order_by("-pk")[0].owed_change == D("-150.00")
    assert account_balance(Account.Kind.PLAYER_DEBT) == D("0.00")
    assert account_balance(Account.Kind.HOUSE) == D("-100.00")
    money_checked()


def test_a_correction_before_settlement_is_paid_once_by_settlement(bosses):
    coup = CoupFactory(table=TableFactory())
    pia, bob = bettor(coup, {"player": "100"}), bettor(coup, {"banker": "100"})
    coup_deal_and_resolve(coup, PLAYER_NATURAL_9)  # resolved, settlement not run yet

    correct(coup, BANKER_SIX, bosses)
    coup.refresh_from_db()
    assert (coup.state, coup.winner) == ("resolved", "banker")
    assert not LedgerTransaction.objects.filter(kind=LedgerTransaction.Kind.CORRECTION).exists()

    coup_settle(coup_id=coup.pk)
    coup_settle(coup_id=coup.pk)
    assert (wallet_balance(user=pia), wallet_balance(user=bob)) == (D("900.00"), D("1095.00"))
    assert LedgerTransaction.objects.filter(kind=LedgerTransaction.Kind.SETTLEMENT).count() == 1
    assert not BetAdjustment.objects.exists()
    money_checked()


@postgres_only
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("run", range(3))
def test_approval_and_settlement_at_once_pay_the_corrected_result_once(bosses, run):
    """Both take the coup's row lock first: whichever waits sees what the other did."""
    coup = CoupFactory(table=TableFactory())
    pia, bob = bettor(coup, {"player": "100"}), bettor(coup, {"banker": "100"})
    coup_deal_and_resolve(coup, PLAYER_NATURAL_9)
    correction = corrections.result_correction_request(
        coup=coup, player_cards=BANKER_SIX[0], banker_cards=BANKER_SIX[1], reason="misread", actor=bosses[0]
    )

    def work(index):
        if index == 0:
            return lifecycle.result_correction_approve(correction=correction, actor=bosses[1])
        return coup_settle(coup_id=coup.pk)

    results = all_at_once(2, work)
    assert not [result for result in results if isinstance(result, Exception)], results
    assert (wallet_balance(user=pia), wallet_balance(user=bob)) == (D("900.00"), D("1095.00"))
    assert LedgerTransaction.objects.filter(kind=LedgerTransaction.Kind.SETTLEMENT).count() == 1
    money_checked()
