"""A coup's steps on the floor: open, close betting, resolve, mark settled (its void: ``tables.voids``). Each checks the
coup's state and writes it, audited, with its live event on commit. The money, the roads and the
partners' notices that go with them are composed in ``casino.lifecycle``, in the same transaction."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from baccarat.cards import hand_total
from baccarat.coup import BANKER, PLAYER, CoupDeal
from kernel.errors import ErrorCode
from kernel.live import table_event_send, user_events_send
from kernel.raw_rows import row_update
from tables.audit import audit_record
from tables.errors import TableError
from tables.locks import coup_locked, shoe_locked, table_locked
from tables.models import Coup, DealtCard, SeatSession, Table
from tables.selectors import (
    coup_deal_state,
    coup_hands_shown_by_players,
    coup_public,
    coup_shown_by,
    shoe_is_finished,
    table_coup_rules,
    table_dealer,
    table_live_coup,
    table_shoe_in_play,
)
from tables.shoe_holders import shoe_holder_after_coup

User = AbstractBaseUser


@transaction.atomic
def coup_open(*, table: Table, actor: User | None = None) -> Coup:
    """Open the next coup for betting, with a server deadline (no-bet coups close at once)."""
    table = table_locked(table.pk)
    if not table.is_open:
        raise TableError(f"table {table.code} is closed", code=ErrorCode.TABLE_CLOSED)
    if table_live_coup(table=table) is not None:
        raise TableError(f"table {table.code} already has a coup in progress", code=ErrorCode.COUP_IN_PROGRESS)
    shoe = table_shoe_in_play(table=table)
    if shoe is None:
        raise TableError(f"table {table.code} has no shoe in play", code=ErrorCode.NO_SHOE_IN_PLAY)
    shoe = shoe_locked(shoe.pk)
    if shoe_is_finished(shoe=shoe):
        raise TableError(f"shoe {shoe.number} is finished: the cut card has come out", code=ErrorCode.SHOE_FINISHED)
    no_bet = table.no_bet_coups_ordered > 0
    if no_bet:
        table.no_bet_coups_ordered -= 1
        table.save(update_fields=["no_bet_coups_ordered"])
    shoe.coups_started += 1
    shoe.save(update_fields=["coups_started"])
    now = timezone.now()
    session = table_dealer(table=table)
    coup = Coup.objects.create(
        table=table,
        shoe=shoe,
        number=shoe.coups_started,
        round_id=Coup.new_round_id(table.code),
        no_bet=no_bet,
        rules=table_coup_rules(table=table).to_json(),
        betting_closes_at=now if no_bet else now + timedelta(seconds=table.betting_seconds),
        dealer=session.dealer if session else None,
    )
    if no_bet:
        audit_record(action="no_bet_coup", actor=actor, table=table, obj=coup, after={"round_id": coup.round_id})
    table_event_send(table_code=table.code, event_type="betting_open", data=coup_public(coup=coup))
    return coup


@transaction.atomic
def coup_close_betting(
    *, coup: Coup, shown_by: Mapping[str, User | SeatSession | None], actor: User | None = None
) -> Coup:
    """'No more bets' (seed 000 §6.1.4): from now bets can be neither made, changed nor removed.
    ``shown_by``: who shows each hand, the highest bettor on it (seed 000 §5.1), else the dealer."""
    coup = coup_locked(coup)
    if coup.state != Coup.State.BETTING:
        raise TableError(f"coup {coup.round_id} is {coup.state}, not taking bets", code=ErrorCode.NOT_BETTING)
    for hand in (PLAYER, BANKER):
        who = shown_by.get(hand)
        setattr(coup, f"{hand}_shown_by", None if isinstance(who, SeatSession) else who)
        setattr(coup, f"{hand}_shown_by_seat", who if isinstance(who, SeatSession) else None)
    coup.state, coup.closed_at = Coup.State.NO_MORE_BETS, timezone.now()
    coup.save(update_fields=["state", "closed_at", *SHOWN_BY_FIELDS])
    table_event_send(
        table_code=coup.table.code,
        event_type="no_more_bets",
        data={"round_id": coup.round_id, "shown_by": coup_shown_by(coup=coup)},
    )
    hands_shown = coup_hands_shown_by_players(coup=coup)
    # Privately, to each online player who shows a hand: the public ``shown_by`` names them only by a display
    # name, which two players may share; their page offers them the squeeze.
    if hands_shown:
        user_events_send(
            event_type="you_show",
            data_by_user={
                user_id: {"round_id": coup.round_id, "hands": hands} for user_id, hands in hands_shown.items()
            },
        )
    return coup


SHOWN_BY_FIELDS = ("player_shown_by", "banker_shown_by", "player_shown_by_seat", "banker_shown_by_seat")


def card_event_send(*, coup: Coup, dealt: DealtCard, deal: CoupDeal) -> None:
    table_event_send(
        table_code=coup.table.code,
        event_type="card",
        data={
            "round_id": coup.round_id,
            "position": dealt.position,
            "hand": dealt.hand,
            "card": dealt.card,
            "player_total": hand_total(deal.player),
            "banker_total": hand_total(deal.banker),
            "next": deal.next_hand(),
        },
    )


@transaction.atomic
def coup_resolve(*, coup: Coup) -> Coup:
    """Record the result from the cards actually dealt (seed 000 §7.1); where the patrons hold the shoe, it moves
    as the result says (``tables.shoe_holders``)."""
    coup = coup_locked(coup)
    if coup.state != Coup.State.DEALING:
        raise TableError(f"coup {coup.round_id} is {coup.state}, not dealing", code=ErrorCode.NOT_DEALING)
    deal = coup_deal_state(coup=coup)
    if not deal.complete:
        raise TableError(
            f"coup {coup.round_id} is not complete: the {deal.next_hand()} hand takes another card",
            code=ErrorCode.INCOMPLETE,
        )
    result = deal.result()
    coup.player_total, coup.banker_total, coup.winner = result.player_total, result.banker_total, result.winner
    coup.player_pair, coup.banker_pair, coup.natural = result.player_pair, result.banker_pair, result.natural
    coup.state, coup.resolved_at = Coup.State.RESOLVED, timezone.now()
    coup.save()
    table_event_send(table_code=coup.table.code, event_type="result", data=coup_public(coup=coup))
    shoe_holder_after_coup(coup=coup)
    return coup


def coup_mark_settled(*, coup: Coup) -> None:
    """Settlement's last step, inside its transaction, the coup's row locked by the caller."""
    if coup.state != Coup.State.RESOLVED:
        raise TableError(f"coup {coup.round_id} is {coup.state}, not resolved", code=ErrorCode.NOT_RESOLVED)
    coup.state, coup.settled_at = Coup.State.SETTLED, timezone.now()
    row_update(Coup, coup.pk, state=coup.state, settled_at=coup.settled_at)
