"""A table dealt on demand (seed 004, ``Table.DealingMode.RNG``): each player's private RNG shoe and coups.

No betting window and no loop: a private coup is opened, takes its bets, is dealt whole by the tableau and
resolved in its player's one transaction (``casino.lifecycle.rng``), so it is never live once committed and
the table's own coup and shoe (``table_live_coup``, ``table_shoe_in_play``) are never a private one. No table
event is sent: another player at the table does not see this player's game. Locks: the table (only to make a
shoe), the player's shoe, then the coup (``tables.locks``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Max, QuerySet
from django.db.models.functions import Coalesce
from django.utils import timezone

from baccarat.coup import CoupDeal, CoupResult
from kernel.errors import ErrorCode
from kernel.raw_rows import row_insert, row_update
from tables.errors import TableError
from tables.locks import private_shoe_locked, shoe_locked, table_locked
from tables.models import Coup, DealtCard, Shoe, Table
from tables.selectors import shoe_dealer, shoe_is_finished, table_coup_rules
from tables.shoes import shoe_finish, shoe_prepare, shoe_start

User = AbstractBaseUser


def private_shoe_in_play(*, table: Table, player: User) -> Shoe | None:
    return Shoe.objects.filter(table=table, player=player, state=Shoe.State.IN_PLAY).first()


def table_dealt_on_demand_check(table: Table) -> None:
    """The table deals on demand and is open, or ``TableError``."""
    if not table.dealt_on_demand:
        raise TableError(f"{table.name} is not dealt on demand: bet in its betting window", code=ErrorCode.NOT_RNG)
    if not table.is_open:
        raise TableError(f"table {table.code} is closed", code=ErrorCode.TABLE_CLOSED)


def private_shoe_ready(*, table: Table, player: User) -> Shoe:
    """The player's private shoe in play at the table, locked: made (shuffled, committed, burned) if they have
    none, or if the cut card ended the last one (which is finished, and so revealed). The table as read is
    checked before any transaction: a refusal then leaves the caller's transaction usable (the one below has no
    savepoint of its own, so an error inside it fails the caller's whole, as a deal does anyway)."""
    table_dealt_on_demand_check(table)
    return _private_shoe_ready(table=table, player=player)


@transaction.atomic(savepoint=False)  # nested in a deal's transaction, which fails whole on an error
def _private_shoe_ready(*, table: Table, player: User) -> Shoe:
    shoe = private_shoe_locked(table_id=table.pk, player_id=player.pk)
    if shoe is not None and not shoe_is_finished(shoe=shoe):
        return shoe
    table = table_locked(table.pk)  # the lock order: the table, then the shoe; two tabs make one shoe
    table_dealt_on_demand_check(table)
    shoe = private_shoe_in_play(table=table, player=player)
    if shoe is not None:
        shoe = shoe_locked(shoe.pk)
        if not shoe_is_finished(shoe=shoe):
            return shoe
        shoe_finish(shoe=shoe)
    return shoe_locked(shoe_start(shoe=shoe_prepare(table=table, player=player)).pk)


def private_coup_open(*, shoe: Shoe, player: User, round_id: str | None = None) -> Coup:
    """A new coup on the player's shoe (locked by the caller), taking bets until it is dealt. ``round_id``: the
    one a partner's wallet was told when it debited the bets (``Coup.new_round_id``), else a new one."""
    if shoe.player_id != player.pk or shoe.state != Shoe.State.IN_PLAY:
        raise TableError(f"shoe {shoe.number} is not your shoe in play", code=ErrorCode.NOT_YOUR_SHOE)
    coup = Coup(
        table=shoe.table,
        shoe=shoe,
        player=player,
        number=shoe.coups_started + 1,
        round_id=round_id or Coup.new_round_id(shoe.table.code),
        rules=table_coup_rules(table=shoe.table).to_json(),
    )
    return row_insert(coup)  # a raw statement: one at each deal


RESOLVED_FIELDS = (
    "player_total",
    "banker_total",
    "winner",
    "player_pair",
    "banker_pair",
    "natural",
    "state",
    "closed_at",
    "resolved_at",
)


@dataclass(frozen=True)
class PrivateCoupDealt:
    coup: Coup  # resolved
    cards: list[DealtCard]  # in the order dealt
    result: CoupResult


def private_coup_deal(*, coup: Coup, shoe: Shoe) -> PrivateCoupDealt:
    """No more bets, then the whole coup dealt from the shoe by the tableau and resolved; a shoe the cut card
    ended is finished at once (its order and salt revealed). ``coup`` and ``shoe`` locked by the caller. The
    coup with its cards as written (the answer needs no second read)."""
    if coup.state != Coup.State.BETTING or coup.shoe_id != shoe.pk:
        raise TableError(f"coup {coup.round_id} is {coup.state}: it cannot be dealt", code=ErrorCode.NOT_BETTING)
    dealer = shoe_dealer(shoe)
    number = dealer.begin_coup()
    deal = CoupDeal()
    cards = []
    while not deal.complete:
        card = dealer.draw()
        hand = deal.add(card)
        at = dealer.state.position - 1
        cards.append(DealtCard(coup=coup, shoe=shoe, position=len(cards), shoe_position=at, hand=hand, card=card.code))
    dealer.end_coup()
    DealtCard.objects.bulk_create(cards)
    shoe.position, shoe.coups_started, shoe.last_coup = dealer.state.position, number, dealer.state.last_coup
    row_update(Shoe, shoe.pk, position=shoe.position, coups_started=shoe.coups_started, last_coup=shoe.last_coup)
    result = deal.result()
    now = timezone.now()
    coup.player_total, coup.banker_total, coup.winner = result.player_total, result.banker_total, result.winner
    coup.player_pair, coup.banker_pair, coup.natural = result.player_pair, result.banker_pair, result.natural
    coup.state, coup.closed_at, coup.resolved_at = Coup.State.RESOLVED, now, now
    row_update(Coup, coup.pk, **{name: getattr(coup, name) for name in RESOLVED_FIELDS})
    if shoe_is_finished(shoe=shoe, dealer=dealer):
        shoe.state = shoe_finish(shoe=shoe).state
    return PrivateCoupDealt(coup=coup, cards=cards, result=result)


def private_shoes_idle(*, idle_for: timedelta) -> list[int]:
    """The private shoes in play that nobody has dealt from for ``idle_for`` (since they started, or their last
    coup opened)."""
    return list(_idle_shoes(idle_for=idle_for).values_list("pk", flat=True))


def _idle_shoes(*, idle_for: timedelta) -> QuerySet[Shoe]:
    in_play = Shoe.objects.filter(state=Shoe.State.IN_PLAY, player__isnull=False)
    active = in_play.annotate(active_at=Coalesce(Max("coups__opened_at"), "started_at"))
    return active.filter(active_at__lt=timezone.now() - idle_for)


@transaction.atomic
def private_shoe_idle_close(*, shoe_id: int, idle_for: timedelta) -> bool:
    """Finish a private shoe left idle (its order and salt revealed to its player and the partners' shoe API);
    False if it was dealt from meanwhile (read under its lock: a deal holds it) or has ended already. Its player's
    next deal makes a new shoe, whose commitment their page shows first (``shoe_changed``)."""
    shoe = shoe_locked(shoe_id)
    if not _idle_shoes(idle_for=idle_for).filter(pk=shoe.pk).exists():
        return False
    shoe_finish(shoe=shoe, reason="idle")
    return True
