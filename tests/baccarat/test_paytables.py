from decimal import Decimal

import pytest

from baccarat.cards import RANKS, Card, parse_cards
from baccarat.coup import CoupResult, resolve
from baccarat.paytables import PAYTABLES, build_paytables
from baccarat.rules import TableRules

D = Decimal


def net(bet, cards, **kwargs):
    table = build_paytables(**kwargs)[bet] if kwargs else PAYTABLES[bet]
    return table.net(resolve(parse_cards(cards)))


PLAYER_NATURAL_9 = "9S 2H KD 3C"  # P 9 natural, B 5
BANKER_SIX = "TS 6H 2D KC 2S"  # P 2 draws 2 -> 4; B 6 stands on a 2: banker wins with 6
TIE_NATURAL = "8S 8H KD KC"  # 8-8 naturals


@pytest.mark.parametrize(
    ("bet", "cards", "expected"),
    [
        ("player", PLAYER_NATURAL_9, D(1)),
        ("player", BANKER_SIX, D(-1)),
        ("player", TIE_NATURAL, D(0)),
        ("banker", BANKER_SIX, D("0.95")),
        ("banker", TIE_NATURAL, D(0)),
        ("banker_no_commission", BANKER_SIX, D("0.5")),
        ("banker_no_commission", "2S 8H KD KC", D(1)),  # banker natural 8
        ("tie", TIE_NATURAL, D(8)),
        ("tie", BANKER_SIX, D(-1)),
        ("player_pair", "JS 2H JD 3C 5S 9D", D(11)),
        ("banker_pair", "JS 2H JD 3C 5S 9D", D(-1)),
        ("either_pair", "JS 2H QD 2C 5S 9D", D(5)),
        ("perfect_pair", "4S 7H 4S 7D", D(25)),
        ("perfect_pair", "4S 7H 4C 7D", D(-1)),
        ("small", PLAYER_NATURAL_9, D("1.5")),
        ("small", BANKER_SIX, D(-1)),
        ("big", BANKER_SIX, D("0.54")),
        ("big", PLAYER_NATURAL_9, D(-1)),
    ],
)
def test_net_payouts(bet, cards, expected):
    assert net(bet, cards) == expected


def test_tie_pays_nine_as_a_setting():
    assert net("tie", TIE_NATURAL, tie_pays=9) == D(9)


@pytest.mark.parametrize(
    ("cards", "player_bonus", "banker_bonus"),
    [
        ("9S 2H KD 3C", D(1), D(-1)),  # player natural win
        (TIE_NATURAL, D(0), D(0)),  # natural tie pushes
        ("TS TH TD KC 9H KS", D(30), D(-1)),  # P 0 draws 9 -> 9; B 0 draws K -> 0: non-natural win by 9
        ("3S 2H 3D KC 4H", D(-1), D(-1)),  # P 6 stands, B 2 draws 4 -> 6: non-natural tie loses both
    ],
)
def test_bonus_bets(cards, player_bonus, banker_bonus):
    result = resolve(parse_cards(cards))
    assert PAYTABLES["player_bonus"].net(result) == player_bonus, result
    assert PAYTABLES["banker_bonus"].net(result) == banker_bonus, result


@pytest.mark.parametrize(("margin", "pays"), [(9, 30), (8, 10), (7, 6), (6, 4), (5, 2), (4, 1), (3, -1), (1, -1)])
def test_bonus_pays_by_margin_on_a_non_natural_win(margin, pays):
    # Player 0 draws a card worth `margin`; banker 0 draws a ten: a non-natural win by `margin`.
    player = (Card.parse("TS"), Card.parse("TH"), Card(RANKS[margin - 1], "D"))
    banker = (Card.parse("TC"), Card.parse("KC"), Card.parse("KS"))
    result = CoupResult(player=player, banker=banker)
    assert result.margin == margin and not result.natural
    assert PAYTABLES["player_bonus"].net(result) == D(pays)
    assert PAYTABLES["banker_bonus"].net(result) == D(-1)


def test_returned_amounts():
    result = resolve(parse_cards(BANKER_SIX))
    assert PAYTABLES["banker"].returned(D("20.00"), result) == D("39.00")
    assert PAYTABLES["player"].returned(D("20.00"), result) == D("0")
    assert PAYTABLES["player"].returned(D("20.00"), resolve(parse_cards(TIE_NATURAL))) == D("20.00")


def test_table_rules_choose_the_paytables():
    rules = TableRules(commission=False, tie_pays=9, side_bets=("small", "big"))
    offered = rules.paytables()
    assert list(offered) == ["player", "banker", "tie", "small", "big"]
    assert offered["banker"].pays["win_with_six"] == D("0.5")
    assert offered["tie"].pays["win"] == D(9)


@pytest.mark.parametrize(
    "kwargs",
    [{"decks": 0}, {"decks": 9}, {"burn": "x"}, {"cut_card_rule": "x"}, {"tie_pays": 7}, {"side_bets": ("dragon",)}],
)
def test_bad_rules_are_refused(kwargs):
    with pytest.raises(ValueError):
        TableRules(**kwargs)


@pytest.mark.parametrize(
    ("bet", "rules", "expected"),
    [
        ("player", {}, D("200")),
        ("banker", {}, D("195")),
        ("banker", {"commission": False}, D("200")),  # the commission-free banker's best pays 1:1
        ("tie", {}, D("900")),
        ("tie", {"tie_pays": 9}, D("1000")),
        ("player_pair", {"side_bets": ("player_pair",)}, D("1200")),
        ("perfect_pair", {"side_bets": ("perfect_pair",)}, D("2600")),
        ("player_bonus", {"side_bets": ("player_bonus",)}, D("3100")),  # won by 9: 30:1
        ("big", {"side_bets": ("big",)}, D("154")),
    ],
)
def test_the_largest_return_of_a_bet_is_its_best_payout_with_the_stake(bet, rules, expected):
    assert TableRules(**rules).paytables()[bet].largest_return(D("100")) == expected


def test_every_bet_returns_at_most_its_largest_return_whatever_the_cards():
    shoes = [PLAYER_NATURAL_9, BANKER_SIX, TIE_NATURAL, "4S 7H 4S 7D", "JS 2H JD 3C 5S 9D", "9S 2H 9D 4C"]
    for tie_pays in (8, 9):
        for paytable in build_paytables(tie_pays=tie_pays).values():
            returns = [paytable.returned(D("10"), resolve(parse_cards(cards))) for cards in shoes]
            assert max(returns) <= paytable.largest_return(D("10"))
