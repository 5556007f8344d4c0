import json
import subprocess
import sys
from collections import Counter
from itertools import permutations
from random import Random

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from baccarat.cards import Card, decks, parse_cards
from baccarat.replay import replay_shoe
from baccarat.rules import CUT_END_OF_COUP
from baccarat.shoe import (
    ShoeDealer,
    ShoeExhausted,
    ShoeFinished,
    burn_count,
    cut_card_position,
    new_shoe_order,
    shuffle,
)

NATURAL_COUP = "9S 2H KD 3C"  # four cards, player natural 9


def recorded_shoe(burn="AS 2C", coups=6):
    return parse_cards(burn + " " + " ".join([NATURAL_COUP] * coups))


def test_shuffle_keeps_every_card():
    order = new_shoe_order(8)
    assert len(order) == 416 and Counter(order) == Counter(decks(8))


def test_unseeded_shoes_differ():
    assert new_shoe_order(8) != new_shoe_order(8)


def test_fisher_yates_makes_every_permutation_equally_often():
    rng = Random(20261121)  # seeded only here, to make the check deterministic
    cards = parse_cards("AS 2S 3S")
    counts = Counter(tuple(shuffle(cards, rng=rng)) for _ in range(6000))
    assert set(counts) == set(permutations(cards))
    assert all(abs(n - 1000) < 150 for n in counts.values()), counts  # ~5 standard deviations


@pytest.mark.parametrize("count", [0, 9])
def test_shoe_holds_one_to_eight_decks(count):
    with pytest.raises(ValueError, match="1 to 8 decks"):
        new_shoe_order(count)


@pytest.mark.parametrize(("code", "burned"), [("AS", 1), ("5H", 5), ("9D", 9), ("TC", 10), ("JS", 10), ("KH", 10)])
def test_burn_count(code, burned):
    assert burn_count(Card.parse(code)) == burned


def test_burn_shows_the_first_card_and_burns_its_value():
    dealer = ShoeDealer(parse_cards("3S 4H 5D 6C 7S"), cut_card_position=5)
    burn = dealer.burn()
    assert burn.shown.code == "3S" and [c.code for c in burn.burned] == ["4H", "5D", "6C"]
    assert dealer.cards_left == 1


def coups_played(cut_card_position, rule="one_more_coup", shoe=None):
    return len(replay_shoe(shoe or recorded_shoe(), cut_card_position=cut_card_position, cut_card_rule=rule).coups)


def test_cut_card_in_place_of_a_first_card_makes_that_coup_the_last():
    assert coups_played(6) == 2  # index 6 is coup 2's first card


@pytest.mark.parametrize("position", [7, 8, 9])
def test_cut_card_during_a_coup_plays_one_more(position):
    assert coups_played(position) == 3


@pytest.mark.parametrize("position", [6, 7, 9])
def test_seed_000_variant_ends_after_the_current_coup(position):
    assert coups_played(position, CUT_END_OF_COUP) == 2


@pytest.mark.parametrize("position", [0, 1])
def test_cut_card_during_the_burn_leaves_one_coup(position):
    assert coups_played(position) == 1


def test_no_coup_after_the_shoe_is_finished():
    dealer = ShoeDealer(recorded_shoe(), cut_card_position=6)
    dealer.burn()
    dealer.deal_coup()
    dealer.deal_coup()
    assert dealer.finished and dealer.cut_card_out
    with pytest.raises(ShoeFinished):
        dealer.begin_coup()


def test_a_shoe_that_runs_out_mid_coup_is_an_error():
    cards = recorded_shoe(coups=2)[:-1]
    with pytest.raises(ShoeExhausted):
        replay_shoe(cards, cut_card_position=100)


def test_a_shoe_that_runs_out_between_coups_just_ends():
    replay = replay_shoe(recorded_shoe(coups=2), cut_card_position=100)
    assert len(replay.coups) == 2 and replay.cards_left == 0


def test_a_whole_random_shoe_deals_every_card_once():
    order = new_shoe_order(8)
    replay = replay_shoe(order)
    dealt = [*replay.burn.cards]
    for coup in replay.coups:
        dealt += [coup.player[0], coup.banker[0], coup.player[1], coup.banker[1], *coup.player[2:], *coup.banker[2:]]
    assert dealt == order[: len(dealt)]
    assert 364 - 6 <= len(dealt) <= 364 + 12  # the cut card 52 from the bottom, plus at most two coups
    assert replay.cards_left == 416 - len(dealt)


def write_shoe(tmp_path, text):
    path = tmp_path / "shoe.txt"
    path.write_text(text)
    return path


def test_play_shoe_json(tmp_path, capsys):
    path = write_shoe(tmp_path, "AS 2C " + " ".join([NATURAL_COUP] * 4) + " 2S 3H 3D TC 4H 6S")
    call_command("play_shoe", cards=str(path), cut_card=7, json=True)
    data = json.loads(capsys.readouterr().out)
    assert data["burn"] == {"shown": "AS", "burned": ["2C"]}
    assert [coup["number"] for coup in data["coups"]] == [1, 2, 3]
    assert data["coups"][0] == {
        "number": 1,
        "player": ["9S", "KD"],
        "banker": ["2H", "3C"],
        "player_total": 9,
        "banker_total": 5,
        "winner": "player",
        "natural": True,
        "player_pair": False,
        "banker_pair": False,
    }
    assert data["cards_left"] == 2 + 4 * 4 + 6 - 2 - 12


def test_play_shoe_readable(tmp_path, capsys):
    call_command("play_shoe", cards=str(write_shoe(tmp_path, " ".join(map(str, new_shoe_order(8))))))
    out = capsys.readouterr().out
    assert out.startswith("Burn: shown") and "Coups:" in out


@pytest.mark.parametrize(
    ("text", "message"),
    [("AS 2C 9S XX", "'XX'"), ("AS 2C 9S 2H KD", "ran out of cards"), ("", "no cards")],
)
def test_play_shoe_errors(tmp_path, text, message):
    with pytest.raises(CommandError, match=message):
        call_command("play_shoe", cards=str(write_shoe(tmp_path, text)), cut_card=100)


def test_play_shoe_exits_non_zero_with_a_message(tmp_path):
    path = write_shoe(tmp_path, "AS 2C 9S ZZ")
    done = subprocess.run(
        [sys.executable, "manage.py", "play_shoe", "--cards", str(path), "--json"], capture_output=True, text=True
    )
    assert done.returncode != 0 and "'ZZ'" in done.stderr and done.stdout == ""


def test_core_imports_no_django():
    code = (
        "import sys; import baccarat.cards, baccarat.shoe, baccarat.coup, baccarat.paytables, "
        "baccarat.replay, baccarat.rules, baccarat.tableau; print('django' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_the_cut_card_leaves_the_cards_asked_behind_it():
    assert cut_card_position(deck_count=8, cards_behind=52) == 416 - 52
    assert cut_card_position(deck_count=6, cards_behind=14) == 312 - 14
    for cards_behind in (-1, 417):
        with pytest.raises(ValueError, match="cut card"):
            cut_card_position(deck_count=8, cards_behind=cards_behind)
