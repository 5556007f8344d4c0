"""A dealer table: the dealer enters each card (or a card reader sends it)."""

import pytest

from baccarat.cards import InvalidCardError
from baccarat.replay import replay_shoe
from baccarat.shoe import new_shoe_order
from casino import lifecycle
from tables.coups import coup_open
from tables.dealing import coup_deal_card
from tables.errors import TableError
from tables.models import AuditLog, Coup, HeldCard, Shoe
from tables.selectors import coup_deal_state, shoe_is_finished
from tables.services import table_rules_update
from tables.shoes import shoe_cut_card_out, shoe_prepare, shoe_start
from tests.factories import physical_shoe_start

pytestmark = pytest.mark.django_db(transaction=True)


def start_physical_shoe(table, actor, burn_card):
    return physical_shoe_start(table=table, actor=actor, burn_card=burn_card, seal_number="S-1")


def test_a_whole_physical_shoe_matches_the_replay(dealer_table, pit_boss):
    order = new_shoe_order(8)
    expected = replay_shoe(order)  # cut card 52 from the bottom
    shoe = start_physical_shoe(dealer_table, pit_boss, order[0].code)
    assert shoe.position == len(expected.burn.cards)
    position = shoe.position
    for number, result in enumerate(expected.coups, start=1):
        coup = coup_open(table=dealer_table, actor=pit_boss)
        assert coup.number == number
        lifecycle.coup_close_betting(coup=coup, actor=pit_boss)
        dealing = [result.player[0], result.banker[0], result.player[1], result.banker[1]]
        dealing += [*result.player[2:], *result.banker[2:]]
        for card in dealing:
            if position == shoe.cut_card_position:
                shoe_cut_card_out(shoe=shoe, actor=pit_boss)
            coup_deal_card(coup=coup, card=card.code, hand=None, actor=pit_boss)
            position += 1
        lifecycle.coup_resolve(coup=coup)
        coup.refresh_from_db()
        assert (coup.winner, coup.player_total, coup.banker_total) == (
            result.winner,
            result.player_total,
            result.banker_total,
        )
    shoe.refresh_from_db()
    assert shoe_is_finished(shoe=shoe)
    with pytest.raises(TableError, match="finished"):
        coup_open(table=dealer_table, actor=pit_boss)
    assert AuditLog.objects.filter(action="card_entered").count() == position - len(expected.burn.cards)


@pytest.fixture
def coup_dealt_four(dealer_table, pit_boss):
    start_physical_shoe(dealer_table, pit_boss, "3S")
    coup = coup_open(table=dealer_table, actor=pit_boss)
    lifecycle.coup_close_betting(coup=coup, actor=pit_boss)
    # Player 2+3=5 draws; banker 3+T=3.
    for card, hand in (("2S", "player"), ("3H", "banker"), ("3D", "player"), ("TC", "banker")):
        coup_deal_card(coup=coup, card=card, hand=hand, actor=pit_boss)
    return coup


def test_a_card_for_the_wrong_hand_is_held_not_reordered(dealer_table, pit_boss):
    """Seed 000 §4.3 is the pit's call: the service no longer puts a first card back in order by itself."""
    shoe = start_physical_shoe(dealer_table, pit_boss, "AS")
    coup = coup_open(table=dealer_table, actor=pit_boss)
    lifecycle.coup_close_betting(coup=coup, actor=pit_boss)
    held = coup_deal_card(coup=coup, card="9S", hand="banker", actor=pit_boss)
    assert isinstance(held, HeldCard)
    assert (held.card, held.entered_for, held.next_hand, held.shoe_position) == ("9S", "banker", "player", 2)
    coup.refresh_from_db()
    assert (coup.state, coup.cards.count()) == (Coup.State.HELD, 0)
    assert Shoe.objects.get(pk=shoe.pk).position == 3  # burn card, one burned, the held card


def test_a_third_card_to_the_wrong_hand_holds_the_coup(coup_dealt_four, pit_boss):
    position = Shoe.objects.get(pk=coup_dealt_four.shoe_id).position
    coup_deal_card(coup=coup_dealt_four, card="4H", hand="banker", actor=pit_boss)
    coup_dealt_four.refresh_from_db()
    assert coup_dealt_four.state == Coup.State.HELD
    assert not AuditLog.objects.filter(action="coup_voided").exists()
    # The card has left the physical shoe: it counts towards the cut card, and waits for the pit.
    assert Shoe.objects.get(pk=coup_dealt_four.shoe_id).position == position + 1
    entry = AuditLog.objects.get(action="coup_held", object_id=str(coup_dealt_four.pk))
    assert entry.after == {"state": "held", "card": "4H", "entered_for": "banker", "next_hand": "player"}


