"""Surveillance: before every coup of a shoe, the exact house edge of every bet on offer for the cards left.

What is known is only what came out face up: the burn card shown, every card dealt (or held for the pit)
and a corrected coup's corrected cards (``tables.seen_cards``). The cards burned face down and those not yet
dealt are equally unknown, so the next coup is, as far as anyone at the table can tell, dealt from all the
unseen cards: ``baccarat.odds.analyze`` over them is the exact expectation of each bet. The shoe's recorded
order is never read.

A bet is *favourable* when its house edge is negative (the player's favour): an alert. On such a coup, a
bettor *raised* on the favourable bet (advantage play) when their stake on it is at least ``RAISE_FACTOR``
times their average stake on it earlier in the shoe; when they had not bet on it earlier in the shoe, at
least ``RAISE_FACTOR`` times their average stake per coup (all bets added up) earlier in the shoe; and when
they had not bet at all earlier in the shoe, always (they joined as the bet turned). Stakes are compared in
one currency only.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from baccarat.odds import CARDS, COUP_CARDS, ShoeComposition, analyze
from baccarat.paytables import CENT, Paytable
from baccarat.rules import TableRules
from tables.models import Coup, Shoe
from tables.seen_cards import SeenCards, shoes_seen_cards
from tables.selectors import rules_from_snapshot, table_coup_rules
from wagering.shoe_stakes import CoupStake, shoe_stakes

RAISE_FACTOR = Decimal(2)
RECENT_SHOES = 20
_CARD_INDEX = {card: index for index, card in enumerate(CARDS)}


@dataclass(frozen=True)
class BetEdge:
    bet: str
    label: str
    house_edge: Fraction  # share of each stake the house keeps on average; negative: the player's favour

    @property
    def favourable(self) -> bool:
        return self.house_edge < 0

    @property
    def percent(self) -> float:
        return float(self.house_edge * 100)


@dataclass(frozen=True)
class Suspect:
    """A bettor who raised on a favourable bet."""

    bettor: str
    bet: str
    label: str
    stake: Decimal
    currency: str
    reason: str


@dataclass(frozen=True)
class CoupOutlook:
    """A coup as surveillance sees it before its first card: the cards left and every bet's edge."""

    number: int
    coup: Coup | None  # None: the next coup, not open yet
    cards_left: int
    edges: dict[str, BetEdge]  # by bet type; empty when fewer cards are left than a coup may take
    suspects: list[Suspect]

    @property
    def alerts(self) -> list[BetEdge]:
        return [edge for edge in self.edges.values() if edge.favourable]


@dataclass(frozen=True)
class ShoeSurveillance:
    shoe: Shoe
    bets: dict[str, str]  # every bet offered during the shoe: bet type -> label
    coups: list[CoupOutlook]  # in coup order; the next coup last while the shoe is in play between coups
    overdrawn: list[str]  # cards seen more often than the shoe holds: a record is wrong, the edges are not exact

    @property
    def alert_coups(self) -> list[CoupOutlook]:
        return [outlook for outlook in self.coups if outlook.alerts]

    def rows(self) -> list[tuple[CoupOutlook, list[BetEdge | None]]]:
        """Each coup with its edges in the order of ``bets`` (None: not offered then)."""
        return [(outlook, [outlook.edges.get(bet) for bet in self.bets]) for outlook in self.coups]


@dataclass(frozen=True)
class ShoeOutlook:
    """A shoe in play on the floor's list: its coming (or live) coup's favourable bets."""

    shoe: Shoe
    coups: int
    cards_left: int
    coming: int | None  # the live coup's number, else the next one's; None once the cut card ended the shoe
    live: bool  # ``coming`` is open (taking bets or being dealt)
    favourable: list[BetEdge]


