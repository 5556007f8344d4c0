"""A table dealt on demand (seed 004, issue 30): "Deal" places, deals and settles one private coup in one
transaction; attacked as a player would (twice for one bet, another's shoe, a closed table, bad stakes)."""

from __future__ import annotations

import uuid
from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from baccarat.cards import Card
from baccarat.fairness import commitment_matches
from casino.lifecycle.rng import RngDealAsked, rng_coup_deal, rng_shoe_public, rng_shoe_ready
from casino.lifecycle.tasks import rng_idle_shoes_close
from kernel.errors import PuntoError
from tables.models import Coup, Shoe, Table
from tables.selectors import table_live_coup, table_shoe_in_play
from tests.factories import TableFactory
from tests.wagering.conftest import funded, ledger_tampered
from wagering import placement, settlement
from wagering.checks import ledger_check, settlement_check
from wagering.models import LEDGER_SHARDS, SHARDED_KINDS, Account, Bet, LedgerEntry, LedgerTransaction, ledger_shard
from wagering.selectors import wallet_balance

pytestmark = pytest.mark.django_db


@pytest.fixture
def rng_table(db) -> Table:
    return TableFactory(code="rng1", dealing_mode=Table.DealingMode.RNG, decks=4)


def deal(user, table, bets=None, *, request_id=None, commitment=None) -> dict:
    if commitment is None:
        commitment = rng_shoe_ready(table=table, player=user).commitment
    asked = RngDealAsked(
        user=user, table=table, bets=bets, commitment=commitment, request_id=request_id or uuid.uuid4().hex
    )
    return rng_coup_deal(asked=asked)


def refused(user, table, bets=None, **kwargs) -> PuntoError:
    """Deal, expecting a refusal that leaves no coup, no bet and moves no money."""
    balance, transactions = wallet_balance(user=user), LedgerTransaction.objects.count()
    coups, bets_before = Coup.objects.count(), Bet.objects.count()
    with pytest.raises(PuntoError) as error:
        deal(user, table, bets, **kwargs)
    assert wallet_balance(user=user) == balance
    assert (LedgerTransaction.objects.count(), Coup.objects.count(), Bet.objects.count()) == (
        transactions,
        coups,
        bets_before,
    )
    return error.value


def books_balanced() -> None:
    assert ledger_check().ok
    assert settlement_check(finished=False).problems == []


def test_a_deal_places_deals_and_settles_one_coup_at_once(rng_table):
    player = funded("1000.00")
    answer = deal(player, rng_table, {"banker": "10.00"})

    coup = Coup.objects.get(round_id=answer["round_id"])
    assert coup.state == Coup.State.SETTLED and coup.player_id == player.pk
    assert answer["round_id"].startswith("RNG1-")
    assert 4 <= len(answer["cards"]) <= 6
    assert [card["card"] for card in answer["cards"]] == list(coup.cards.values_list("card", flat=True))
    returned = Decimal(answer["total_returned"])
    assert returned == {"banker": Decimal("19.50"), "player": Decimal(0), "tie": Decimal("10.00")}[coup.winner]
    assert Decimal(answer["balance"]) == wallet_balance(user=player) == Decimal("990.00") + returned
    # The table's own coup and shoe are never a player's private ones.
    assert table_live_coup(table=rng_table) is None and table_shoe_in_play(table=rng_table) is None
    assert answer["shoe"]["decks"] == 4 and answer["shoe"]["coups"] == 1
    # The answer is built from what the deal wrote, not read back: it must say what a fresh read says.
    shoe = Shoe.objects.get(table=rng_table, player=player, state=Shoe.State.IN_PLAY)
    assert answer["shoe"] == rng_shoe_public(shoe=shoe) and answer["shoe"]["cards_left"] < 4 * 52
    settled = {
        bet.bet_type: (bet.settlement.outcome, bet.settlement.returned) for bet in Bet.objects.filter(user=player)
    }
    assert settled == {"banker": (answer["outcomes"]["banker"], returned)}
    books_balanced()


def test_a_deal_answers_each_bet_and_the_balance_as_written(rng_table):
    player = funded("1000.00")
    bets = {"banker": "10.00", "tie": "2.00"}
    for _ in range(6):  # wins, losses and (at times) a tie and its push: each answer as the books say
        answer = deal(player, rng_table, bets)
        coup = Coup.objects.get(round_id=answer["round_id"])
        written = {bet.bet_type: bet.settlement for bet in coup.bets.select_related("settlement")}
        assert answer["outcomes"] == {bet_type: settlement.outcome for bet_type, settlement in written.items()}
        assert answer["returned"] == {bet_type: str(settlement.returned) for bet_type, settlement in written.items()}
        assert Decimal(answer["balance"]) == wallet_balance(user=player)
    books_balanced()


