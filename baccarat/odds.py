"""Exact odds of every bet for any shoe composition.

The analysis counts every ordered 6-card deal from the shoe: a coup that takes k < 6
cards stands for all ``(N-k)(N-k-1)...`` ways to fill the unused positions, so every
count shares the denominator ``N(N-1)...(N-5)``.

Method. A coup at the level of card values (``7, K, 5, 2`` then third cards) is dealt
in ``prod_v n_v(n_v-1)...(n_v-m_v+1)`` ways, where ``m_v`` is how often value ``v``
occurs in it: the count depends only on the *multiset* of values. So every count is a
polynomial in the ten value counts, and its coefficients in this falling-factorial basis
are fixed integers. They are computed once (walking the tableau of ``tableau.py``); an
analysis is then one vector of weights, one per multiset of 4 to 6 values, and a sparse
product with the coefficients. The bets on the first two cards of each hand (pairs,
suited pairs) have closed forms over the rank and card counts.

The bets themselves are read from the paytables: each bet is probed with representative
coups (``Paytable.event``) and priced with ``Paytable.pays``; nothing here knows a payout.
A bet must be settled either on the card values (totals, card counts, naturals) or on the
pair state of the first two cards of each hand, not on both.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from functools import cache, lru_cache
from itertools import product
from math import lcm

import numpy as np

from baccarat.cards import RANKS, Card, deck, rank_value
from baccarat.coup import BANKER, PLAYER, TIE, CoupResult
from baccarat.paytables import LOSE, PAYTABLES, Paytable
from baccarat.tableau import banker_draws, is_natural, player_draws

CARDS: tuple[Card, ...] = tuple(deck())
_CARD_INDEX = {card: index for index, card in enumerate(CARDS)}
_RANK_INDEX = tuple(RANKS.index(card.rank) for card in CARDS)
_VALUE_INDEX = tuple(card.value for card in CARDS)
COUP_CARDS = 6  # the most cards a coup takes: the common length of every deal counted
OUTCOMES = (BANKER, PLAYER, TIE)
_INT64_LIMIT = 2**63


def falling(n: int, k: int) -> int:
    """``n (n-1) ... (n-k+1)``: ordered ways to deal ``k`` of ``n`` cards (0 when ``n < k``)."""
    if n < k:
        return 0
    result = 1
    for i in range(k):
        result *= n - i
    return result


@dataclass(frozen=True, slots=True)
class ShoeComposition:
    """How many of each of the 52 distinct cards the shoe holds (``counts`` in ``CARDS`` order)."""

    counts: tuple[int, ...]

    def __post_init__(self) -> None:
        if len(self.counts) != len(CARDS) or any(not isinstance(n, int) or n < 0 for n in self.counts):
            raise ValueError(f"a shoe composition is {len(CARDS)} non-negative card counts")

    @classmethod
    def full(cls, decks: int) -> ShoeComposition:
        if decks < 1:
            raise ValueError(f"a shoe holds at least one deck, not {decks}")
        return cls((decks,) * len(CARDS))

    @classmethod
    def of(cls, cards: Iterable[Card]) -> ShoeComposition:
        """The composition of a pile of cards."""
        counts = [0] * len(CARDS)
        for card in cards:
            counts[_CARD_INDEX[card]] += 1
        return cls(tuple(counts))

    def remove(self, cards: Iterable[Card]) -> ShoeComposition:
        """The shoe without ``cards``; a ``ValueError`` names the first card it no longer holds."""
        counts = list(self.counts)
        for card in cards:
            index = _CARD_INDEX[card]
            if counts[index] == 0:
                raise ValueError(f"cannot remove {card.code}: the shoe no longer holds one")
            counts[index] -= 1
        return ShoeComposition(tuple(counts))

    def count(self, card: Card) -> int:
        return self.counts[_CARD_INDEX[card]]

    @property
    def size(self) -> int:
        return sum(self.counts)

    def value_counts(self) -> tuple[int, ...]:
        """Cards of each baccarat value 0-9."""
        values = [0] * 10
        for value, n in zip(_VALUE_INDEX, self.counts, strict=True):
            values[value] += n
        return tuple(values)

    def rank_counts(self) -> tuple[int, ...]:
        """Cards of each rank, in ``RANKS`` order."""
        ranks = [0] * len(RANKS)
        for rank, n in zip(_RANK_INDEX, self.counts, strict=True):
            ranks[rank] += n
        return tuple(ranks)


@dataclass(frozen=True)
class BetOdds:
    bet: str
    label: str
    events: Mapping[str, int]  # event -> ordered 6-card deals, best-paying first
    nets: Mapping[str, Fraction]  # event -> net payout per unit staked
    total: int
    house_edge: Fraction  # share of each stake the house keeps on average

    @property
    def rtp(self) -> Fraction:
        return 1 - self.house_edge


@dataclass(frozen=True)
class Analysis:
    composition: ShoeComposition
    total: int  # ordered 6-card deals: N (N-1) ... (N-5)
    outcomes: Mapping[str, int]  # banker / player / tie -> deals
    bets: Mapping[str, BetOdds]


# --- Value classes: the coup at the level of totals and card counts -----------------------

_VALUE_RANK = {rank_value(rank): rank for rank in RANKS}


def _continuations(player_total: int, banker_total: int) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Every way a coup goes on from the two-card totals: (player's third card values, banker's), by the tableau."""
    if is_natural(player_total) or is_natural(banker_total):
        return [((), ())]
    if player_draws(player_total):
        paths: list[tuple[tuple[int, ...], tuple[int, ...]]] = []
        for x in range(10):
            if banker_draws(banker_total, x):
                paths += [((x,), (y,)) for y in range(10)]
            else:
                paths.append(((x,), ()))
        return paths
    if banker_draws(banker_total, None):
        return [((), (y,)) for y in range(10)]
    return [((), ())]