class _CardsLeft:
    """The unseen cards of a shoe, card by card; a card seen once too often is noted, not counted below 0."""

    def __init__(self, *, decks: int, seen: SeenCards) -> None:
        self.counts = [decks] * len(CARDS)
        self.overdrawn: list[str] = []
        if seen.burn_shown is not None:
            self.remove([seen.burn_shown])

    def remove(self, cards: list) -> None:
        for card in cards:
            index = _CARD_INDEX[card]
            if self.counts[index] == 0:
                self.overdrawn.append(card.code)
            else:
                self.counts[index] -= 1

    def composition(self) -> ShoeComposition:
        return ShoeComposition(tuple(self.counts))


class _Paytables:
    """Each rule set's paytables, built once: ``analyze`` sets a bet up once per paytable object."""

    def __init__(self) -> None:
        self._by_rules: dict[TableRules, dict[str, Paytable]] = {}

    def __call__(self, rules: TableRules) -> dict[str, Paytable]:
        if rules not in self._by_rules:
            self._by_rules[rules] = rules.paytables()
        return self._by_rules[rules]


def _edges(composition: ShoeComposition, paytables: Mapping[str, Paytable]) -> dict[str, BetEdge]:
    if composition.size < COUP_CARDS:
        return {}
    analysis = analyze(composition, paytables=paytables)
    return {bet: BetEdge(bet=bet, label=odds.label, house_edge=odds.house_edge) for bet, odds in analysis.bets.items()}


class _StakeHistory:
    """Each bettor's stakes earlier in the shoe, per currency: on each bet type, and per coup in all."""

    def __init__(self) -> None:
        self.on_bet: dict[tuple, list[Decimal]] = defaultdict(list)  # (bettor, currency, bet) -> stakes
        self.per_coup: dict[tuple, list[Decimal]] = defaultdict(list)  # (bettor, currency) -> totals

    def raise_reason(self, stake: CoupStake) -> str | None:
        """Why ``stake`` is a raise on the bettor's earlier stakes, or None."""
        bettor = (stake.bettor_key, stake.currency)
        earlier_on_bet, earlier_per_coup = self.on_bet.get((*bettor, stake.bet_type)), self.per_coup.get(bettor)
        if earlier_on_bet:
            average = sum(earlier_on_bet) / len(earlier_on_bet)
            basis = "on it"
        elif earlier_per_coup:
            average = sum(earlier_per_coup) / len(earlier_per_coup)
            basis = "per coup in all; never on it before"
        else:
            return "no bet earlier in the shoe"
        if stake.stake < RAISE_FACTOR * average:
            return None
        return f"×{stake.stake / average:.1f} their average of {average.quantize(CENT)} {basis}"

    def record(self, stakes: list[CoupStake]) -> None:
        totals: dict[tuple, Decimal] = defaultdict(Decimal)
        for stake in stakes:
            self.on_bet[stake.bettor_key, stake.currency, stake.bet_type].append(stake.stake)
            totals[stake.bettor_key, stake.currency] += stake.stake
        for bettor, total in totals.items():
            self.per_coup[bettor].append(total)


def _bettor_name(stake: CoupStake) -> str:
    if stake.user_id is not None:
        return stake.username
    return f"Seat {stake.seat_number} · {stake.patron_name}"


def _suspects(stakes: list[CoupStake], edges: dict[str, BetEdge], history: _StakeHistory) -> list[Suspect]:
    suspects = []
    for stake in stakes:
        edge = edges.get(stake.bet_type)
        if edge is None or not edge.favourable:
            continue
        reason = history.raise_reason(stake)
        if reason is not None:
            suspects.append(
                Suspect(
                    bettor=_bettor_name(stake),
                    bet=stake.bet_type,
                    label=edge.label,
                    stake=stake.stake,
                    currency=stake.currency,
                    reason=reason,
                )
            )
    return suspects


def _cut_card_ended(shoe: Shoe) -> bool:
    """The cut card has ended the shoe: its last coup is open or over (read from the shoe, never its order)."""
    return shoe.last_coup is not None and shoe.coups_started >= shoe.last_coup


def _next_coup_number(shoe: Shoe, coups: list[Coup]) -> int | None:
    """The number of the coup still to open in a shoe in play between coups, else None."""
    if shoe.state != Shoe.State.IN_PLAY or _cut_card_ended(shoe) or (coups and coups[-1].state in Coup.LIVE_STATES):
        return None
    return coups[-1].number + 1 if coups else 1


