"""The statistical certification of the shuffle (``baccarat/certify.py``) and its command.

Every test at the 99% level fails 1% of the time by chance, so a run on the OS CSPRNG would make
these tests flaky. They are deterministic instead: the REAL Fisher–Yates ``shuffle`` is given a
seeded ``random.Random`` (its ``rng`` parameter), and the biased shuffles below draw from seeded
generators too. The seeds are arbitrary; the assertions are on those fixed runs.
"""

import json
import subprocess
import sys
from fractions import Fraction
from functools import partial
from io import StringIO
from itertools import pairwise, permutations
from pathlib import Path
from random import Random

import numpy as np
import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from baccarat import certify as certify_module
from baccarat.cards import parse_cards
from baccarat.certify import (
    ALPHA,
    CARDS,
    MIN_SHOES,
    ShuffleError,
    certify,
    lag1_moments,
    permutation_check,
    runs_check,
    runs_moments,
    serial_correlation_check,
)
from baccarat.shoe import shuffle

ROOT = Path(__file__).resolve().parents[2]
SHOES = 500  # per run: the tests below take a fraction of a second each
TEST_NAMES = ["card_positions", "coup_outcomes", "runs", "serial_correlation", "permutations"]


def fair(seed):
    """The production Fisher–Yates, on a seeded generator so that the run is reproducible."""
    return partial(shuffle, rng=Random(seed))


# --- Biased shuffles ----------------------------------------------------------------------


def naive_swaps(cards, rng):
    """The classic mistake: swap each card with ANY position. n^n equally likely paths onto n! orders."""
    order = list(cards)
    for i in range(len(order)):
        j = rng.randrange(len(order))
        order[i], order[j] = order[j], order[i]
    return order


def off_by_one(cards, rng):
    """``randrange(i)`` instead of ``randrange(i + 1)``: Sattolo's algorithm, only cyclic orders."""
    order = list(cards)
    for i in range(len(order) - 1, 0, -1):
        j = rng.randrange(i)
        order[i], order[j] = order[j], order[i]
    return order


def modulo_biased(cards, rng, bits=3):
    """An index from a small random source reduced modulo the range: low indices come up more often."""
    order = list(cards)
    for i in range(len(order) - 1, 0, -1):
        j = rng.getrandbits(bits) % (i + 1)
        order[i], order[j] = order[j], order[i]
    return order


def last_cards_in_place(cards, rng, kept=10):
    """Shuffles all but the last ``kept`` cards, which stay where the new shoe had them."""
    return shuffle(cards[:-kept], rng=rng) + list(cards[-kept:])


def stacked_top(cards, rng):
    """A fair shuffle, then the top card "sorted": the highest value of the first four cards goes on top."""
    order = shuffle(cards, rng=rng)
    high = max(range(4), key=lambda i: order[i].value)
    return [order[high], *order[:high], *order[high + 1 :]]


def riffles(cards, rng, times):
    """``times`` riffle shuffles (Gilbert–Shannon–Reeds) of the new shoe: too few to mix 416 cards."""
    order = list(cards)
    n = len(order)
    for _ in range(times):
        cut = bin(rng.getrandbits(n)).count("1")
        left, right, out = 0, cut, []
        while left < cut or right < n:
            if rng.randrange(cut - left + n - right) < cut - left:
                out.append(order[left])
                left += 1
            else:
                out.append(order[right])
                right += 1
        order = out
    return order


def run(shuffler, seed, shoes=SHOES, decks=8):
    return certify(partial(shuffler, rng=Random(seed)), shoes=shoes, decks=decks)


# --- The real shuffle passes --------------------------------------------------------------


@pytest.mark.parametrize("decks", [8, 1])
def test_the_real_fisher_yates_passes(decks):
    result = certify(fair(20261121), shoes=SHOES, decks=decks)
    assert [check.name for check in result.checks] == TEST_NAMES
    assert result.passed and result.failures == (), result.as_dict()
    for check in result.checks:
        assert check.alpha == ALPHA and 0 <= check.p_value <= 1 and check.p_value >= ALPHA
    assert result.check("coup_outcomes").samples == SHOES
    assert result.check("permutations").samples == 120 * 200


