"""What each bet pays: data-driven paytables, net odds as ``Decimal``.

A paytable maps the *event* a coup produces for a bet (``win``, ``push``,
``win_by_9`` ...) to the net payout per unit staked. Events not in the table lose
the stake (net -1). Settlement and the odds analyzer both read these tables.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import ROUND_DOWN, Decimal

from baccarat.coup import BANKER, PLAYER, TIE, CoupResult

LOSE = Decimal(-1)
CENT = Decimal("0.01")
WIN_OUTCOME, LOSE_OUTCOME, PUSH_OUTCOME = "win", "lose", "push"


@dataclass(frozen=True)
class Paytable:
    bet: str
    label: str
    pays: Mapping[str, Decimal]
    event: Callable[[CoupResult], str]
    description: str = ""

    def net(self, result: CoupResult) -> Decimal:
        """Net win per unit staked: positive wins, 0 pushes, -1 loses."""
        return self.pays.get(self.event(result), LOSE)

    def returned(self, stake: Decimal, result: CoupResult) -> Decimal:
        """What goes back to the player for ``stake``: stake plus winnings, the stake on a push, else 0."""
        return stake * (1 + self.net(result))

    def outcome(self, result: CoupResult) -> str:
        """``win``, ``lose`` or ``push``: what the result does to a bet of this type."""
        net = self.net(result)
        return WIN_OUTCOME if net > 0 else LOSE_OUTCOME if net < 0 else PUSH_OUTCOME

    def payout(self, stake: Decimal, result: CoupResult) -> Decimal:
        """What settlement pays back for ``stake``: ``returned``, winnings rounded down to the cent (the
        fraction of a cent a commission leaves, e.g. 0.95 x 0.05, stays with the house)."""
        return self.returned(stake, result).quantize(CENT, rounding=ROUND_DOWN)

    def largest_return(self, stake: Decimal) -> Decimal:
        """The most ``stake`` can bring back, by the table's best event (at least nothing): the bound
        the wallet must be able to hold before the bet is accepted."""
        return stake * max(1 + max(self.pays.values(), default=LOSE), Decimal(0))

    def odds_label(self) -> str:
        """Short human-readable payout, e.g. '11:1' or '0.95:1'."""
        best = max(self.pays.values())
        return f"{best.normalize():f}:1"


def _main_bet(hand: str) -> Callable[[CoupResult], str]:
    def event(result: CoupResult) -> str:
        if result.winner == TIE:
            return "push"
        return "win" if result.winner == hand else "lose"

    return event


def _banker_no_commission_event(result: CoupResult) -> str:
    if result.winner == TIE:
        return "push"
    if result.winner != BANKER:
        return "lose"
    return "win_with_six" if result.banker_total == 6 else "win"


def _tie_event(result: CoupResult) -> str:
    return "win" if result.winner == TIE else "lose"


def _flag_event(flag: Callable[[CoupResult], bool]) -> Callable[[CoupResult], str]:
    return lambda result: "win" if flag(result) else "lose"


def _bonus_event(hand: str) -> Callable[[CoupResult], str]:
    """Dragon bonus: a non-natural win pays by margin, a natural win pays 1, a natural tie pushes."""

    def event(result: CoupResult) -> str:
        if result.natural:
            if result.winner == TIE:
                return "natural_tie"
            return "natural_win" if result.winner == hand else "lose"
        if result.winner == hand and result.margin >= 4:
            return f"win_by_{result.margin}"
        return "lose"

    return event


def _d(value: str) -> Decimal:
    return Decimal(value)


BONUS_PAYS = {
    "win_by_9": _d("30"),
    "win_by_8": _d("10"),
    "win_by_7": _d("6"),
    "win_by_6": _d("4"),
    "win_by_5": _d("2"),
    "win_by_4": _d("1"),
    "natural_win": _d("1"),
    "natural_tie": _d("0"),
}


def build_paytables(*, tie_pays: int = 8) -> dict[str, Paytable]:
    """Every bet's paytable; ``tie_pays`` is the table's tie rule (8:1 or 9:1)."""
    tables = [
        Paytable(PLAYER, "Player", {"win": _d("1"), "push": _d("0")}, _main_bet(PLAYER), "Player wins; a tie pushes."),
        Paytable(
            BANKER, "Banker", {"win": _d("0.95"), "push": _d("0")}, _main_bet(BANKER), "Banker wins, 5% commission."
        ),
        Paytable(
            "banker_no_commission",
            "Banker (no commission)",
            {"win": _d("1"), "win_with_six": _d("0.5"), "push": _d("0")},
            _banker_no_commission_event,
            "Banker wins 1:1; a banker win with 6 pays 1:2.",
        ),
        Paytable(TIE, "Tie", {"win": Decimal(tie_pays)}, _tie_event, "Both hands have the same total."),
        Paytable(
            "player_pair",
            "Player pair",
            {"win": _d("11")},
            _flag_event(lambda r: r.player_pair),
            "Player's first two cards are a pair.",
        ),
        Paytable(
            "banker_pair",
            "Banker pair",
            {"win": _d("11")},
            _flag_event(lambda r: r.banker_pair),
            "Banker's first two cards are a pair.",
        ),
        Paytable(
            "either_pair",
            "Either pair",
            {"win": _d("5")},
            _flag_event(lambda r: r.player_pair or r.banker_pair),
            "Either hand's first two cards are a pair.",
        ),
        Paytable(
            "perfect_pair",
            "Perfect pair",
            {"win": _d("25")},
            _flag_event(lambda r: r.player_perfect_pair or r.banker_perfect_pair),
            "Either hand's first two cards are a suited pair.",
        ),
        Paytable(
            "player_bonus", "Player bonus", BONUS_PAYS, _bonus_event(PLAYER), "Player wins by 4 or more, or a natural."
        ),
        Paytable(
            "banker_bonus", "Banker bonus", BONUS_PAYS, _bonus_event(BANKER), "Banker wins by 4 or more, or a natural."
        ),
        Paytable(
            "small", "Small", {"win": _d("1.5")}, _flag_event(lambda r: r.card_count == 4), "Exactly four cards dealt."
        ),
        Paytable(
            "big", "Big", {"win": _d("0.54")}, _flag_event(lambda r: r.card_count >= 5), "Five or six cards dealt."
        ),
    ]
    return {table.bet: table for table in tables}


PAYTABLES = build_paytables()
BET_NAMES = tuple(PAYTABLES)
