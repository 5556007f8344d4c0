"""The exact odds analyzer: seed 001's return tables, brute force on small shoes, the command."""

import json
import subprocess
import sys
from collections import Counter
from decimal import Decimal
from fractions import Fraction
from io import StringIO
from itertools import permutations
from pathlib import Path
from random import Random

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from hypothesis import given, settings
from hypothesis import strategies as st

from baccarat import odds
from baccarat.cards import Card, deck, decks, parse_cards
from baccarat.coup import deal_coup
from baccarat.odds import ShoeComposition, analyze, falling
from baccarat.paytables import BET_NAMES, PAYTABLES, Paytable, build_paytables

ROOT = Path(__file__).resolve().parents[2]
EIGHT_DECKS = analyze(ShoeComposition.full(8))
TOTAL_8 = 416 * 415 * 414 * 413 * 412 * 411


# --- Seed 001, 8 decks ------------------------------------------------------------------


def test_the_total_is_every_ordered_6_card_deal():
    assert EIGHT_DECKS.total == TOTAL_8 == 4_998_398_275_503_360 == falling(416, 6)


def test_seed_outcome_counts():
    assert EIGHT_DECKS.outcomes == {
        "banker": 2_292_252_566_437_888,
        "player": 2_230_518_282_592_256,
        "tie": 475_627_426_473_216,
    }


@pytest.mark.parametrize(("bet", "edge"), [("banker", 0.010579), ("player", 0.012351), ("tie", 0.143596)])
def test_seed_main_bet_edges(bet, edge):
    assert round(float(EIGHT_DECKS.bets[bet].house_edge), 6) == edge


def test_main_bets_exactly():
    banker, player, tie = (EIGHT_DECKS.outcomes[o] for o in ("banker", "player", "tie"))
    bets = EIGHT_DECKS.bets
    assert bets["banker"].house_edge == Fraction(player - Fraction(95, 100) * banker, TOTAL_8)
    assert bets["player"].house_edge == Fraction(banker - player, TOTAL_8)
    assert bets["tie"].house_edge == Fraction(banker + player - 8 * tie, TOTAL_8)
    assert bets["banker"].events == {"win": banker, "push": tie, "lose": player}


@pytest.mark.parametrize("bet", ["player_pair", "banker_pair"])
def test_seed_pair_bets(bet):
    # Seed: 6448 pairs of C(416, 2) = 86320 two-card hands, return -0.103614 at 11:1.
    odds_ = EIGHT_DECKS.bets[bet]
    assert Fraction(odds_.events["win"], TOTAL_8) == Fraction(6448, 86320)
    assert round(float(odds_.house_edge), 6) == 0.103614


# Seed 001's bonus tables; "lose" and the total carry the corrected figures (docs/odds.md).
PLAYER_BONUS = {
    "win_by_9": 18_409_431_764_992,
    "win_by_8": 34_097_645_543_424,
    "win_by_7": 89_590_261_473_280,
    "win_by_6": 141_238_897_317_888,
    "win_by_5": 166_169_165_987_840,
    "win_by_4": 186_780_352_174_080,
    "natural_win": 812_685_054_124_032,
    "natural_tie": 89_325_908_267_520,
    "lose": 3_460_101_558_850_304,  # seed: ...850,300
}
BANKER_BONUS = {
    "win_by_9": 15_390_342_909_952,
    "win_by_8": 28_305_092_784_128,
    "win_by_7": 79_517_099_278_336,
    "win_by_6": 119_200_072_366_080,
    "win_by_5": 157_275_882_332_160,
    "win_by_4": 201_147_167_287_296,
    "natural_win": 812_685_054_124_032,
    "natural_tie": 89_325_908_267_520,
    "lose": 3_495_551_656_153_856,  # seed: ...153,850
}


@pytest.mark.parametrize(
    ("bet", "table", "edge"), [("player_bonus", PLAYER_BONUS, 0.026517), ("banker_bonus", BANKER_BONUS, 0.093731)]
)
def test_seed_bonus_tables(bet, table, edge):
    odds_ = EIGHT_DECKS.bets[bet]
    assert odds_.events == table
    assert sum(table.values()) == TOTAL_8  # the seed prints ...503,350 for the total
    assert round(float(odds_.house_edge), 6) == edge


