"""Every bet path and the deposit path refuse what a player's protection forbids, with its code, changing
nothing: one placement (``bet_batch_place``), placements together (the group commit) and deposits."""

from __future__ import annotations

import uuid
from datetime import timedelta
from decimal import Decimal as D

import pytest
from django.utils import timezone

from casino.lifecycle.settlement import coup_settle
from tests.factories import CoupFactory, TableFactory, UserFactory, coup_deal_and_resolve
from tests.wagering.conftest import fund
from wagering.errors import PlayerProtected
from wagering.models import LedgerTransaction, PlayerProtection
from wagering.placement import bet_batch_place
from wagering.placement_together import PlacementAsked, bets_place_together
from wagering.protection.services import (
    play_session_start,
    protection_break_take,
    protection_limits_set,
    protection_operator_exclude,
)
from wagering.selectors import wallet_balance
from wagering.wallets import wallet_deposit, wallet_withdraw

pytestmark = pytest.mark.django_db


@pytest.fixture
def coup():
    return CoupFactory(table=TableFactory())


@pytest.fixture
def player():
    user = UserFactory()
    fund(user, "1000.00")
    return user


def refused(user, coup, bets) -> PlayerProtected:
    balance, transactions = wallet_balance(user=user), LedgerTransaction.objects.count()
    with pytest.raises(PlayerProtected) as error:
        bet_batch_place(user=user, coup=coup, bets=bets)
    assert wallet_balance(user=user) == balance
    assert LedgerTransaction.objects.count() == transactions
    return error.value


def test_a_bet_that_could_pass_the_daily_loss_limit_is_refused_with_when_it_resets(player, coup):
    protection_limits_set(user=player, limits={"loss_day": D("100")})
    bet_batch_place(user=player, coup=coup, bets={"banker": "60"})
    refusal = refused(player, coup, {"banker": "41"})
    assert refusal.code == "loss_limit"
    assert refusal.details["period"] == "day" and refusal.details["net_loss"] == "60.00"
    assert "resets_at" in refusal.details and "daily loss limit of 100.00" in refusal.message
    bet_batch_place(user=player, coup=coup, bets={"banker": "40"})  # exactly up to the limit


def test_returns_count_against_the_loss(player, coup):
    protection_limits_set(user=player, limits={"loss_week": D("100")})
    bet_batch_place(user=player, coup=coup, bets={"player": "90"})
    coup_deal_and_resolve(coup, "9S 2H KD 3C")  # Player 9 wins: 180 returned, a net loss of -90
    coup_settle(coup_id=coup.pk)
    next_coup = CoupFactory(table=coup.table)
    bet_batch_place(user=player, coup=next_coup, bets={"player": "100"})
    assert refused(player, next_coup, {"player": "90.01"}).details["net_loss"] == "10.00"


def test_together_the_second_bet_of_a_player_is_refused_by_the_first(player, coup):
    protection_limits_set(user=player, limits={"loss_month": D("100")})
    other = UserFactory()
    fund(other, "1000.00")
    answers = bets_place_together(
        coup=coup,
        asked=[
            PlacementAsked(user=player, stakes={"banker": D("70")}, action="bet_batch_placed"),
            PlacementAsked(user=other, stakes={"banker": D("500")}, action="bet_batch_placed"),
            PlacementAsked(user=player, stakes={"banker": D("31")}, action="bet_batch_placed"),
            PlacementAsked(user=player, stakes={"banker": D("30")}, action="bet_batch_placed"),
        ],
    )
    assert [getattr(a, "code", "placed") for a in answers] == ["placed", "placed", "loss_limit", "placed"]
    assert wallet_balance(user=player) == D("900.00")


@pytest.mark.parametrize(
    ("kind", "duration", "code"), [("time_out", "24h", "timed_out"), ("self_exclusion", "6m", "self_excluded")]
)
def test_a_break_refuses_bets_and_deposits_but_not_withdrawals(player, coup, kind, duration, code):
    protection_break_take(user=player, kind=kind, duration=duration)
    assert refused(player, coup, {"banker": "10"}).code == code
    answers = bets_place_together(
        coup=coup, asked=[PlacementAsked(user=player, stakes={"banker": D("10")}, action="bet_batch_placed")]
    )
    assert answers[0].code == code
    with pytest.raises(PlayerProtected) as error:
        wallet_deposit(user=player, amount=D("10"), idempotency_key=uuid.uuid4().hex)
    assert error.value.code == code
    wallet_withdraw(user=player, amount=D("10"), idempotency_key=uuid.uuid4().hex)
    assert wallet_balance(user=player) == D("990.00")


def test_the_operators_exclusion_refuses_at_once(player, coup):
    protection_operator_exclude(user=player, actor_label="partner:acme")
    assert refused(player, coup, {"banker": "10"}).code == "self_excluded"


def test_a_reality_check_due_pauses_betting_and_a_session_limit_ends_it(player, coup):
    play_session_start(user=player, reality_check_minutes=15)
    PlayerProtection.objects.filter(pk=player.pk).update(reality_check_due_at=timezone.now() - timedelta(seconds=1))
    assert refused(player, coup, {"banker": "10"}).code == "reality_check"
    play_session_start(user=player, session_limit_minutes=30)
    PlayerProtection.objects.filter(pk=player.pk).update(session_ends_at=timezone.now() - timedelta(seconds=1))
    assert refused(player, coup, {"banker": "10"}).code == "session_limit"


def test_a_deposit_limit_counts_the_periods_deposits(player):
    protection_limits_set(user=player, limits={"deposit_day": D("1500")})  # 1,000 already today
    wallet_deposit(user=player, amount=D("500"), idempotency_key=uuid.uuid4().hex)
    with pytest.raises(PlayerProtected) as error:
        wallet_deposit(user=player, amount=D("0.01"), idempotency_key=uuid.uuid4().hex)
    assert error.value.code == "deposit_limit" and error.value.details["deposited"] == "1500.00"


def test_a_player_without_protection_bets_as_before(player, coup):
    assert not PlayerProtection.objects.filter(pk=player.pk).exists()
    bet_batch_place(user=player, coup=coup, bets={"banker": "900"})