def _coup_of(player: tuple[int, ...], banker: tuple[int, ...]) -> CoupResult:
    """A coup with these card values."""
    return CoupResult(
        player=tuple(Card(_VALUE_RANK[v], suit) for v, suit in zip(player, "SDS", strict=False)),
        banker=tuple(Card(_VALUE_RANK[v], suit) for v, suit in zip(banker, "HCH", strict=False)),
    )


@dataclass(frozen=True)
class _Grouping:
    """Sums counts by label (an event, a winner): ``labels[i]`` is the label of ``counts[i]``."""

    keys: tuple[str, ...]
    order: np.ndarray  # count indices sorted by label
    starts: np.ndarray  # where each label's run begins in ``order``

    @classmethod
    def of(cls, labels: tuple[str, ...]) -> _Grouping:
        keys = tuple(dict.fromkeys(labels))
        order = np.argsort([keys.index(label) for label in labels], kind="stable")
        runs = np.array([keys.index(labels[i]) for i in order])
        return cls(keys=keys, order=order, starts=np.flatnonzero(np.r_[True, runs[1:] != runs[:-1]]))

    def sums(self, counts: np.ndarray) -> dict[str, int]:
        return dict(zip(self.keys, map(int, np.add.reduceat(counts[self.order], self.starts)), strict=True))


@dataclass(frozen=True)
class _CoupTable:
    """The one-time set-up: the coefficients of every value class in the falling-factorial basis.

    A value class is (player's cards, banker's cards, player's total, banker's total): it decides
    the winner, the margin, the naturals and the card count. Column ``j`` is a multiset of 4 to 6
    card values; entry (class, j) counts the value sequences dealt in that class with that multiset.
    """

    coups: tuple[CoupResult, ...]  # one representative coup per value class
    winners: _Grouping
    factor_index: np.ndarray  # (10, multisets): flat index of n_v (n_v-1) ... (m_v factors) in a (10, 7) table
    sizes: np.ndarray  # cards in each multiset
    columns: np.ndarray  # the multiset of each nonzero coefficient, grouped by class
    coefficients: np.ndarray
    starts: np.ndarray  # where each class's coefficients begin


_DIGIT = 7 ** np.arange(10)  # a multiset of values as a base-7 number: a coup holds at most 6 of a value
_MULTISETS = 7**10


