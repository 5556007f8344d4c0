"""Reads for the partner API about tables: their rules, limits in the partner's currency, paytables, state and
current coup, the roads and the exact RTP of every bet; and each shoe's fairness (commitment, order, checks).

No writes here. Amounts are ``Decimal`` (the API renders them as strings).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache

from django.db.models import QuerySet

from baccarat.odds import ShoeComposition, analyze
from baccarat.rules import CoupRules, TableRules
from partners.models import Partner
from partners.selectors.rounds import coup_record, seen_by
from roadmaps.selectors import shoe_roadmap
from tables.models import Coup, Shoe, Table
from tables.players import dealer_display_name
from tables.selectors import shoe_verify, table_coup_rules, table_current_coup, table_dealer, table_shoe_in_play

RTP_PLACES = Decimal("0.00000001")
TABLE_CLOSED, TABLE_OPEN = "closed", "open"  # the table's state between coups


@dataclass(frozen=True)
class BetRtp:
    bet_type: str
    label: str
    house_edge: Fraction
    rtp: Fraction


@lru_cache(maxsize=128)
def table_rules_bet_odds(rules: TableRules) -> tuple[BetRtp, ...]:
    """The exact house edge and RTP of every bet the rules offer, on a full shoe of their decks.

    Cached per rules: an analysis costs about a millisecond, after a one-time set-up of about 100 ms.
    """
    paytables = rules.paytables()
    analysis = analyze(ShoeComposition.full(rules.decks), paytables=paytables)
    return tuple(
        BetRtp(bet_type=bet, label=odds.label, house_edge=odds.house_edge, rtp=odds.rtp)
        for bet, odds in analysis.bets.items()
    )


def fraction_decimal(value: Fraction) -> Decimal:
    """A fraction to 8 decimal places, for display (the fraction itself is exact)."""
    return (Decimal(value.numerator) / Decimal(value.denominator)).quantize(RTP_PLACES)


def table_find(*, code: str) -> Table | None:
    return Table.objects.filter(code=code).first()


def tables_on_offer() -> QuerySet[Table]:
    return Table.objects.order_by("code")


def table_overview(*, table: Table, currency: str) -> dict:
    """A table as a partner lists it: rules, limits in the partner's currency and paytables of the bets on
    offer, the currencies it takes bets in, state, current coup. A table dealt on demand (``dealing_mode``
    ``rng``) has no betting window (``betting_seconds`` null), nor a shoe or coup of its own: each player deals
    from a private shoe."""
    return _table_overview(table, table_coup_rules(table=table), currency)


def table_detail(*, table: Table, currency: str) -> dict:
    """The overview, the roads of the shoe in play and the exact RTP of every bet on offer."""
    rules = table_coup_rules(table=table)
    return {
        **_table_overview(table, rules, currency),
        "roads": shoe_roadmap(shoe=table_shoe_in_play(table=table)),
        "odds": [
            {
                "bet_type": odds.bet_type,
                "label": odds.label,
                "house_edge": fraction_decimal(odds.house_edge),
                "rtp": fraction_decimal(odds.rtp),
                "rtp_exact": f"{odds.rtp.numerator}/{odds.rtp.denominator}",
            }
            for odds in table_rules_bet_odds(rules.table)
        ],
    }


def _table_overview(table: Table, coup_rules: CoupRules, currency: str) -> dict:
    rules, snapshot = coup_rules.table, coup_rules.to_json()
    in_currency = coup_rules.currencies.get(currency)
    coup = table_current_coup(table=table)
    shoe = table_shoe_in_play(table=table)
    session = table_dealer(table=table)
    live = coup is not None and coup.state in Coup.LIVE_STATES
    return {
        "code": table.code,
        "name": table.name,
        "is_open": table.is_open,
        "state": coup.state if live else (TABLE_OPEN if table.is_open else TABLE_CLOSED),
        "dealing_mode": table.dealing_mode,
        "dealer": dealer_display_name(session.dealer) if session else None,
        "currency": currency,
        "currencies": sorted(coup_rules.currencies),
        "rules": {
            **{name: value for name, value in snapshot.items() if name != "currencies"},
            "max_differential": in_currency.max_differential if in_currency is not None else None,
            "betting_seconds": None if table.dealt_on_demand else coup_rules.betting_seconds,  # no betting window
        },
        "limits": [
            {
                "bet_type": bet_type,
                "minimum": limits.minimum,
                "maximum": limits.maximum,
                "table_maximum": limits.table_maximum,
            }
            for bet_type, limits in coup_rules.offered_limits(currency).items()
        ],
        "paytables": [
            {
                "bet_type": bet_type,
                "label": paytable.label,
                "description": paytable.description,
                "pays": dict(paytable.pays),
                "odds": paytable.odds_label(),
            }
            for bet_type, paytable in rules.paytables().items()
        ],
        "shoe": None if shoe is None else {"number": shoe.number, "commitment": shoe.commitment or None},
        "current_coup": coup_record(coup=coup) if coup is not None else None,
    }


# --- Shoes ---------------------------------------------------------------------------------------


def table_shoe_find(*, partner: Partner, table: Table, number: int) -> Shoe | None:
    return table.shoes.filter(seen_by(partner), number=number).first()


def shoe_fairness(*, shoe: Shoe) -> dict:
    """A shoe's commitment; once it is out of play, its order, salt and the check of every coup against them."""
    revealed = shoe.has_card_order and shoe.revealed
    shown = shoe.reveal() if revealed else None
    verification = shoe_verify(shoe=shoe) if revealed else None
    return {
        "number": shoe.number,
        "state": shoe.state,
        "decks": shoe.decks,
        "shuffle_method": shoe.shuffle_method,
        "commitment": shoe.commitment or None,
        "started_at": shoe.started_at,
        "finished_at": shoe.finished_at,
        "coups": shoe.coups_started,
        "revealed": revealed,
        "card_order": shown.card_order if shown else None,
        "salt": shown.salt if shown else None,
        "burn_shown": shoe.burn_shown or None,
        "burned_cards": shown.burned_cards if shown else None,
        "verification": None
        if verification is None
        else {
            "ok": verification.ok,
            "commitment_ok": verification.commitment_ok,
            "coups_checked": verification.coups_checked,
            "mismatches": list(verification.mismatches),
        },
    }
