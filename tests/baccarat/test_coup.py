from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from baccarat.cards import RANKS, SUITS, Card, hand_total, parse_cards
from baccarat.coup import CoupDeal, DealingError, deal_coup, dealer_announcement, resolve
from baccarat.tableau import banker_draws, player_draws

cards_st = st.builds(Card, st.sampled_from(RANKS), st.sampled_from(SUITS))


def test_dealing_order_is_player_banker_player_banker():
    deal = CoupDeal()
    hands = [deal.add(card) for card in parse_cards("2S 3H 4D 5C")]
    assert hands == ["player", "banker", "player", "banker"]
    assert [c.code for c in deal.player] == ["2S", "4D"]
    assert [c.code for c in deal.banker] == ["3H", "5C"]


def test_a_natural_stops_the_coup():
    result = resolve(parse_cards("9S 2H KD 3C"))  # player 9, banker 5
    assert (result.player_total, result.banker_total, result.winner, result.natural) == (9, 5, "player", True)
    assert result.card_count == 4


def test_player_draws_and_banker_follows_the_tableau():
    # Player 2+3=5 draws a 4; banker 3+TD=3 draws on a 4 -> third card 6: banker 9 beats player 9? player 5+4=9.
    result = resolve(parse_cards("2S 3H 3D TC 4H 6S"))
    assert [c.code for c in result.player] == ["2S", "3D", "4H"]
    assert [c.code for c in result.banker] == ["3H", "TC", "6S"]
    assert (result.player_total, result.banker_total, result.winner) == (9, 9, "tie")


def test_banker_stands_on_3_against_a_player_8():
    result = resolve(parse_cards("AS 3H 4D KC 8H"))  # player 5 draws 8 -> 3; banker 3 stands on an 8
    assert result.banker_total == 3 and len(result.banker) == 2
    assert result.winner == "tie"


def test_player_stands_on_6_and_banker_draws_on_5():
    result = resolve(parse_cards("6S 5H KD KC 2H"))
    assert len(result.player) == 2 and [c.code for c in result.banker] == ["5H", "KC", "2H"]
    assert result.banker_total == 7 and result.winner == "banker"


def test_pairs_are_same_rank_not_same_value():
    jack_jack = resolve(parse_cards("JS 2H JD 3C 5S 9D"))
    jack_queen = resolve(parse_cards("JS 2H QD 3C 5S 9D"))
    assert jack_jack.player_pair and not jack_jack.player_perfect_pair
    assert not jack_queen.player_pair
    suited = resolve(parse_cards("4S 7H 4S 7H"))
    assert suited.player_perfect_pair and suited.banker_perfect_pair and suited.banker_pair


def test_wrong_hand_and_extra_cards_are_refused():
    deal = CoupDeal()
    with pytest.raises(DealingError, match="banker hand, but the player hand is next"):
        deal.add(Card.parse("AS"), hand="banker")
    with pytest.raises(DealingError, match="too few"):
        resolve(parse_cards("2S 3H 4D"))
    with pytest.raises(DealingError, match="takes 4"):
        resolve(parse_cards("9S 2H KD 3C 4H"))


def test_ez_flags():
    dragon = resolve(parse_cards("TS 2H 5D 2C 4H 3S"))  # player 5+4=9; banker 4 draws on 4 -> 7
    assert dragon.winner == "player" and not dragon.banker_three_card_seven
    seven = resolve(parse_cards("TS 4H 2D KC 3H 3S"))  # player 2+3=5; banker 4 draws on 3 -> 7
    assert seven.banker_three_card_seven and seven.winner == "banker"
    panda = resolve(parse_cards("TS 6H 3D KC 5H"))  # player 3+5=8, banker 6 stands on 5
    assert panda.player_three_card_eight


@given(st.lists(cards_st, min_size=6, max_size=6))
def test_any_six_cards_follow_the_tableau(cards):
    result = deal_coup(iter(cards).__next__)
    player_two, banker_two = hand_total(result.player[:2]), hand_total(result.banker[:2])
    natural = player_two >= 8 or banker_two >= 8
    assert result.natural is natural
    assert len(result.player) == (2 if natural or not player_draws(player_two) else 3)
    third = result.player[2].value if len(result.player) == 3 else None
    assert len(result.banker) == (2 if natural or not banker_draws(banker_two, third) else 3)
    assert list(cards[: result.card_count]) == _dealing_order(result)
    assert result.player_total == sum(c.value for c in result.player) % 10
    assert (result.winner == "tie") is (result.player_total == result.banker_total)
    assert result.margin == abs(result.player_total - result.banker_total)


def _dealing_order(result):
    first_four = [result.player[0], result.banker[0], result.player[1], result.banker[1]]
    return first_four + list(result.player[2:]) + list(result.banker[2:])


def test_as_dict_is_json_ready():
    data = resolve(parse_cards("9S 2H KD 3C")).as_dict()
    assert data == {
        "player": ["9S", "KD"],
        "banker": ["2H", "3C"],
        "player_total": 9,
        "banker_total": 5,
        "winner": "player",
        "natural": True,
        "player_pair": False,
        "banker_pair": False,
    }
    assert not any(isinstance(v, Decimal) for v in data.values())


@pytest.mark.parametrize(
    ("cards", "announced"),
    [
        ("", "Card 1 to the Player"),
        ("9S 2H KD", "Card 4 to the Banker"),
        ("9S 2H KD 3C", "Natural: both hands stand. Resolve the coup."),
        ("2S 3H KD 3C", "Player draws"),
        ("2S 3H 5D KC", "Player stands, Banker draws"),
        ("2S 3H 5D 4C", "Player stands, Banker stands. Resolve the coup."),
        ("2S 3H KD 3C 6D", "Banker draws"),
        ("2S 3H KD 3C 4D", "Banker stands. Resolve the coup."),
        ("2S 3H KD 3C 6D 5H", "Both hands complete. Resolve the coup."),
    ],
)
def test_the_dealer_announces_what_the_tableau_says_comes_next(cards, announced):
    deal = CoupDeal()
    for card in parse_cards(cards):
        deal.add(card)
    assert dealer_announcement(deal) == announced