def test_events_are_listed_best_paying_first():
    assert list(EIGHT_DECKS.bets["player_bonus"].events)[:2] == ["win_by_9", "win_by_8"]
    assert list(EIGHT_DECKS.bets["player"].events) == ["win", "push", "lose"]


# --- Brute force: every ordered 6-card deal of a small shoe ------------------------------


def brute_force(cards, paytables):
    """Deal every ordered 6 of ``cards`` through the coup, then settle each distinct coup with the paytables."""
    coups = Counter(deal_coup(iter(order).__next__) for order in permutations(cards, 6))
    outcomes, events, returned = Counter(), {bet: Counter() for bet in paytables}, Counter()
    for result, n in coups.items():
        outcomes[result.winner] += n
        for bet, table in paytables.items():
            events[bet][table.event(result)] += n
            returned[bet] += n * table.net(result)  # Decimal: exact at these sizes
    return outcomes, events, {bet: Fraction(net) for bet, net in returned.items()}


def assert_matches_brute_force(cards, paytables=PAYTABLES):
    analysis = analyze(ShoeComposition.of(cards), paytables=paytables)
    outcomes, events, returned = brute_force(cards, paytables)
    total = falling(len(cards), 6)
    assert analysis.total == total == sum(outcomes.values())
    assert {o: n for o, n in analysis.outcomes.items() if n} == dict(outcomes)
    for bet in paytables:
        odds_ = analysis.bets[bet]
        assert {e: n for e, n in odds_.events.items() if n} == dict(events[bet]), bet
        assert odds_.house_edge == -returned[bet] / total, bet


def test_brute_force_a_one_deck_shoe_with_45_cards_dealt():
    rest = Random(2024).sample(deck(), 7)
    shoe = ShoeComposition.full(1).remove([card for card in deck() if card not in rest])
    assert shoe == ShoeComposition.of(rest)
    assert_matches_brute_force(rest)


def test_brute_force_identical_cards_and_pairs_with_a_9_to_1_tie():
    # Two decks' worth of duplicates: suited pairs in both hands, rank pairs, naturals and draws.
    cards = parse_cards("AS AS 5H 5D 9C KS KS 4H")
    assert_matches_brute_force(cards, build_paytables(tie_pays=9))


@settings(max_examples=10, deadline=None)
@given(st.lists(st.sampled_from(decks(2)), min_size=6, max_size=7))
def test_brute_force_random_tiny_shoes(cards):
    assert_matches_brute_force(cards)


# --- Properties --------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 8), st.floats(0, 1), st.randoms(use_true_random=False))
def test_counts_add_up_on_depleted_shoes(deck_count, share, rng):
    cards = decks(deck_count)
    dealt = rng.sample(cards, int(share * (len(cards) - 6)))
    shoe = ShoeComposition.full(deck_count).remove(dealt)
    analysis = analyze(shoe)
    assert shoe.size == 52 * deck_count - len(dealt)
    assert analysis.total == falling(shoe.size, 6) == sum(analysis.outcomes.values())
    assert set(analysis.bets) == set(BET_NAMES)
    for odds_ in analysis.bets.values():
        assert sum(odds_.events.values()) == analysis.total
        assert odds_.rtp == 1 - odds_.house_edge
        assert odds_.house_edge == -sum(odds_.nets[e] * n for e, n in odds_.events.items()) / analysis.total
    # The player's and the banker's first two cards are alike: the two pair bets have the same count.
    assert analysis.bets["player_pair"].events == analysis.bets["banker_pair"].events
    ranks = shoe.rank_counts()
    pair = Fraction(sum(falling(c, 2) for c in ranks), falling(shoe.size, 2))
    assert Fraction(analysis.bets["player_pair"].events["win"], analysis.total) == pair


def test_int64_and_python_int_arithmetic_agree(monkeypatch):
    shoe = ShoeComposition.full(8).remove(parse_cards("AS 9H 9D KC 5S 5S 2H"))
    fast = analyze(shoe)
    monkeypatch.setattr(odds, "_INT64_LIMIT", 0)
    exact = analyze(shoe)
    assert exact.outcomes == fast.outcomes
    assert {b: (o.events, o.house_edge) for b, o in exact.bets.items()} == {
        b: (o.events, o.house_edge) for b, o in fast.bets.items()
    }


