"""Per-table rule settings, where the seeds disagree (defaults: the most common rule).

- Burn: seed 000 §3.1.1 / seed 001 burn by the first card (default) or §3.1.2 three no-bet coups.
- Cut card: seed 001 "finish that hand, play one more" (default) or seed 000's "end after the
  current coup".
- Banker commission 5% (default) or no-commission (a banker win with 6 pays 1:2).
- Tie 8:1 (seeds 000, 001, 003; default) or 9:1 (seed 002).
- A player may not bet Player and Banker in one coup (seed 004; on by default).
- The patrons hold the shoe (seed 002's big table, ``baccarat.shoe_holder``) or the croupier controls it (its
  mini-Baccarat, and every seed's dealer; default); where the patrons hold it, whether a tie leaves the shoe
  with its holder (default) or moves it on as a bank loss does (the seeds leave ties open).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal

from baccarat.coup import BANKER, PLAYER, TIE
from baccarat.paytables import Paytable, build_paytables

BURN_CARD = "card"
BURN_NO_BET_COUPS = "no_bet_coups"
BURN_PROCEDURES = (BURN_CARD, BURN_NO_BET_COUPS)
NO_BET_COUPS_AT_START = 3  # seed 000 §3.1.2

# After the cut card at most the rest of a coup and one more coup are dealt (5 + 6 cards):
# this many cards behind it mean a shoe never runs out mid-coup.
MIN_CARDS_BEHIND_CUT_CARD = 12

CUT_ONE_MORE_COUP = "one_more_coup"
CUT_END_OF_COUP = "end_of_coup"
CUT_CARD_RULES = (CUT_ONE_MORE_COUP, CUT_END_OF_COUP)

MAIN_BETS = (PLAYER, BANKER, TIE)
SIDE_BETS = (
    "player_pair",
    "banker_pair",
    "either_pair",
    "perfect_pair",
    "player_bonus",
    "banker_bonus",
    "small",
    "big",
)
# Bets outside the maximum differential, under the table-wide maximum instead (seed 000 §6.1.3).
TABLE_WIDE_LIMIT_BETS = (TIE, *SIDE_BETS)
DEFAULT_SIDE_BETS = ("player_pair", "banker_pair")


@dataclass(frozen=True)
class TableRules:
    decks: int = 8
    burn: str = BURN_CARD
    cut_card_from_bottom: int = 52
    cut_card_rule: str = CUT_ONE_MORE_COUP
    commission: bool = True
    tie_pays: int = 8
    side_bets: tuple[str, ...] = field(default=DEFAULT_SIDE_BETS)
    forbid_player_and_banker: bool = True
    patrons_hold_shoe: bool = False
    tie_shoe_stays: bool = True

    def __post_init__(self) -> None:
        if not 1 <= self.decks <= 8:
            raise ValueError(f"decks must be 1 to 8, not {self.decks}")
        if self.burn not in BURN_PROCEDURES:
            raise ValueError(f"burn must be one of {BURN_PROCEDURES}, not {self.burn!r}")
        if self.cut_card_rule not in CUT_CARD_RULES:
            raise ValueError(f"cut card rule must be one of {CUT_CARD_RULES}, not {self.cut_card_rule!r}")
        if self.tie_pays not in (8, 9):
            raise ValueError(f"tie pays 8:1 or 9:1, not {self.tie_pays}:1")
        deepest = self.decks * 52 - MIN_CARDS_BEHIND_CUT_CARD
        if not MIN_CARDS_BEHIND_CUT_CARD <= self.cut_card_from_bottom <= deepest:
            raise ValueError(
                f"the cut card must stand {MIN_CARDS_BEHIND_CUT_CARD} to {deepest} cards from the bottom, "
                f"not {self.cut_card_from_bottom}"
            )
        unknown = set(self.side_bets) - set(SIDE_BETS)
        if unknown:
            raise ValueError(f"unknown side bets: {', '.join(sorted(unknown))}")

    @property
    def bet_types(self) -> tuple[str, ...]:
        return MAIN_BETS + tuple(bet for bet in SIDE_BETS if bet in self.side_bets)

    @property
    def cut_card_position(self) -> int:
        """How many cards stand before the cut card."""
        return self.decks * 52 - self.cut_card_from_bottom

    def paytables(self) -> dict[str, Paytable]:
        """The paytable of every bet offered, keyed by bet type ('banker' by the commission rule)."""
        every = build_paytables(tie_pays=self.tie_pays)
        offered = {bet: every[bet] for bet in self.bet_types}
        if not self.commission:
            offered[BANKER] = every["banker_no_commission"]
        return offered


@dataclass(frozen=True)
class BetLimits:
    """A bet type's limits for one player, and for the whole table (tie and side bets, seed 000 §6.1.3)."""

    minimum: Decimal
    maximum: Decimal
    table_maximum: Decimal | None = None