def test_the_same_request_id_twice_deals_one_coup(rng_table):
    player = funded("1000.00")
    first = deal(player, rng_table, {"player": "10.00"}, request_id="click-1")
    again = deal(player, rng_table, {"player": "10.00"}, request_id="click-1")

    assert again["replayed"] is True and again["round_id"] == first["round_id"]
    assert Coup.objects.filter(player=player).count() == 1
    assert Bet.objects.filter(user=player).count() == 1
    assert wallet_balance(user=player) == Decimal(first["balance"])


def test_the_same_request_id_for_other_bets_is_refused(rng_table):
    player = funded("1000.00")
    deal(player, rng_table, {"player": "10.00"}, request_id="click-1")
    assert refused(player, rng_table, {"player": "20.00"}, request_id="click-1").code == "idempotency_conflict"


def test_rebet_and_deal_repeats_the_last_bets(rng_table):
    player = funded("1000.00")
    deal(player, rng_table, {"player": "10.00", "tie": "5.00"})
    answer = deal(player, rng_table, None)
    assert answer["bets"] == {"player": "10.00", "tie": "5.00"}
    assert Coup.objects.filter(player=player).count() == 2


def test_rebet_with_no_earlier_bets_is_refused(rng_table):
    assert refused(funded(), rng_table, None).code == "no_previous_bets"


@pytest.mark.parametrize(
    ("bets", "code"),
    [
        ({"player": "10.00", "banker": "10.00"}, "player_and_banker"),
        ({"player": "-10.00"}, "invalid_amount"),
        ({"player": "0"}, "invalid_amount"),
        ({"player": "1e9"}, None),
        ({"player": "100000000"}, None),
        ({"player": "abc"}, "invalid_amount"),
        ({"player": "0.001"}, None),
        ({"player": "1000.01"}, "above_maximum"),
        ({"player": "0.50"}, "below_minimum"),
        ({"player": "500.00"}, "insufficient_funds"),
        ({"dragon": "10.00"}, "unknown_bet_type"),
        ({}, "empty_batch"),
    ],
)
def test_bad_stakes_are_refused_and_change_nothing(rng_table, bets, code):
    error = refused(funded("100.00"), rng_table, bets)
    if code is not None:
        assert error.code == code


def test_a_closed_table_deals_nothing(rng_table):
    player = funded()
    commitment = rng_shoe_ready(table=rng_table, player=player).commitment
    Table.objects.filter(pk=rng_table.pk).update(is_open=False)
    rng_table.refresh_from_db()
    assert refused(player, rng_table, {"player": "10.00"}, commitment=commitment).code == "table_closed"


def test_a_table_with_a_betting_window_deals_nothing_on_demand(db):
    table = TableFactory(code="auto9")
    with pytest.raises(PuntoError) as error:
        rng_shoe_ready(table=table, player=funded())
    assert error.value.code == "not_rng"


def test_another_players_shoe_is_not_dealt_from(rng_table):
    alice, bob = funded("1000.00"), funded("1000.00")
    alices = rng_shoe_ready(table=rng_table, player=alice)
    # Bob sends Alice's commitment: he deals from his own shoe or not at all.
    assert refused(bob, rng_table, {"player": "10.00"}, commitment=alices.commitment).code == "shoe_changed"
    answer = deal(bob, rng_table, {"player": "10.00"})
    bobs = Shoe.objects.get(player=bob)
    assert bobs.pk != alices.pk and Coup.objects.get(round_id=answer["round_id"]).shoe_id == bobs.pk
    alices.refresh_from_db()
    assert alices.coups_started == 0 and not alices.dealt_cards.exists()


def test_a_stale_page_is_refused_once_its_shoe_has_ended(db):
    table = TableFactory(code="rng2", dealing_mode=Table.DealingMode.RNG, decks=1, cut_card_from_bottom=16)
    player = funded("10000.00")
    first = rng_shoe_ready(table=table, player=player)
    answers = []
    while not answers or answers[-1]["shoe_ended"] is None:
        answers.append(deal(player, table, {"banker": "1.00"}))
    ended = answers[-1]["shoe_ended"]
    assert ended["number"] == first.number and ended["commitment"] == first.commitment
    order = [Card.parse(code) for code in ended["card_order"]]
    assert commitment_matches(order, ended["salt"], first.commitment)
    dealt = [card["card"] for answer in answers for card in answer["cards"]]
    first.refresh_from_db()
    assert dealt == ended["card_order"][first.position - len(dealt) : first.position]
    assert first.state == Shoe.State.FINISHED
    # The next shoe is made and committed at once; the page that showed the old one deals no more.
    assert answers[-1]["shoe"]["number"] != first.number
    assert refused(player, table, {"banker": "1.00"}, commitment=first.commitment).code == "shoe_changed"
    books_balanced()


