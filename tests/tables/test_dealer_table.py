"""A dealer table: the dealer enters each card (or a card reader sends it)."""

import pytest

from tables import services
from tables.game.cards import InvalidCardError
from tables.game.coup import DealingError
from tables.game.replay import replay_shoe
from tables.game.shoe import new_shoe_order
from tables.models import AuditLog, Coup, Shoe

pytestmark = pytest.mark.django_db(transaction=True)


def start_physical_shoe(table, actor, burn_card):
    shoe = services.shoe_prepare(table=table, actor=actor, shuffle_method="preliminary", seal_number="S-1")
    return services.shoe_start(shoe=shoe, actor=actor, burn_card=burn_card)


def test_a_whole_physical_shoe_matches_the_replay(dealer_table, pit_boss):
    order = new_shoe_order(8)
    expected = replay_shoe(order)  # cut card 52 from the bottom
    shoe = start_physical_shoe(dealer_table, pit_boss, order[0].code)
    assert shoe.position == len(expected.burn.cards)
    position = shoe.position
    for number, result in enumerate(expected.coups, start=1):
        coup = services.coup_open(table=dealer_table, actor=pit_boss)
        assert coup.number == number
        services.coup_close_betting(coup=coup, actor=pit_boss)
        dealing = [result.player[0], result.banker[0], result.player[1], result.banker[1]]
        dealing += [*result.player[2:], *result.banker[2:]]
        for card in dealing:
            if position == shoe.cut_card_position:
                services.shoe_cut_card_out(shoe=shoe, actor=pit_boss)
            services.coup_deal_card(coup=coup, card=card.code, hand=None, actor=pit_boss)
            position += 1
        services.coup_resolve(coup=coup)
        coup.refresh_from_db()
        assert (coup.winner, coup.player_total, coup.banker_total) == (
            result.winner,
            result.player_total,
            result.banker_total,
        )
    shoe.refresh_from_db()
    assert services.shoe_is_finished(shoe=shoe)
    with pytest.raises(services.TableError, match="finished"):
        services.coup_open(table=dealer_table, actor=pit_boss)
    assert AuditLog.objects.filter(action="card_entered").count() == position - len(expected.burn.cards)


@pytest.fixture
def coup_dealt_four(dealer_table, pit_boss):
    start_physical_shoe(dealer_table, pit_boss, "3S")
    coup = services.coup_open(table=dealer_table, actor=pit_boss)
    services.coup_close_betting(coup=coup, actor=pit_boss)
    # Player 2+3=5 draws; banker 3+T=3.
    for card, hand in (("2S", "player"), ("3H", "banker"), ("3D", "player"), ("TC", "banker")):
        services.coup_deal_card(coup=coup, card=card, hand=hand, actor=pit_boss)
    return coup


def test_a_first_card_for_the_wrong_hand_is_put_back_in_order(dealer_table, pit_boss):
    start_physical_shoe(dealer_table, pit_boss, "AS")
    coup = services.coup_open(table=dealer_table, actor=pit_boss)
    services.coup_close_betting(coup=coup, actor=pit_boss)
    dealt = services.coup_deal_card(coup=coup, card="9S", hand="banker", actor=pit_boss)
    assert dealt.hand == "player"
    assert AuditLog.objects.filter(action="card_order_restored").exists()


def test_a_third_card_to_the_wrong_hand_voids_the_coup(coup_dealt_four, pit_boss):
    position = Shoe.objects.get(pk=coup_dealt_four.shoe_id).position
    with pytest.raises(DealingError, match="void"):
        services.coup_deal_card(coup=coup_dealt_four, card="4H", hand="banker", actor=pit_boss)
    coup_dealt_four.refresh_from_db()
    assert coup_dealt_four.state == Coup.State.VOID
    assert "dealing error" in coup_dealt_four.void_reason
    assert AuditLog.objects.filter(action="coup_voided", object_id=str(coup_dealt_four.pk)).exists()
    # The card has left the physical shoe: it counts towards the cut card, for no hand.
    assert Shoe.objects.get(pk=coup_dealt_four.shoe_id).position == position + 1
    discarded = AuditLog.objects.get(action="card_discarded", object_id=str(coup_dealt_four.pk))
    assert discarded.after == {"card": "4H", "shoe_position": position}


