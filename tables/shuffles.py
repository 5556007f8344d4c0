"""The shuffle and the cut of a physical shoe (seed 000 §2.1): the record the dealer confirms, the cut, and
the pit boss's cancelling of a cut or of the whole shuffle before the shoe's first coup (§2.1.3). One
transaction each, validated and audited; a refusal (``TableError``) changes nothing."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from baccarat import rules as game_rules
from kernel.errors import ErrorCode
from tables.audit import audit_record
from tables.errors import TableError
from tables.locks import shoe_locked, table_locked
from tables.models import Seat, Shoe, Table
from tables.selectors import table_seated

User = AbstractBaseUser

CCTV_REFERENCE_MAX_LENGTH = 60
SHUFFLED_BY_MAX_LENGTH = 80
CUT_MARGIN_CARDS = 26  # a cut at least half a deck from either end of the shoe


@dataclass(frozen=True)
class ShuffleRecord:
    """What the dealer confirms of a physical shoe's shuffle (§2.1.1, §2.1.2): the decks complete, no
    marked and no damaged card; the CCTV recording's reference; for a sealed preliminary shuffle, that the
    seal arrived undamaged (None: not a sealed shuffle) and who shuffled it, elsewhere (a table shuffle is the
    dealer's own)."""

    decks_complete: bool
    no_marks: bool
    no_damage: bool
    cctv_reference: str = ""
    seal_intact: bool | None = None
    shuffled_by: str = ""


def shuffle_record_problem(*, record: ShuffleRecord, shuffle_method: str) -> str:
    """Why the shuffle does not let the shoe start ("" if it does). A table shuffle's CCTV reference is
    optional: §2.1.2 asks for none (the table's cameras film it anyway); §2.1.1 films the preliminary one."""
    checks = (record.decks_complete, record.no_marks, record.no_damage)
    seal = () if record.seal_intact is None else (record.seal_intact,)
    if any(type(check) is not bool for check in (*checks, *seal)):
        return "the shuffle's checks are yes or no"
    if not all(checks):
        return "confirm the decks are complete, with no marked and no damaged card (seed 000 §2.1): else reshuffle"
    if not isinstance(record.cctv_reference, str) or len(record.cctv_reference) > CCTV_REFERENCE_MAX_LENGTH:
        return f"the CCTV reference is text of at most {CCTV_REFERENCE_MAX_LENGTH} characters"
    if not isinstance(record.shuffled_by, str) or len(record.shuffled_by) > SHUFFLED_BY_MAX_LENGTH:
        return f"who shuffled is text of at most {SHUFFLED_BY_MAX_LENGTH} characters"
    if shuffle_method == Shoe.ShuffleMethod.PRELIMINARY:
        if not record.cctv_reference.strip():
            return "a preliminary shuffle is recorded by the CCTV service (seed 000 §2.1.1): give its reference"
        if record.seal_intact is not True:
            return "a sealed set is used only if its seal arrived undamaged (seed 000 §2.1.1): else reshuffle"
        if not record.shuffled_by.strip():
            return "a preliminary shuffle is done in the preparation zone (seed 000 §2.1.1): name who shuffled it"
    elif record.seal_intact is not None:
        return "only a sealed preliminary shuffle has a seal to check"
    elif record.shuffled_by.strip():
        return "a table shuffle is the recording dealer's own (seed 000 §2.1.2): nobody else to name"
    return ""


@transaction.atomic
def shoe_cut(*, shoe: Shoe, actor: User | None, cards_from_top: int, by_seat: int | None = None) -> Shoe:
    """Record the cut of a prepared physical shoe (§2.1.3): where (cards from the top, at least
    ``CUT_MARGIN_CARDS`` from either end) and who (the dealer, or the patron seated at ``by_seat``)."""
    table = table_locked(shoe.table_id)
    shoe = shoe_locked(shoe.pk)
    if shoe.state != Shoe.State.PREPARED or shoe.has_card_order:
        raise TableError("only a prepared physical shoe is cut", code=ErrorCode.NOT_A_PREPARED_PHYSICAL_SHOE)
    if shoe.cut_cards is not None:
        raise TableError(f"shoe {shoe.number} is already cut: a pit boss cancels a cut", code=ErrorCode.ALREADY_CUT)
    deepest = shoe.decks * 52 - CUT_MARGIN_CARDS
    if type(cards_from_top) is not int or not CUT_MARGIN_CARDS <= cards_from_top <= deepest:
        raise TableError(
            f"cut between {CUT_MARGIN_CARDS} and {deepest} cards from the top", code=ErrorCode.CUT_OUT_OF_RANGE
        )
    if by_seat is not None:
        if type(by_seat) is not int or not 1 <= by_seat <= Seat.SEATS_PER_TABLE:
            raise TableError(f"a seat is numbered 1 to {Seat.SEATS_PER_TABLE}", code=ErrorCode.NO_SUCH_SEAT)
        if by_seat not in {session.seat.number for session in table_seated(table=table)}:
            raise TableError(f"nobody is seated at seat {by_seat} to cut", code=ErrorCode.SEAT_EMPTY)
    shoe.cut_cards, shoe.cut_by_seat = cards_from_top, by_seat
    shoe.save(update_fields=["cut_cards", "cut_by_seat"])
    audit_record(
        action="shoe_cut",
        actor=actor,
        table=table,
        obj=shoe,
        after={"number": shoe.number, "cards_from_top": cards_from_top, "by": _cutter(by_seat)},
    )
    return shoe


def _cutter(seat: int | None) -> str:
    return "dealer" if seat is None else f"seat {seat}"


@transaction.atomic
def shoe_cut_cancel(*, shoe: Shoe, actor: User | None, reason: str) -> Shoe:
    """Cancel the cut (§2.1.3) before the shoe's first coup: the shoe goes back to prepared, its shuffle kept,
    to be cut and burned again (no-bet coups ordered by its start are taken back)."""
    table, shoe = _before_first_coup(shoe=shoe, reason=reason)
    if shoe.cut_cards is None:
        raise TableError(f"shoe {shoe.number} has no cut to cancel", code=ErrorCode.NOT_CUT)
    before = {"cards_from_top": shoe.cut_cards, "by": _cutter(shoe.cut_by_seat), "burn_shown": shoe.burn_shown}
    _start_undone(table=table, shoe=shoe)
    shoe.cut_cards = shoe.cut_by_seat = None
    shoe.save()
    audit_record(action="shoe_cut_cancelled", actor=actor, table=table, obj=shoe, before=before, reason=reason.strip())
    return shoe


@transaction.atomic
def shoe_shuffle_cancel(*, shoe: Shoe, actor: User | None, reason: str) -> Shoe:
    """Cancel the whole shuffle (§2.1.3) before the shoe's first coup: the shoe is discarded and the table
    prepares a new one (no-bet coups ordered by its start are taken back)."""
    table, shoe = _before_first_coup(shoe=shoe, reason=reason)
    before = {"number": shoe.number, "state": shoe.state, "cut_cards": shoe.cut_cards}
    _start_undone(table=table, shoe=shoe)
    shoe.state, shoe.finished_at = Shoe.State.DISCARDED, timezone.now()
    shoe.save()
    audit_record(action="shuffle_cancelled", actor=actor, table=table, obj=shoe, before=before, reason=reason.strip())
    return shoe


def _before_first_coup(*, shoe: Shoe, reason: str) -> tuple[Table, Shoe]:
    """The table and the shoe locked, if the shoe is a physical one not yet out of play and no coup was opened
    from it; a reason is required."""
    if not isinstance(reason, str) or not reason.strip():
        raise TableError("give the reason for the cancellation", code=ErrorCode.REASON_REQUIRED)
    table = table_locked(shoe.table_id)
    shoe = shoe_locked(shoe.pk)
    if shoe.has_card_order:
        raise TableError("an RNG shoe is neither shuffled nor cut by hand", code=ErrorCode.NOT_A_PHYSICAL_SHOE)
    if shoe.state not in (Shoe.State.PREPARED, Shoe.State.IN_PLAY):
        raise TableError(f"shoe {shoe.number} is {shoe.state}", code=ErrorCode.SHOE_OVER)
    if shoe.coups_started or shoe.coups.exists():
        raise TableError(
            f"shoe {shoe.number} has dealt a coup: too late to cancel its cut or shuffle", code=ErrorCode.COUP_DEALT
        )
    return table, shoe


def _start_undone(*, table: Table, shoe: Shoe) -> None:
    """A shoe in play back to prepared: no burn, no cut card out, and the no-bet coups its start ordered
    (§3.1.2) taken back."""
    if shoe.state == Shoe.State.IN_PLAY and table.burn_procedure == game_rules.BURN_NO_BET_COUPS:
        table.no_bet_coups_ordered = max(table.no_bet_coups_ordered - game_rules.NO_BET_COUPS_AT_START, 0)
        table.save(update_fields=["no_bet_coups_ordered"])
    shoe.state, shoe.started_at = Shoe.State.PREPARED, None
    shoe.burn_shown, shoe.position, shoe.last_coup = "", 0, None
