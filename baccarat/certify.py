"""Statistical certification of a shuffle: five tests at the 99% level.

``certify(shuffle, shoes=..., decks=...)`` shuffles ``shoes`` full shoes (and many copies of
a tiny deck) with the given function and runs:

1. ``card_positions``: for each of the 52 card codes, a chi-square of where its copies land
   over ``bins`` equal stretches of the shoe; the 52 p-values are combined by Bonferroni.
2. ``coup_outcomes``: a chi-square of banker / player / tie of one coup dealt from the top of
   each fresh shoe (no burn) against the exact full-shoe probabilities of ``odds.analyze``.
3. ``runs``: a Wald–Wolfowitz runs test on the colour (red / black) sequence of each shoe.
4. ``serial_correlation``: the lag-1 correlation of consecutive card values within shoes,
   a z-test against its exact mean ``-1/(n-1)`` and variance under random permutation.
5. ``permutations``: a chi-square of the frequencies of all ``k!`` orders of a tiny deck of
   ``k`` distinct cards.

Each test passes when its p-value is at least ``alpha`` (0.01). A shuffle is any function from
a sequence of cards to a new list of the same cards, e.g. ``functools.partial(shuffle,
rng=random.Random(7))`` for a reproducible run. Pure: no Django.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import permutations

import numpy as np
from scipy.stats import chi2, norm

from baccarat.cards import Card, deck, decks
from baccarat.coup import deal_coup
from baccarat.odds import OUTCOMES, ShoeComposition, analyze
from baccarat.shoe import shuffle as fisher_yates

Shuffle = Callable[[Sequence[Card]], list[Card]]

ALPHA = 0.01
DEFAULT_SHOES = 2000
DEFAULT_DECKS = 8
DEFAULT_BINS = 16
MIN_SHOES = 100  # keeps every expected chi-square count at 5 or more (ties: ~9.5 per 100 coups)
SMALL_DECK = 5  # cards in the permutation test: 5! = 120 orders
PERMUTATION_SAMPLES_PER_ORDER = 200  # expected count of each order
MIN_EXPECTED = 5

CARDS: tuple[Card, ...] = tuple(deck())  # the 52 codes, in the same order as ``odds.CARDS``
_INDEX = {card: index for index, card in enumerate(CARDS)}
_VALUES = np.array([card.value for card in CARDS], dtype=np.int64)
_RED = np.array([card.suit in "HD" for card in CARDS], dtype=bool)


class ShuffleError(ValueError):
    """The shuffle returned something other than a rearrangement of the cards it was given."""


def default_shuffle(cards: Sequence[Card]) -> list[Card]:
    """The production shuffle: Fisher–Yates with ``secrets.SystemRandom``."""
    return fisher_yates(cards)


@dataclass(frozen=True)
class Check:
    """One test: its statistic, the reference distribution and the p-value."""

    name: str
    title: str
    statistic: float
    distribution: str  # "chi2" (with ``df``) or "normal" (a z score, two-sided)
    df: int | None
    p_value: float
    alpha: float
    samples: int
    details: dict = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return self.p_value >= self.alpha

    def as_dict(self) -> dict:
        return {
            "name": self.name,
            "title": self.title,
            "statistic": self.statistic,
            "distribution": self.distribution,
            "df": self.df,
            "p_value": self.p_value,
            "alpha": self.alpha,
            "samples": self.samples,
            "passed": self.passed,
            "result": "PASS" if self.passed else "FAIL",
            "details": self.details,
        }


@dataclass(frozen=True)
class Certification:
    shoes: int
    decks: int
    alpha: float
    checks: tuple[Check, ...]

    @property
    def passed(self) -> bool:
        return all(check.passed for check in self.checks)

    @property
    def failures(self) -> tuple[str, ...]:
        return tuple(check.name for check in self.checks if not check.passed)

    def check(self, name: str) -> Check:
        return next(check for check in self.checks if check.name == name)

    def as_dict(self) -> dict:
        return {
            "shoes": self.shoes,
            "decks": self.decks,
            "cards_per_shoe": 52 * self.decks,
            "alpha": self.alpha,
            "confidence": 1 - self.alpha,
            "tests": [check.as_dict() for check in self.checks],
            "failed": list(self.failures),
            "passed": self.passed,
            "verdict": "PASS" if self.passed else "FAIL",
        }


# --- Sampling -----------------------------------------------------------------------------


def _as_indices(shuffled: Sequence[Card], cards: Sequence[Card]) -> list[int]:
    try:
        indices = [_INDEX[card] for card in shuffled]
    except (KeyError, TypeError) as error:
        raise ShuffleError(f"the shuffle returned something other than cards: {error!r}") from None
    if len(indices) != len(cards):
        raise ShuffleError(f"the shuffle returned {len(indices)} cards for {len(cards)}")
    return indices


def sample_shoes(shuffle: Shuffle, shoes: int, deck_count: int) -> np.ndarray:
    """``shoes`` shuffled shoes as card indices (into ``CARDS``): an array of shape (shoes, 52 * decks)."""
    cards = decks(deck_count)
    orders = np.array([_as_indices(shuffle(list(cards)), cards) for _ in range(shoes)], dtype=np.int64)
    counts = np.bincount((orders + 52 * np.arange(shoes)[:, None]).ravel(), minlength=52 * shoes)
    if not np.all(counts == deck_count):
        shoe = int(np.flatnonzero(counts != deck_count)[0] // 52)
        raise ShuffleError(f"shoe {shoe + 1}: the shuffle lost or duplicated cards")
    return orders


# --- The tests ----------------------------------------------------------------------------


def _chi_square(observed: np.ndarray, expected: np.ndarray) -> float:
    return float(((observed - expected) ** 2 / expected).sum())


def _two_sided(z: float) -> float:
    return float(2 * norm.sf(abs(z)))


def card_position_check(orders: np.ndarray, *, bins: int = DEFAULT_BINS, alpha: float = ALPHA) -> Check:
    """Where each card code lands: a chi-square per code over ``bins`` stretches of the shoe, Bonferroni-combined.

    A shoe of ``n`` cards holds ``d`` copies of each code; the copies take a uniformly random
    ``d``-subset of the positions, so a code's counts per bin in one shoe are multivariate
    hypergeometric: the multinomial covariance times ``(n-d)/(n-1)``. Summed over independent
    shoes the Pearson statistic times ``(n-1)/(n-d)`` is chi-square with ``bins - 1`` degrees
    of freedom. The overall p-value is ``min(1, 52 * smallest per-code p-value)`` (Bonferroni:
    valid whatever the dependence between codes, at the price of some power).
    """
    shoes, n = orders.shape
    copies = n // 52
    position_bin = np.arange(n) * bins // n  # bins differ in size by one card at most
    sizes = np.bincount(position_bin, minlength=bins)
    observed = np.bincount((orders * bins + position_bin).ravel(), minlength=52 * bins).reshape(52, bins)
    expected = shoes * copies * sizes / n
    correction = (n - 1) / (n - copies)
    statistics = ((observed - expected) ** 2 / expected).sum(axis=1) * correction
    p_values = chi2.sf(statistics, bins - 1)
    worst = int(np.argmin(p_values))
    return Check(
        name="card_positions",
        title=f"Chi-square of each card's position ({bins} bins, Bonferroni over 52 cards)",
        statistic=float(statistics[worst]),
        distribution="chi2",
        df=bins - 1,
        p_value=float(min(1.0, 52 * p_values[worst])),
        alpha=alpha,
        samples=shoes,
        details={
            "bins": bins,
            "expected_per_bin": float(expected.min()),
            "worst_card": CARDS[worst].code,
            "worst_card_p_value": float(p_values[worst]),
            "cards_below_alpha": int((p_values < alpha).sum()),
            "correction": correction,
            "per_card_p_values": {card.code: round(float(p), 6) for card, p in zip(CARDS, p_values, strict=True)},
        },
    )


def coup_outcome_check(orders: np.ndarray, *, alpha: float = ALPHA) -> Check:
    """Banker / player / tie of one coup dealt from the top of each fresh shoe, against the exact odds.

    Only the first coup of a full shoe has exactly the full-shoe probabilities, and one coup per
    shoe keeps the coups independent: a multinomial with the probabilities of ``odds.analyze``.
    """
    shoes, n = orders.shape
    analysis = analyze(ShoeComposition.full(n // 52))
    winners = Counter(deal_coup(iter([CARDS[i] for i in row[:6]]).__next__).winner for row in orders.tolist())
    observed = np.array([winners[outcome] for outcome in OUTCOMES], dtype=float)
    probabilities = np.array([analysis.outcomes[outcome] / analysis.total for outcome in OUTCOMES])
    expected = shoes * probabilities
    statistic = _chi_square(observed, expected)
    return Check(
        name="coup_outcomes",
        title="Chi-square of the first coup's winner (banker/player/tie) vs exact odds",
        statistic=statistic,
        distribution="chi2",
        df=len(OUTCOMES) - 1,
        p_value=float(chi2.sf(statistic, len(OUTCOMES) - 1)),
        alpha=alpha,
        samples=shoes,
        details={
            "observed": {outcome: int(count) for outcome, count in zip(OUTCOMES, observed, strict=True)},
            "expected": {outcome: float(count) for outcome, count in zip(OUTCOMES, expected, strict=True)},
            "probabilities": {outcome: float(p) for outcome, p in zip(OUTCOMES, probabilities, strict=True)},
        },
    )


def runs_moments(n1: int, n2: int) -> tuple[Fraction, Fraction]:
    """Exact mean and variance of the number of runs over random orders of ``n1`` and ``n2`` marked items."""
    n = n1 + n2
    mean = 1 + Fraction(2 * n1 * n2, n)
    return mean, Fraction(2 * n1 * n2 * (2 * n1 * n2 - n), n * n * (n - 1))


def runs_check(orders: np.ndarray, *, alpha: float = ALPHA) -> Check:
    """Wald–Wolfowitz runs test on the red / black sequence of each shoe, summed over the shoes.

    Every shoe is a permutation of the same ``n1`` red and ``n2`` black cards, so the runs of a
    shoe have an exactly known mean and variance (``runs_moments``); the total over independent
    shoes gives a z score. Too few runs mean clumping, too many mean alternation: two-sided.
    """
    shoes, n = orders.shape
    red = _RED[orders]
    n1 = int(red[0].sum())
    runs = 1 + (red[:, 1:] != red[:, :-1]).sum(axis=1)
    mean, variance = runs_moments(n1, n - n1)
    z = float((int(runs.sum()) - shoes * mean) / math.sqrt(shoes * variance))
    return Check(
        name="runs",
        title="Wald–Wolfowitz runs test on red/black along each shoe",
        statistic=z,
        distribution="normal",
        df=None,
        p_value=_two_sided(z),
        alpha=alpha,
        samples=shoes,
        details={"mean_runs": float(runs.mean()), "expected_runs": float(mean), "red": n1, "black": n - n1},
    )


def lag1_moments(values: Sequence[int]) -> tuple[Fraction, Fraction]:
    """Exact mean and variance of ``S = sum (y_i y_(i+1))``, ``y = x - mean``, over random orders of ``values``.

    With the power sums ``p_k`` of ``y`` (``p_1 = 0``) and ``(n)_k = n (n-1) ... (n-k+1)``, sums over
    distinct positions give ``E[y_a y_b] = -p2/(n)_2``, ``E[y_a^2 y_b^2] = (p2^2 - p4)/(n)_2``,
    ``E[y_a^2 y_b y_c] = (2 p4 - p2^2)/(n)_3`` and ``E[y_a y_b y_c y_d] = (3 p2^2 - 6 p4)/(n)_4``.
    ``S`` has ``m = n-1`` terms: ``m`` squares, ``2(m-1)`` products of neighbours sharing a card and
    ``(m-1)(m-2)`` products of disjoint pairs. ``E[S] = -p2/n``: the lag-1 correlation
    ``S / (m p2/n)`` has mean ``-1/(n-1)``.
    """
    n = len(values)
    mean = Fraction(sum(values), n)
    y = [value - mean for value in values]
    p2 = sum(v**2 for v in y)
    p4 = sum(v**4 for v in y)
    m = n - 1
    f2, f3, f4 = n * (n - 1), n * (n - 1) * (n - 2), n * (n - 1) * (n - 2) * (n - 3)
    expected = m * -p2 / f2
    second = m * (p2**2 - p4) / f2 + 2 * (m - 1) * (2 * p4 - p2**2) / f3 + (m - 1) * (m - 2) * (3 * p2**2 - 6 * p4) / f4
    return expected, second - expected**2


def serial_correlation_check(orders: np.ndarray, *, alpha: float = ALPHA) -> Check:
    """Lag-1 correlation of consecutive card values (0-9) within each shoe, against its exact mean and variance.

    Every shoe holds the same multiset of values, so the mean and variance of ``sum y_i y_(i+1)`` are
    known exactly (``lag1_moments``); the total over independent shoes gives a z score.
    """
    shoes, n = orders.shape
    values = _VALUES[orders]
    composition = values[0].tolist()
    expected, variance = lag1_moments(composition)
    # Exact integers: n^2 * sum (x_i - t/n)(x_(i+1) - t/n), with t the shoe's total value.
    t = sum(composition)
    centred = n * values - t
    total = Fraction(int((centred[:, 1:] * centred[:, :-1]).sum()), n * n)
    z = float((total - shoes * expected) / math.sqrt(shoes * variance))
    scale = -(n - 1) * expected  # (n-1) p2 / n: S / scale is the lag-1 correlation of a shoe
    return Check(
        name="serial_correlation",
        title="Lag-1 serial correlation of card values within shoes vs -1/(n-1)",
        statistic=z,
        distribution="normal",
        df=None,
        p_value=_two_sided(z),
        alpha=alpha,
        samples=shoes,
        details={
            "mean_correlation": float(total / shoes / scale),
            "expected_correlation": -1 / (n - 1),
            "sd_per_shoe": float(math.sqrt(variance) / scale),
        },
    )


def permutation_check(
    shuffle: Shuffle, *, cards: int = SMALL_DECK, samples: int | None = None, alpha: float = ALPHA
) -> Check:
    """Shuffle a deck of ``cards`` distinct cards ``samples`` times: chi-square over all ``cards!`` orders."""
    if not 2 <= cards <= 7:
        raise ValueError(f"the small deck holds 2 to 7 cards, not {cards}")
    small = list(CARDS[:cards])
    orders = {order: index for index, order in enumerate(permutations(range(cards)))}
    if samples is None:
        samples = PERMUTATION_SAMPLES_PER_ORDER * len(orders)
    if samples < MIN_EXPECTED * len(orders):
        raise ValueError(f"{cards} cards need at least {MIN_EXPECTED * len(orders)} samples, not {samples}")
    counts = np.zeros(len(orders))
    for _ in range(samples):
        order = tuple(_as_indices(shuffle(list(small)), small))
        if order not in orders:
            raise ShuffleError("the shuffle lost or duplicated cards of the small deck")
        counts[orders[order]] += 1
    expected = np.full(len(orders), samples / len(orders))
    statistic = _chi_square(counts, expected)
    df = len(orders) - 1
    return Check(
        name="permutations",
        title=f"Chi-square of the {len(orders)} orders of a {cards}-card deck",
        statistic=statistic,
        distribution="chi2",
        df=df,
        p_value=float(chi2.sf(statistic, df)),
        alpha=alpha,
        samples=samples,
        details={
            "cards": [card.code for card in small],
            "expected_per_order": samples / len(orders),
            "min_count": int(counts.min()),
            "max_count": int(counts.max()),
        },
    )


def certify(
    shuffle: Shuffle = default_shuffle,
    *,
    shoes: int = DEFAULT_SHOES,
    decks: int = DEFAULT_DECKS,
    alpha: float = ALPHA,
    bins: int = DEFAULT_BINS,
    small_deck: int = SMALL_DECK,
    permutation_samples: int | None = None,
) -> Certification:
    """Run the five tests on ``shoes`` shoes of ``decks`` decks shuffled by ``shuffle``."""
    if not 1 <= decks <= 8:
        raise ValueError(f"a shoe holds 1 to 8 decks, not {decks}")
    if shoes < MIN_SHOES:
        raise ValueError(f"at least {MIN_SHOES} shoes are needed, not {shoes}")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be between 0 and 1, not {alpha}")
    if not 2 <= bins <= 52 * decks or shoes * decks * (52 * decks // bins) / (52 * decks) < MIN_EXPECTED:
        raise ValueError(f"{bins} position bins do not suit {shoes} shoes of {decks} decks")
    orders = sample_shoes(shuffle, shoes, decks)
    checks = (
        card_position_check(orders, bins=bins, alpha=alpha),
        coup_outcome_check(orders, alpha=alpha),
        runs_check(orders, alpha=alpha),
        serial_correlation_check(orders, alpha=alpha),
        permutation_check(shuffle, cards=small_deck, samples=permutation_samples, alpha=alpha),
    )
    return Certification(shoes=shoes, decks=decks, alpha=alpha, checks=checks)