def test_a_shoe_too_big_for_int64_is_still_exact():
    analysis = analyze(ShoeComposition.full(40))
    assert analysis.total > 2**63 and sum(analysis.outcomes.values()) == analysis.total


# --- Shoe composition --------------------------------------------------------------------


def test_composition_counts():
    shoe = ShoeComposition.full(8).remove(parse_cards("AS AS KD 5H"))
    assert shoe.size == 412
    assert shoe.count(Card("A", "S")) == 6 and shoe.count(Card("A", "H")) == 8
    assert shoe.value_counts() == (127, 30, 32, 32, 32, 31, 32, 32, 32, 32)
    assert sum(shoe.rank_counts()) == 412


def test_removing_a_card_the_shoe_no_longer_holds_names_it():
    shoe = ShoeComposition.full(1).remove(parse_cards("7C"))
    with pytest.raises(ValueError, match="7C"):
        shoe.remove(parse_cards("2S 7C"))


@pytest.mark.parametrize("decks_", [0, -1])
def test_a_shoe_holds_at_least_one_deck(decks_):
    with pytest.raises(ValueError, match="deck"):
        ShoeComposition.full(decks_)


def test_a_shoe_of_fewer_than_six_cards_cannot_be_analyzed():
    with pytest.raises(ValueError, match="5 cards"):
        analyze(ShoeComposition.of(parse_cards("AS 2S 3S 4S 5S")))


def test_a_bet_on_both_pairs_and_outcome_is_refused():
    mixed = Paytable(
        "pair_win",
        "Pair and win",
        {"win": Decimal(1)},
        lambda r: "win" if r.player_pair and r.winner == "player" else "lose",
    )
    with pytest.raises(ValueError, match="pair_win"):
        analyze(ShoeComposition.full(1), paytables={"pair_win": mixed})


def test_the_analyzer_imports_no_django():
    code = "import sys, baccarat.odds; print('django' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


# --- The command -------------------------------------------------------------------------


def run_json(**options):
    out = StringIO()
    call_command("baccarat_odds", json=True, stdout=out, **options)
    return json.loads(out.getvalue())


def test_command_json_for_8_decks():
    data = run_json()
    assert set(data) == {"decks", "cards", "total", "outcomes", "bets"}
    assert (data["decks"], data["cards"], data["total"]) == (8, 416, TOTAL_8)
    assert data["outcomes"] == EIGHT_DECKS.outcomes
    assert list(data["bets"]) == list(BET_NAMES)
    assert round(data["bets"]["banker"]["house_edge"], 6) == 0.010579
    for figures in data["bets"].values():
        assert set(figures) == {"house_edge", "rtp"}
        assert figures["rtp"] == pytest.approx(1 - figures["house_edge"], abs=1e-15)


def test_command_json_after_removals():
    data = run_json(decks=1, remove="AS kd 7H")
    assert (data["decks"], data["cards"], data["total"]) == (1, 49, falling(49, 6))
    expected = analyze(ShoeComposition.full(1).remove(parse_cards("AS KD 7H")))
    assert data["bets"]["tie"]["house_edge"] == float(expected.bets["tie"].house_edge)


def test_command_readable_table():
    out = StringIO()
    call_command("baccarat_odds", decks=8, stdout=out)
    text = out.getvalue()
    assert "2,292,252,566,437,888" in text and "0.458597" in text
    assert "Banker (no commission)" in text and "98.9421%" in text


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"decks": 0}, "1 to 8"),
        ({"decks": 9}, "1 to 8"),
        ({"remove": "AS ZZ"}, "'ZZ'"),
        ({"decks": 1, "remove": "QH QH"}, "QH"),
        ({"decks": 1, "remove": " ".join(card.code for card in deck()[:47])}, "5 cards"),
    ],
)
def test_command_errors(options, message):
    with pytest.raises(CommandError, match=message):
        call_command("baccarat_odds", stdout=StringIO(), **options)


@pytest.mark.parametrize(
    ("args", "message"),
    [(["--decks", "9"], "1 to 8"), (["--decks", "1", "--remove", "2C 2C"], "2C")],
)
def test_command_exits_non_zero_with_a_message(args, message):
    done = subprocess.run(
        [sys.executable, "manage.py", "baccarat_odds", "--json", *args], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode != 0 and message in done.stderr and done.stdout == ""