def test_the_tableau_says_what_comes_next(coup_dealt_four, pit_boss):
    from tables.selectors import coup_deal_state

    assert coup_deal_state(coup=coup_dealt_four).next_hand() == "player"
    services.coup_deal_card(coup=coup_dealt_four, card="4H", hand="player", actor=pit_boss)
    assert coup_deal_state(coup=coup_dealt_four).next_hand() == "banker"  # banker 3 draws on a 4
    services.coup_deal_card(coup=coup_dealt_four, card="6S", hand="banker", actor=pit_boss)
    assert coup_deal_state(coup=coup_dealt_four).next_hand() is None
    with pytest.raises(services.TableError, match="complete"):
        services.coup_deal_card(coup=coup_dealt_four, card="7S", actor=pit_boss)
    services.coup_resolve(coup=coup_dealt_four)
    coup_dealt_four.refresh_from_db()
    assert (coup_dealt_four.player_total, coup_dealt_four.banker_total, coup_dealt_four.winner) == (9, 9, "tie")


def test_bad_cards_change_nothing(coup_dealt_four, pit_boss):
    with pytest.raises(InvalidCardError):
        services.coup_deal_card(coup=coup_dealt_four, card="1X", actor=pit_boss)
    assert coup_dealt_four.cards.count() == 4
    with pytest.raises(services.TableError, match="not complete"):
        services.coup_resolve(coup=coup_dealt_four)


def test_cards_cannot_be_dealt_while_betting(dealer_table, pit_boss):
    start_physical_shoe(dealer_table, pit_boss, "5D")
    coup = services.coup_open(table=dealer_table, actor=pit_boss)
    with pytest.raises(services.TableError, match="betting"):
        services.coup_deal_card(coup=coup, card="9S", actor=pit_boss)


@pytest.mark.parametrize(("rule", "last_coup"), [("one_more_coup", 2), ("end_of_coup", 1)])
def test_a_shoe_keeps_the_cut_card_rule_it_was_prepared_with(dealer_table, pit_boss, rule, last_coup):
    services.table_rules_update(table=dealer_table, actor=pit_boss, changes={"cut_card_rule": rule}, reason="set")
    shoe = start_physical_shoe(dealer_table, pit_boss, "5D")
    other = "end_of_coup" if rule == "one_more_coup" else "one_more_coup"
    services.table_rules_update(table=dealer_table, actor=pit_boss, changes={"cut_card_rule": other}, reason="mid")
    coup = services.coup_open(table=dealer_table, actor=pit_boss)
    services.coup_close_betting(coup=coup, actor=pit_boss)
    services.coup_deal_card(coup=coup, card="2S", hand="player", actor=pit_boss)
    services.shoe_cut_card_out(shoe=shoe, actor=pit_boss)  # out during the first coup
    shoe.refresh_from_db()
    assert (shoe.cut_card_rule, shoe.last_coup) == (rule, last_coup)
    assert services.shoe_prepare(table=dealer_table, actor=pit_boss).cut_card_rule == other


def test_cut_card_out_before_a_first_card_makes_that_coup_the_last(dealer_table, pit_boss):
    shoe = start_physical_shoe(dealer_table, pit_boss, "5D")
    coup = services.coup_open(table=dealer_table, actor=pit_boss)
    services.shoe_cut_card_out(shoe=shoe, actor=pit_boss)
    shoe.refresh_from_db()
    assert shoe.last_coup == coup.number
    assert Shoe.objects.get(pk=shoe.pk).state == Shoe.State.IN_PLAY