def test_idle_private_shoes_are_finished_and_revealed(rng_table):
    idle, busy = funded("100.00"), funded("100.00")
    idle_shoe = rng_shoe_ready(table=rng_table, player=idle)
    busy_shoe = rng_shoe_ready(table=rng_table, player=busy)
    long_ago = timezone.now() - timedelta(hours=2)
    Shoe.objects.filter(pk__in=[idle_shoe.pk, busy_shoe.pk]).update(started_at=long_ago)
    deal(busy, rng_table, {"player": "5.00"})  # dealt from just now

    assert rng_idle_shoes_close.delay().get() == 1
    idle_shoe.refresh_from_db()
    busy_shoe.refresh_from_db()
    assert idle_shoe.state == Shoe.State.FINISHED and idle_shoe.reveal().salt
    assert busy_shoe.state == Shoe.State.IN_PLAY
    # The idle player's page, still showing the finished shoe, deals no more; a new shoe is shown to them first.
    assert refused(idle, rng_table, {"player": "5.00"}, commitment=idle_shoe.commitment).code == "shoe_changed"
    assert rng_shoe_ready(table=rng_table, player=idle).commitment != idle_shoe.commitment


def test_a_private_coup_is_not_told_to_the_table(rng_table, monkeypatch):
    """The table's events (its bet totals, its settlement) are for the players watching a shared coup: another
    player at a table dealt on demand does not see this one's stakes or results."""
    told = []
    monkeypatch.setattr(placement, "table_totals_send", lambda **kwargs: told.append(("totals", kwargs)))
    monkeypatch.setattr(settlement, "table_event_send", lambda **kwargs: told.append(("event", kwargs)))
    deal(funded("100.00"), rng_table, {"player": "5.00"})
    assert told == []


def a_coup_off_shard_0(player, table, bets) -> Coup:
    """A private coup dealt for the player whose ledger shard is not 0 (a table's coups' shard): one or two deals,
    their coups' ids consecutive."""
    while True:
        coup = Coup.objects.get(round_id=deal(player, table, bets)["round_id"])
        if ledger_shard(coup) != 0:
            return coup


def test_a_deal_posts_through_its_coups_ledger_shard(rng_table):
    """Its placement and its settlement through the house's and the table's bets in play of the shard its coup's
    id picks (``ledger_shard``): that shard's bets in play hold nothing once the deal has committed."""
    coup = a_coup_off_shard_0(funded("1000.00"), rng_table, {"banker": "10.00", "tie": "1.00"})
    legs = LedgerEntry.objects.filter(transaction__coup=coup, account__kind__in=SHARDED_KINDS)
    assert set(legs.values_list("account__shard", flat=True)) == {ledger_shard(coup)}
    assert Account.objects.get(kind=Account.Kind.BETS_IN_PLAY, shard=ledger_shard(coup)).balance == 0
    assert ledger_check().ok


@pytest.mark.books_broken_on_purpose
def test_the_checks_find_a_private_coups_money_in_another_shard(rng_table):
    """As only the owner can on PostgreSQL (the triggers off): the house's shard a coup was settled through moved to
    another shard (not 0, where the private coups of before the shards went), and stakes left in a shard's bets in
    play after its transaction (a private coup holds nothing past its commit)."""
    coup = a_coup_off_shard_0(funded("1000.00"), rng_table, {"player": "10.00", "tie": "1.00"})  # a house leg always
    house = Account.objects.get(kind=Account.Kind.HOUSE, shard=ledger_shard(coup))
    in_play = Account.objects.get(kind=Account.Kind.BETS_IN_PLAY, shard=ledger_shard(coup))
    with ledger_tampered():
        Account.objects.filter(pk=house.pk).update(shard=(house.shard % (LEDGER_SHARDS - 1)) + 1)
        Account.objects.filter(pk=in_play.pk).update(balance=Decimal("5.00"))
    assert house.pk in ledger_check().changed_accounts
    assert any(f"bets in play of shard {in_play.shard} 5.00" in problem for problem in settlement_check().problems)
