"""Voiding a coup: the one check every path that ends a coup without its result goes through (the admin's
void, a hold's decision, the card replacement: ``casino.lifecycle.coup_void``), and the four eyes a coup
whose first cards the players have seen takes.

Seed 000 knows one ground to void a coup whose cards are out: §4.2, the dealing order cannot be restored.
A card shown by mistake finishes the coup as normal (§5.1.8), a card out of turn goes to its proper place in
this coup or the next (§4.3, ``tables.holds``), and the cards are replaced between coups (§3.3 A).
Once a card of the Player's or the Banker's first two is on the players' screens, the pit boss's void is a
request (``CoupVoidRequest``) that another holder of ``tables.void_dealt_coup`` approves or rejects, once
(a service check and a database constraint, as for result corrections). The request holds the coup: no
card, no result, no settlement, and the automatic table's loop waits. Locks: table, shoe, coup, request.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.utils import timezone

from kernel.errors import ErrorCode
from kernel.live import table_event_send
from tables.audit import audit_record
from tables.errors import TableError
from tables.holds import coup_hold_lift, coup_hold_mark
from tables.locks import coup_locked
from tables.models import Coup, CoupVoidRequest, VoidReason
from tables.selectors import coup_first_cards_seen, coup_void_request_pending, table_supervised_by

User = AbstractBaseUser
APPROVER_PERMISSION = "tables.void_dealt_coup"
REQUESTER_PERMISSION = "tables.void_coup"
RECORDED = (Coup.State.RESOLVED, Coup.State.SETTLED)


@dataclass(frozen=True)
class VoidGround:
    """What ``coup_void_check`` allowed: the coup (locked), its dealing error and note, the void's text, and
    whether the players have seen its first cards (then a request another holder approves)."""

    coup: Coup
    dealing_error: str
    note: str
    text: str
    needs_approval: bool


def coup_void_check(*, coup: Coup, reason: str = "", dealing_error: str = "") -> VoidGround:
    """Lock the coup and say whether, and how, it may be voided.

    Before its first card: for any reason, listed or the pit boss's own. Once a card is out (dealt or
    held): only when the dealing order cannot be restored (§4.2), described in ``reason``; the other listed
    errors stay readable on the coups voided with them before, and are refused. Once the players have seen
    a card of the first two: the same, by request (``needs_approval``). While a request is open, nothing
    else voids the coup. Once the result is recorded: never (only a result correction changes it).
    """
    if dealing_error and dealing_error not in VoidReason.values:
        raise TableError(f"{dealing_error!r} is not a listed dealing error", code=ErrorCode.UNKNOWN_DEALING_ERROR)
    coup = coup_locked(coup)
    if coup.state in RECORDED:
        raise TableError(
            f"coup {coup.round_id} is {coup.state}: its result is recorded and cannot be voided; "
            "only a result correction can change it",
            code=ErrorCode.RESULT_RECORDED,
        )
    if coup.state == Coup.State.VOID:
        raise TableError(f"coup {coup.round_id} is void and cannot be voided", code=ErrorCode.ALREADY_VOID)
    if coup_void_request_pending(coup=coup) is not None:
        raise TableError(
            f"coup {coup.round_id} already has a void request waiting for a decision", code=ErrorCode.VOID_REQUEST_OPEN
        )
    note = reason.strip()
    if coup.cards.exists() or coup.held_cards.exists():
        if dealing_error != VoidReason.ORDER_NOT_RESTORABLE:
            raise TableError(
                f"coup {coup.round_id} has cards out: a card shown by mistake finishes the coup as normal "
                "(seed 000 §5.1.8), a card out of turn goes to its proper place (§4.3: hold the coup, decide the "
                "card); it is void only when the dealing order cannot be restored (§4.2)",
                code=ErrorCode.CARDS_OUT,
            )
        if not note:
            raise TableError(
                "describe why the dealing order cannot be restored (§4.2)", code=ErrorCode.DESCRIPTION_REQUIRED
            )
    elif not (dealing_error or note):
        raise TableError("voiding a coup needs a reason", code=ErrorCode.REASON_REQUIRED)
    text = ": ".join(part for part in (dealing_error and VoidReason(dealing_error).label, note) if part)
    return VoidGround(
        coup=coup,
        dealing_error=dealing_error,
        note=note,
        text=text,
        needs_approval=coup_first_cards_seen(coup=coup),
    )


def coup_void_record(*, ground: VoidGround, actor: User | None, void_request: CoupVoidRequest | None = None) -> Coup:
    """Write the void ``coup_void_check`` allowed (its bets refunded by then), audited: an approved request's
    requester and approver both named."""
    coup = ground.coup
    before = {"state": coup.state}
    coup.state, coup.voided_at, coup.void_reason = Coup.State.VOID, timezone.now(), ground.text
    coup.save(update_fields=["state", "voided_at", "void_reason"])
    after = {"state": "void", "dealing_error": ground.dealing_error}
    if void_request is not None:
        after |= {
            "void_request": void_request.pk,
            "requested_by": void_request.requested_by.get_username(),
            "approved_by": void_request.decided_by.get_username(),
        }
    audit_record(
        action="coup_voided", actor=actor, table=coup.table, obj=coup, before=before, after=after, reason=ground.text
    )
    table_event_send(
        table_code=coup.table.code, event_type="coup_void", data={"round_id": coup.round_id, "reason": ground.text}
    )
    return coup


def void_request_text(void_request: CoupVoidRequest) -> str:
    """An open request as the pit screen and the dealer console show it."""
    return (
        f"void requested by {void_request.requested_by.get_username()} "
        f"({VoidReason(void_request.dealing_error).label}: {void_request.description}): waiting for another holder "
        "of 'approve the void of a dealt coup' to approve or reject it in the admin (Coup void requests)"
    )


def _staff_checked(actor: User | None, coup: Coup, permission: str, doing: str) -> User:
    if actor is None or not actor.is_authenticated or not actor.is_active or not actor.has_perm(permission):
        raise TableError(f"{doing} needs the {permission.split('.')[1]} permission", code=ErrorCode.PERMISSION_NEEDED)
    if not table_supervised_by(table=coup.table, user=actor):
        raise TableError(f"{coup.table.code} is in a pit you do not supervise", code=ErrorCode.NOT_IN_PIT)
    return actor


def coup_void_request_open(*, ground: VoidGround, actor: User | None) -> CoupVoidRequest:
    """The void ``coup_void_check`` found needs approval: ask for it, and hold the coup until it is decided."""
    coup = ground.coup
    requester = _staff_checked(actor, coup, REQUESTER_PERMISSION, "voiding a coup the players have seen")
    held_coup = coup.state != Coup.State.HELD
    try:
        with transaction.atomic():
            void_request = CoupVoidRequest.objects.create(
                coup=coup,
                dealing_error=ground.dealing_error,
                description=ground.note,
                held_coup=held_coup,
                requested_by=requester,
            )
    except IntegrityError:  # a concurrent request won the race (one pending per coup)
        raise TableError(
            f"coup {coup.round_id} already has a void request waiting for a decision", code=ErrorCode.VOID_REQUEST_OPEN
        ) from None
    audit_record(
        action="coup_void_requested",
        actor=requester,
        table=coup.table,
        obj=void_request,
        before={"state": coup.state},
        after={"round_id": coup.round_id, "dealing_error": ground.dealing_error},
        reason=ground.text,
    )
    if held_coup:
        coup_hold_mark(coup, reason=f"void requested by {requester.get_username()}: {ground.text}", public_reason="pit")
    return void_request


@transaction.atomic
def coup_void_request_decide(
    *, void_request: CoupVoidRequest, actor: User | None, approve: bool, reason: str = ""
) -> CoupVoidRequest:
    """Decide an open request, once, by a holder of ``tables.void_dealt_coup`` who did not request it: the
    coup locked first, then the request. An approval is then voided by ``casino.lifecycle``; a rejection
    lets the coup go on from where the request held it (a coup held before stays held for the pit)."""
    coup = coup_locked(void_request.coup)
    approver = _staff_checked(actor, coup, APPROVER_PERMISSION, "deciding a void request")
    void_request = (
        CoupVoidRequest.objects.select_for_update(of=("self",)).select_related("requested_by").get(pk=void_request.pk)
    )
    if void_request.state != CoupVoidRequest.State.PENDING:
        raise TableError(
            f"void request {void_request.pk} is already {void_request.state}", code=ErrorCode.ALREADY_DECIDED
        )
    if void_request.requested_by_id == approver.pk:
        raise TableError(
            "four eyes: a void request is decided by someone other than the person who requested it",
            code=ErrorCode.FOUR_EYES,
        )
    if not approve and not reason.strip():
        raise TableError("rejecting a void request needs a reason", code=ErrorCode.REASON_REQUIRED)
    void_request.state = CoupVoidRequest.State.APPROVED if approve else CoupVoidRequest.State.REJECTED
    void_request.decided_by, void_request.decided_at = approver, timezone.now()
    void_request.decision_reason = reason.strip()
    void_request.save(update_fields=["state", "decided_by", "decided_at", "decision_reason"])
    if approve:
        return void_request
    audit_record(
        action="coup_void_rejected",
        actor=approver,
        table=coup.table,
        obj=void_request,
        after={"round_id": coup.round_id, "requested_by": void_request.requested_by.get_username()},
        reason=void_request.decision_reason,
    )
    if void_request.held_coup and coup.state == Coup.State.HELD:
        coup_hold_lift(coup, state=coup.held_from)
    return void_request