def test_a_ninth_copy_of_a_card_is_refused_from_eight_decks(dealer_table, pit_boss):
    """Count the burn card shown, the cards dealt and the held ones: eight A♠ in eight decks, no more."""
    start_physical_shoe(dealer_table, pit_boss, "AS")  # one A♠ shown for the burn
    # Three coups with two A♠ each (player A T T, banker A T T), then one with the seventh dealt.
    for cards in ["AS AS TH TD TC TS"] * 3 + ["AS 5C TH TD"]:
        coup = coup_open(table=dealer_table, actor=pit_boss)
        lifecycle.coup_close_betting(coup=coup, actor=pit_boss)
        for card in cards.split():
            coup_deal_card(coup=coup, card=card, actor=pit_boss)
        if coup_deal_state(coup=coup).next_hand() is None:
            lifecycle.coup_resolve(coup=coup)
    # Eight out: 1 shown and 7 dealt. The last coup waits for the player's third card.
    shoe = Shoe.objects.get(table=dealer_table, state=Shoe.State.IN_PLAY)
    before = (shoe.position, coup.cards.count(), AuditLog.objects.count())
    with pytest.raises(TableError, match="AS cannot come out of shoe 1: its 8 decks hold 8 and 8 are already out"):
        coup_deal_card(coup=coup, card="as", actor=pit_boss)
    with pytest.raises(TableError, match="8 are already out"):
        coup_deal_card(coup=coup, card="AS", hand="banker", actor=pit_boss)  # nor held
    shoe.refresh_from_db()
    assert (shoe.position, coup.cards.count(), AuditLog.objects.count()) == before
    assert not HeldCard.objects.exists()
    assert coup_deal_card(coup=coup, card="AH", actor=pit_boss).card == "AH"


def test_no_card_is_entered_for_an_rng_shoe(auto_table, pit_boss):
    shoe_start(shoe=shoe_prepare(table=auto_table, actor=pit_boss))
    coup = lifecycle.coup_close_betting(coup=coup_open(table=auto_table, actor=pit_boss))
    shoe = Shoe.objects.get(pk=coup.shoe_id)
    for card, hand in (("AS", None), ("AS", "player"), (None, "banker")):
        with pytest.raises(TableError, match="deals from its RNG shoe"):
            coup_deal_card(coup=coup, card=card, hand=hand, actor=pit_boss)
    assert Shoe.objects.get(pk=shoe.pk).position == shoe.position
    assert not coup.cards.exists() and not HeldCard.objects.exists()


def test_the_tableau_says_what_comes_next(coup_dealt_four, pit_boss):
    from tables.selectors import coup_deal_state

    assert coup_deal_state(coup=coup_dealt_four).next_hand() == "player"
    coup_deal_card(coup=coup_dealt_four, card="4H", hand="player", actor=pit_boss)
    assert coup_deal_state(coup=coup_dealt_four).next_hand() == "banker"  # banker 3 draws on a 4
    coup_deal_card(coup=coup_dealt_four, card="6S", hand="banker", actor=pit_boss)
    assert coup_deal_state(coup=coup_dealt_four).next_hand() is None
    with pytest.raises(TableError, match="complete"):
        coup_deal_card(coup=coup_dealt_four, card="7S", actor=pit_boss)
    lifecycle.coup_resolve(coup=coup_dealt_four)
    coup_dealt_four.refresh_from_db()
    assert (coup_dealt_four.player_total, coup_dealt_four.banker_total, coup_dealt_four.winner) == (9, 9, "tie")


def test_bad_cards_change_nothing(coup_dealt_four, pit_boss):
    with pytest.raises(InvalidCardError):
        coup_deal_card(coup=coup_dealt_four, card="1X", actor=pit_boss)
    with pytest.raises(TableError, match="not 'tie'"):
        coup_deal_card(coup=coup_dealt_four, card="4H", hand="tie", actor=pit_boss)
    assert not HeldCard.objects.exists()
    assert coup_dealt_four.cards.count() == 4
    with pytest.raises(TableError, match="not complete"):
        lifecycle.coup_resolve(coup=coup_dealt_four)


def test_cards_cannot_be_dealt_while_betting(dealer_table, pit_boss):
    start_physical_shoe(dealer_table, pit_boss, "5D")
    coup = coup_open(table=dealer_table, actor=pit_boss)
    with pytest.raises(TableError, match="betting"):
        coup_deal_card(coup=coup, card="9S", actor=pit_boss)


@pytest.mark.parametrize(("rule", "last_coup"), [("one_more_coup", 2), ("end_of_coup", 1)])
def test_a_shoe_keeps_the_cut_card_rule_it_was_prepared_with(dealer_table, pit_boss, rule, last_coup):
    table_rules_update(table=dealer_table, actor=pit_boss, changes={"cut_card_rule": rule}, reason="set")
    shoe = start_physical_shoe(dealer_table, pit_boss, "5D")
    other = "end_of_coup" if rule == "one_more_coup" else "one_more_coup"
    table_rules_update(table=dealer_table, actor=pit_boss, changes={"cut_card_rule": other}, reason="mid")
    coup = coup_open(table=dealer_table, actor=pit_boss)
    lifecycle.coup_close_betting(coup=coup, actor=pit_boss)
    coup_deal_card(coup=coup, card="2S", hand="player", actor=pit_boss)
    shoe_cut_card_out(shoe=shoe, actor=pit_boss)  # out during the first coup
    shoe.refresh_from_db()
    assert (shoe.cut_card_rule, shoe.last_coup) == (rule, last_coup)
    assert shoe_prepare(table=dealer_table, actor=pit_boss).cut_card_rule == other


def test_cut_card_out_before_a_first_card_makes_that_coup_the_last(dealer_table, pit_boss):
    shoe = start_physical_shoe(dealer_table, pit_boss, "5D")
    coup = coup_open(table=dealer_table, actor=pit_boss)
    shoe_cut_card_out(shoe=shoe, actor=pit_boss)
    shoe.refresh_from_db()
    assert shoe.last_coup == coup.number
    assert Shoe.objects.get(pk=shoe.pk).state == Shoe.State.IN_PLAY