def test_the_report_is_json():
    data = json.loads(json.dumps(certify(fair(7), shoes=MIN_SHOES, decks=2).as_dict()))
    assert (data["shoes"], data["decks"], data["cards_per_shoe"], data["alpha"]) == (MIN_SHOES, 2, 104, 0.01)
    assert data["verdict"] == "PASS" and data["passed"] is True and data["failed"] == []
    positions, coups, runs, serial, perms = data["tests"]
    assert (positions["distribution"], positions["df"]) == ("chi2", 15)
    assert (coups["distribution"], coups["df"]) == ("chi2", 2)
    assert (runs["distribution"], runs["df"], serial["df"]) == ("normal", None, None)
    assert (perms["df"], perms["details"]["cards"]) == (119, ["AS", "2S", "3S", "4S", "5S"])
    assert sum(coups["details"]["observed"].values()) == MIN_SHOES
    assert len(positions["details"]["per_card_p_values"]) == 52
    for test in data["tests"]:
        assert {"statistic", "df", "p_value", "result", "passed", "samples"} <= set(test)
        assert test["result"] == ("PASS" if test["p_value"] >= 0.01 else "FAIL")


# --- Biased shuffles fail the test designed to catch them ---------------------------------


@pytest.mark.parametrize(
    ("shuffler", "caught_by", "shoes"),
    [
        pytest.param(naive_swaps, "permutations", SHOES, id="naive-swap-with-any-position"),
        pytest.param(off_by_one, "permutations", SHOES, id="off-by-one-sattolo"),
        pytest.param(modulo_biased, "permutations", SHOES, id="modulo-biased-index"),
        pytest.param(last_cards_in_place, "card_positions", SHOES, id="last-cards-left-in-place"),
        pytest.param(stacked_top, "coup_outcomes", 1000, id="top-card-sorted"),
        pytest.param(partial(riffles, times=3), "runs", 200, id="three-riffles"),
        pytest.param(partial(riffles, times=5), "serial_correlation", 200, id="five-riffles"),
    ],
)
def test_a_biased_shuffle_fails(shuffler, caught_by, shoes):
    result = run(shuffler, seed=1, shoes=shoes)
    check = result.check(caught_by)
    assert not check.passed and check.p_value < ALPHA / 100, check.as_dict()  # caught with a wide margin
    assert not result.passed and caught_by in result.failures
    assert result.as_dict()["verdict"] == "FAIL"


def test_the_naive_shuffle_is_invisible_to_the_shoe_tests_but_not_to_the_small_deck():
    result = run(naive_swaps, seed=2)
    assert result.failures == ("permutations",)


def test_a_shuffle_that_loses_cards_is_refused():
    def lose_one(cards):
        return list(cards[1:])

    def duplicate_one(cards):
        return [cards[0], *cards[:-1]]

    with pytest.raises(ShuffleError, match="415 cards for 416"):
        certify(lose_one, shoes=MIN_SHOES)
    with pytest.raises(ShuffleError, match="lost or duplicated"):
        certify(duplicate_one, shoes=MIN_SHOES)
    with pytest.raises(ShuffleError, match="other than cards"):
        certify(lambda cards: ["AS"] * len(cards), shoes=MIN_SHOES)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"shoes": MIN_SHOES - 1}, "at least 100 shoes"),
        ({"decks": 0}, "1 to 8 decks"),
        ({"decks": 9}, "1 to 8 decks"),
        ({"alpha": 0}, "alpha"),
        ({"bins": 1}, "bins"),
    ],
)
def test_certify_refuses_bad_parameters(options, message):
    with pytest.raises(ValueError, match=message):
        certify(fair(1), **{"shoes": MIN_SHOES, **options})


def test_the_permutation_test_needs_five_samples_per_order():
    with pytest.raises(ValueError, match="5 cards need at least 600 samples, not 599"):
        permutation_check(fair(1), cards=5, samples=599)
    assert permutation_check(fair(1), cards=3, samples=600).df == 5


# --- The exact null moments ---------------------------------------------------------------


@pytest.mark.parametrize("values", [[0, 0, 1, 2, 5], [1, 2, 3, 4, 5, 6], [0, 0, 0, 3, 3, 7, 9]])
def test_lag1_moments_are_exact(values):
    n = len(values)
    mean = Fraction(sum(values), n)
    sums = [sum((a - mean) * (b - mean) for a, b in pairwise(order)) for order in permutations(values)]
    expected = Fraction(sum(sums), len(sums))
    variance = Fraction(sum(s * s for s in sums), len(sums)) - expected**2
    assert lag1_moments(values) == (expected, variance)
    p2 = sum((v - mean) ** 2 for v in values)
    assert expected / ((n - 1) * p2 / n) == Fraction(-1, n - 1)  # the lag-1 correlation's mean