def shoe_surveillance(*, shoe: Shoe) -> ShoeSurveillance:
    """Every coup of the shoe with the cards left before it, every bet's edge, the alerts and the suspects."""
    seen = shoes_seen_cards(shoes=[shoe])[shoe.pk]
    coups = list(shoe.coups.order_by("number"))
    stakes_by_coup: dict[int, list[CoupStake]] = defaultdict(list)
    for stake in shoe_stakes(shoe=shoe):
        stakes_by_coup[stake.coup_id].append(stake)
    cards_left, paytables, history = _CardsLeft(decks=shoe.decks, seen=seen), _Paytables(), _StakeHistory()
    outlooks = []
    for coup in coups:
        composition = cards_left.composition()
        edges = _edges(composition, paytables(rules_from_snapshot(coup.rules).table))
        stakes = stakes_by_coup.get(coup.pk, [])
        outlooks.append(
            CoupOutlook(
                number=coup.number,
                coup=coup,
                cards_left=composition.size,
                edges=edges,
                suspects=_suspects(stakes, edges, history),
            )
        )
        history.record(stakes)
        cards_left.remove(seen.by_coup.get(coup.pk, []))
    next_number = _next_coup_number(shoe, coups)
    if next_number is not None:
        composition = cards_left.composition()
        edges = _edges(composition, paytables(table_coup_rules(table=shoe.table).table))
        outlooks.append(
            CoupOutlook(number=next_number, coup=None, cards_left=composition.size, edges=edges, suspects=[])
        )
    bets = {bet: edge.label for outlook in outlooks for bet, edge in outlook.edges.items()}
    return ShoeSurveillance(shoe=shoe, bets=bets, coups=outlooks, overdrawn=cards_left.overdrawn)


def floor_outlook() -> list[ShoeOutlook]:
    """Every shoe in play, by table, with the favourable bets of its live or coming coup (none once the cut
    card has ended it): three queries, and two per table with a shoe between coups (its rules, read once: a table
    dealt on demand has a private shoe per player)."""
    shoes = list(Shoe.objects.filter(state=Shoe.State.IN_PLAY).select_related("table").order_by("table__code"))
    seen = shoes_seen_cards(shoes=shoes)
    live = {coup.shoe_id: coup for coup in Coup.objects.filter(shoe__in=shoes, state__in=Coup.LIVE_STATES)}
    paytables = _Paytables()
    table_rules: dict[int, TableRules] = {}
    outlooks = []
    for shoe in shoes:
        live_coup = live.get(shoe.pk)
        cards_left = _CardsLeft(decks=shoe.decks, seen=seen[shoe.pk])
        for coup_id, cards in seen[shoe.pk].by_coup.items():
            if live_coup is None or coup_id != live_coup.pk:
                cards_left.remove(cards)
        composition = cards_left.composition()
        if live_coup is not None:
            coming, edges = live_coup.number, _edges(composition, paytables(rules_from_snapshot(live_coup.rules).table))
        elif _cut_card_ended(shoe):
            coming, edges = None, {}
        else:
            if shoe.table_id not in table_rules:
                table_rules[shoe.table_id] = table_coup_rules(table=shoe.table).table
            coming, edges = shoe.coups_started + 1, _edges(composition, paytables(table_rules[shoe.table_id]))
        outlooks.append(
            ShoeOutlook(
                shoe=shoe,
                coups=shoe.coups_started,
                cards_left=composition.size,
                coming=coming,
                live=live_coup is not None,
                favourable=[edge for edge in edges.values() if edge.favourable],
            )
        )
    return outlooks


def recent_shoes() -> list[Shoe]:
    """The shoes out of play most recently, with their tables."""
    over = Shoe.objects.filter(state__in=(Shoe.State.FINISHED, Shoe.State.DISCARDED)).select_related("table")
    return list(over.order_by("-finished_at", "-pk")[:RECENT_SHOES])