@cache
def _coup_table() -> _CoupTable:
    coups: dict[tuple[int, int, int, int], CoupResult] = {}
    endings: dict[tuple[int, int], list[tuple[tuple[int, int, int, int], int]]] = {}  # -> (class, third cards)
    for p, b in product(range(10), repeat=2):
        endings[p, b] = []
        for player_third, banker_third in _continuations(p, b):
            totals = (p + sum(player_third)) % 10, (b + sum(banker_third)) % 10
            key = (2 + len(player_third), 2 + len(banker_third), *totals)
            if key not in coups:
                coups[key] = _coup_of((p, 0, *player_third), (b, 0, *banker_third))
            endings[p, b].append((key, sum(7**v for v in player_third + banker_third)))
    classes = sorted(coups)
    class_row = {key: row for row, key in enumerate(classes)}

    # Every value sequence of a coup as one number: its class and its multiset; counting them gives the coefficients.
    p1, b1, p2, b2 = np.indices((10,) * 4).reshape(4, -1)  # the 10**4 openings
    openings = _DIGIT[p1] + _DIGIT[b1] + _DIGIT[p2] + _DIGIT[b2]
    player, banker = (p1 + p2) % 10, (b1 + b2) % 10
    sequences = []
    for (p, b), ends in endings.items():
        opening = openings[(player == p) & (banker == b)]
        sequences += [class_row[key] * _MULTISETS + third_cards + opening for key, third_cards in ends]
    keys, coefficients = np.unique(np.concatenate(sequences), return_counts=True)
    rows, multisets = np.divmod(keys, _MULTISETS)
    multisets, columns = np.unique(multisets, return_inverse=True)
    digits = multisets[:, None] // _DIGIT % 7  # (multisets, 10): how often each value occurs
    return _CoupTable(
        coups=tuple(coups[key] for key in classes),
        winners=_Grouping.of(tuple(coups[key].winner for key in classes)),
        factor_index=np.ascontiguousarray((digits + 7 * np.arange(10)).T),
        sizes=digits.sum(axis=1),
        columns=columns,
        coefficients=coefficients.astype(np.int64),
        starts=np.flatnonzero(np.r_[True, rows[1:] != rows[:-1]]),
    )


def _class_counts(value_counts: tuple[int, ...], dtype: type) -> np.ndarray:
    """Ordered 6-card deals of each value class."""
    table = _coup_table()
    counts = np.array(value_counts, dtype=dtype)
    factors = np.ones((10, 7), dtype=dtype)  # factors[v, m] = n_v (n_v-1) ... (n_v-m+1)
    np.cumprod(np.subtract.outer(counts, np.arange(6)), axis=1, out=factors[:, 1:])
    size = sum(value_counts)
    rest = np.array([falling(size - k, COUP_CARDS - k) for k in range(7)], dtype=dtype)  # the unused positions
    weights = factors.ravel()[table.factor_index].prod(axis=0) * rest[table.sizes]
    return np.add.reduceat(weights[table.columns] * table.coefficients.astype(dtype), table.starts)


# --- Pair states: the first two cards of each hand ----------------------------------------

_HAND_PAIR_STATES = ("none", "pair", "suited")  # different ranks / same rank, different cards / identical cards
PAIR_STATES = tuple(product(_HAND_PAIR_STATES, repeat=2))  # (player, banker)
# Each state in terms of the draws "any two", "same rank", "identical": none = any - same rank, ...
_STATE_BASIS = ((1, -1, 0), (0, 1, -1), (0, 0, 1))


def _pair_state_counts(composition: ShoeComposition) -> list[int]:
    """Ordered 6-card deals of each pair state, by inclusion-exclusion over the four opening cards."""
    size, ranks = composition.size, composition.rank_counts()
    rank_pairs = [c * (c - 1) for c in ranks]  # ordered same-rank draws, per rank
    card_pairs = [(d * (d - 1), d, r) for d, r in zip(composition.counts, _RANK_INDEX, strict=True) if d > 1]
    same_rank = sum(rank_pairs)
    identical = sum(pairs for pairs, _, _ in card_pairs)
    # Same-rank draws left for the other hand once two cards of the rank are out.
    same_rank_after = [same_rank - pairs + falling(c - 2, 2) for c, pairs in zip(ranks, rank_pairs, strict=True)]

    others = falling(size - 2, 2)
    any_any = falling(size, 4)
    any_rank = same_rank * others
    any_identical = identical * others
    rank_rank = sum(pairs * after for pairs, after in zip(rank_pairs, same_rank_after, strict=True))
    rank_identical = sum(pairs * same_rank_after[r] for pairs, _, r in card_pairs)
    identical_identical = sum(pairs * (identical - pairs + (d - 2) * (d - 3)) for pairs, d, _ in card_pairs)
    joint = (
        (any_any, any_rank, any_identical),
        (any_rank, rank_rank, rank_identical),
        (any_identical, rank_identical, identical_identical),
    )
    fill = falling(size - 4, COUP_CARDS - 4)
    return [
        fill
        * sum(sx * sy * joint[x][y] for x, sx in enumerate(_STATE_BASIS[s]) for y, sy in enumerate(_STATE_BASIS[t]))
        for s, t in product(range(3), repeat=2)
    ]