@pytest.mark.parametrize(("n1", "n2"), [(3, 3), (2, 5), (4, 3)])
def test_runs_moments_are_exact(n1, n2):
    counts = [1 + sum(a != b for a, b in pairwise(order)) for order in permutations([1] * n1 + [0] * n2)]
    mean = Fraction(sum(counts), len(counts))
    assert runs_moments(n1, n2) == (mean, Fraction(sum(c * c for c in counts), len(counts)) - mean**2)


def test_every_order_of_a_small_deck_scores_exactly_the_expectation():
    """Over all orders of a deck, the total runs and the total lag-1 products equal their expected values."""
    index = {card: i for i, card in enumerate(CARDS)}
    deck = [index[card] for card in parse_cards("AS 2H 3D 4C 9S KH")]
    orders = np.array(list(permutations(deck)))
    assert runs_check(orders).statistic == pytest.approx(0, abs=1e-9)
    assert serial_correlation_check(orders).statistic == 0


def test_the_pure_module_imports_no_django():
    code = "import sys, baccarat.certify; print('django' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


# --- The command --------------------------------------------------------------------------


def test_command_json():
    out = StringIO()
    call_command("certify_shuffle", shoes=200, decks=8, seed=3, json=True, stdout=out)
    data = json.loads(out.getvalue())
    assert (data["shoes"], data["decks"], data["verdict"]) == (200, 8, "PASS")
    assert data["shuffle"] == "Fisher–Yates, random.Random(3)"
    assert [test["name"] for test in data["tests"]] == TEST_NAMES
    for test in data["tests"]:
        assert test["result"] == "PASS" and test["p_value"] >= 0.01


def test_command_report():
    out = StringIO()
    call_command("certify_shuffle", "--shoes", "150", "--seed", "5", stdout=out)
    text = out.getvalue()
    assert "150 shoes of 8 decks (416 cards)" in text and "alpha = 0.01 (99% confidence)" in text
    for name in TEST_NAMES:
        assert name in text
    assert "Verdict: PASS (5 of 5 tests passed)" in text


def test_command_fails_a_biased_shuffle(monkeypatch):
    from tables.management.commands import certify_shuffle

    monkeypatch.setattr(certify_shuffle, "default_shuffle", partial(naive_swaps, rng=Random(4)))
    out = StringIO()
    with pytest.raises(
        CommandError, match=r"FAILED certification at the 99% level: 1 of 5 tests failed \(permutations\)"
    ):
        call_command("certify_shuffle", shoes=MIN_SHOES, json=True, stdout=out)
    data = json.loads(out.getvalue())  # the report is printed before the failure
    assert data["verdict"] == "FAIL" and data["failed"] == ["permutations"]


def test_the_default_shuffle_is_the_production_one(monkeypatch):
    calls = []

    def spy(cards, *, rng=None):
        calls.append(rng)
        return shuffle(cards, rng=Random(len(calls)))

    monkeypatch.setattr(certify_module, "fisher_yates", spy)
    certify_module.default_shuffle(CARDS)
    assert calls == [None]  # no rng: shoe.shuffle falls back to secrets.SystemRandom


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--shoes", "0"], "--shoes must be at least 100, not 0"),
        (["--shoes", "99"], "at least 100"),
        (["--decks", "9"], "1 to 8"),
        (["--shoes", "many"], "invalid int value"),
    ],
)
def test_command_refuses_bad_arguments(args, message):
    with pytest.raises(CommandError, match=message):
        call_command("certify_shuffle", *args, stdout=StringIO())


def test_command_exits_non_zero_on_bad_arguments():
    done = subprocess.run(
        [sys.executable, "manage.py", "certify_shuffle", "--json", "--shoes", "0"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode != 0 and done.stdout == ""
    assert "--shoes must be at least 100, not 0" in done.stderr


def test_command_exits_zero_on_a_pass():
    done = subprocess.run(
        [sys.executable, "manage.py", "certify_shuffle", "--shoes", "100", "--seed", "11"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0 and "Verdict: PASS" in done.stdout, done.stderr