@dataclass(frozen=True)
class CurrencyLimits:
    """A table's limits in one currency: per bet type, and the maximum differential (seed 000 §6.1).
    Amounts in different currencies are never compared or added: each currency is its own table."""

    max_differential: Decimal
    limits: Mapping[str, BetLimits]


@dataclass(frozen=True)
class CoupRules:
    """The rules and limits a coup plays by, frozen when it opens: the one snapshot every app reads.

    A coup takes bets in the currencies it has limits for (``currencies``). Stored as JSON on the coup
    (``to_json``, amounts as strings); ``from_json`` reads every snapshot stored since the first release:
    one without ``forbid_player_and_banker`` had the rule on, one without ``patrons_hold_shoe`` the croupier
    holding the shoe (and ``tie_shoe_stays`` its default), one without ``currencies`` had one set of
    limits, in the currency the caller names (the house's: there was no other then).
    """

    table: TableRules
    betting_seconds: int
    currencies: Mapping[str, CurrencyLimits]

    def offered_limits(self, currency: str) -> dict[str, BetLimits]:
        """The limits of every bet the coup offers in the currency (its rules offer it, and it has limits)."""
        in_currency = self.currencies.get(currency)
        if in_currency is None:
            return {}
        return {bet: in_currency.limits[bet] for bet in self.table.bet_types if bet in in_currency.limits}

    def to_json(self) -> dict:
        return {
            "decks": self.table.decks,
            "burn": self.table.burn,
            "cut_card_from_bottom": self.table.cut_card_from_bottom,
            "cut_card_rule": self.table.cut_card_rule,
            "commission": self.table.commission,
            "tie_pays": self.table.tie_pays,
            "side_bets": list(self.table.side_bets),
            "forbid_player_and_banker": self.table.forbid_player_and_banker,
            "patrons_hold_shoe": self.table.patrons_hold_shoe,
            "tie_shoe_stays": self.table.tie_shoe_stays,
            "betting_seconds": self.betting_seconds,
            "currencies": {
                currency: {
                    "max_differential": str(in_currency.max_differential),
                    "limits": {
                        bet: {
                            "min": str(limits.minimum),
                            "max": str(limits.maximum),
                            "table_max": None if limits.table_maximum is None else str(limits.table_maximum),
                        }
                        for bet, limits in in_currency.limits.items()
                    },
                }
                for currency, in_currency in self.currencies.items()
            },
        }

    @classmethod
    def from_json(cls, data: Mapping, *, legacy_currency: str) -> CoupRules:
        table = TableRules(
            decks=data["decks"],
            burn=data["burn"],
            cut_card_from_bottom=data["cut_card_from_bottom"],
            cut_card_rule=data["cut_card_rule"],
            commission=data["commission"],
            tie_pays=data["tie_pays"],
            side_bets=tuple(data["side_bets"]),
            forbid_player_and_banker=data.get("forbid_player_and_banker", True),
            patrons_hold_shoe=data.get("patrons_hold_shoe", False),
            tie_shoe_stays=data.get("tie_shoe_stays", True),
        )
        currencies = data.get("currencies")
        if currencies is None:
            currencies = {legacy_currency: {"max_differential": data["max_differential"], "limits": data["limits"]}}
        return cls(
            table=table,
            betting_seconds=data["betting_seconds"],
            currencies={currency: _currency_limits(stored) for currency, stored in currencies.items()},
        )


def _currency_limits(stored: Mapping) -> CurrencyLimits:
    return CurrencyLimits(
        max_differential=Decimal(stored["max_differential"]),
        limits={
            bet: BetLimits(
                minimum=Decimal(limits["min"]),
                maximum=Decimal(limits["max"]),
                table_maximum=None if limits.get("table_max") is None else Decimal(limits["table_max"]),
            )
            for bet, limits in stored["limits"].items()
        },
    )