def _pair_coups(player_third: int, banker_third: int) -> tuple[CoupResult, ...]:
    """One coup per pair state; the first two cards are all worth 0, so the pair state changes nothing else."""
    player = {"none": ("TS", "JS"), "pair": ("TS", "TH"), "suited": ("TS", "TS")}
    banker = {"none": ("QD", "KD"), "pair": ("QD", "QC"), "suited": ("QD", "QD")}
    return tuple(
        CoupResult(
            player=(*map(Card.parse, player[p]), Card(_VALUE_RANK[player_third], "H")),
            banker=(*map(Card.parse, banker[b]), Card(_VALUE_RANK[banker_third], "C")),
        )
        for p, b in PAIR_STATES
    )


# Third cards (player, banker) after 0-0: player wins by 9, banker wins by 9, a tie.
_PAIR_LAYOUTS = ((9, 0), (0, 9), (5, 5))


# --- Bets ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class _BetModel:
    on_pairs: bool  # settled on the pair state, else on the value class
    events: _Grouping


@lru_cache(maxsize=256)
def _bet_model(event: Callable[[CoupResult], str], bet: str) -> _BetModel:
    """Which counts settle the bet, found by asking ``event`` about representative coups."""
    layouts = [tuple(map(event, _pair_coups(*thirds))) for thirds in _PAIR_LAYOUTS]
    if all(len(set(events)) == 1 for events in layouts):
        return _BetModel(on_pairs=False, events=_Grouping.of(tuple(map(event, _coup_table().coups))))
    if len(set(layouts)) > 1:
        raise ValueError(f"the {bet} bet depends on both the pairs and the card values: the analyzer cannot price it")
    return _BetModel(on_pairs=True, events=_Grouping.of(layouts[0]))


@dataclass(frozen=True)
class _Pricing:
    nets: dict[str, Fraction]  # event -> net payout per unit, best-paying first (then in paytable order)
    scaled: dict[str, int]  # the nets times ``scale``, their common denominator
    scale: int

    def house_edge(self, events: Mapping[str, int], total: int) -> Fraction:
        return Fraction(-sum(net * events[event] for event, net in self.scaled.items()), self.scale * total)


@lru_cache(maxsize=256)
def _pricing(pays: tuple[tuple[str, Decimal], ...], events: tuple[str, ...]) -> _Pricing:
    listed = [event for event, _ in pays]
    nets = {event: Fraction(dict(pays).get(event, LOSE)) for event in events}
    rank = {event: (-nets[event], listed.index(event) if event in listed else len(listed)) for event in events}
    nets = {event: nets[event] for event in sorted(events, key=rank.__getitem__)}
    scale = lcm(*(net.denominator for net in nets.values()))
    return _Pricing(nets=nets, scaled={event: int(net * scale) for event, net in nets.items()}, scale=scale)


def prepare(*, paytables: Mapping[str, Paytable] = PAYTABLES) -> None:
    """Do the one-time set-up now rather than in the first ``analyze``."""
    _coup_table()
    for bet, paytable in paytables.items():
        _bet_model(paytable.event, bet)


def analyze(composition: ShoeComposition, *, paytables: Mapping[str, Paytable] = PAYTABLES) -> Analysis:
    """Exact counts of every outcome and bet event over all ordered 6-card deals from ``composition``."""
    size = composition.size
    if size < COUP_CARDS:
        raise ValueError(f"the shoe holds {size} cards: a coup may take {COUP_CARDS}")
    total = falling(size, COUP_CARDS)
    # No count or partial product exceeds ``total``: int64 is exact below 2**63 (about 27 decks), Python ints beyond.
    dtype = np.int64 if total < _INT64_LIMIT else object
    class_counts = _class_counts(composition.value_counts(), dtype)
    pair_counts = np.array(_pair_state_counts(composition), dtype=dtype)
    winners = _coup_table().winners.sums(class_counts)
    bets = {}
    for bet, paytable in paytables.items():
        model = _bet_model(paytable.event, bet)
        events = model.events.sums(pair_counts if model.on_pairs else class_counts)
        pricing = _pricing(tuple(paytable.pays.items()), tuple(events))
        bets[bet] = BetOdds(
            bet=bet,
            label=paytable.label,
            events={event: events[event] for event in pricing.nets},
            nets=dict(pricing.nets),
            total=total,
            house_edge=pricing.house_edge(events, total),
        )
    return Analysis(
        composition=composition, total=total, outcomes={outcome: winners[outcome] for outcome in OUTCOMES}, bets=bets
    )
