"""The protection every bet and deposit passes, read inside the transaction that writes it. A loss- or
deposit-limited player's row is locked first (``wagering.locks``' order: after the coup, before the
wallets), so two concurrent bets or deposits of one player are counted one after the other and never both
slip under a limit; a player without such a limit locks nothing."""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime
from decimal import Decimal

from wagering.errors import PlayerProtected
from wagering.protection.checks import break_refusal, deposit_refusal, loss_refusal, play_refusal
from wagering.protection.standing import (
    Protection,
    player_deposits,
    player_protection,
    players_losses,
    players_protection,
)


def bets_protection_read(
    *, user_ids: Collection[int], at: datetime
) -> tuple[dict[int, Protection], dict[int, dict[str, Decimal]]]:
    """The players' protection and, for the loss-limited, their net losses so far (``players_losses``)."""
    protections = players_protection(user_ids=user_ids, at=at)
    return protections, players_losses(protections=protections.values())


def bets_protection_locked(
    *, user_ids: Collection[int], at: datetime
) -> tuple[dict[int, Protection], dict[int, dict[str, Decimal]]]:
    """``bets_protection_read`` under the coup's lock, the count that decides: the loss-limited players' rows
    locked (and read again) first, in primary-key order, then their net losses."""
    protections = players_protection(user_ids=user_ids, at=at)
    limited = [user_id for user_id, protection in protections.items() if protection.loss_limited]
    if not limited:
        return protections, {}
    locked = players_protection(user_ids=limited, at=at, lock=True)
    return {**protections, **locked}, players_losses(protections=locked.values())


def bet_refusal(protection: Protection | None, *, lost: dict[str, Decimal], stake: Decimal) -> PlayerProtected | None:
    """Why this player may not stake ``stake`` more now, or None."""
    if protection is None:
        return None
    return play_refusal(protection) or loss_refusal(protection, lost=lost, stake=stake)


def losses_added(lost: dict[str, Decimal], stake: Decimal) -> dict[str, Decimal]:
    """The net losses after a bet of ``stake`` accepted (counted as lost until settled)."""
    return {window: amount + stake for window, amount in lost.items()}


def bet_protection_check(*, user_id: int, stake: Decimal, at: datetime) -> None:
    """One player's bet of ``stake`` checked (raises ``PlayerProtected``), their row locked if loss-limited."""
    protections, losses = bets_protection_locked(user_ids=[user_id], at=at)
    refusal = bet_refusal(protections.get(user_id), lost=losses.get(user_id, {}), stake=stake)
    if refusal is not None:
        raise refusal


def deposit_protection_check(*, user_id: int, amount: Decimal, at: datetime) -> None:
    """A deposit of ``amount`` checked (raises ``PlayerProtected``), the row locked if deposit-limited."""
    protection = player_protection(user_id=user_id, at=at)
    if protection is None:
        return
    if protection.deposit:
        protection = players_protection(user_ids=[user_id], at=at, lock=True)[user_id]
    refusal = deposit_refusal(protection, deposited=player_deposits(protection=protection), amount=amount)
    if refusal is not None:
        raise refusal


def seated_player_check(*, user_id: int, at: datetime) -> None:
    """A known player seated at a dealer table: their break from play (a time-out, a self-exclusion, their
    operator's exclusion) refuses their chips and their buy-ins. Their limits count their own bets only."""
    protection = player_protection(user_id=user_id, at=at)
    refusal = break_refusal(protection) if protection is not None else None
    if refusal is not None:
        raise refusal
