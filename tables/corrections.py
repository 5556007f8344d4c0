"""Result corrections (four eyes): the only way to change a recorded result.

One staff member holding ``tables.correct_result`` requests a correction of a resolved or settled coup
with the corrected cards and a reason; the game core checks the cards make a complete coup by the
tableau and computes the result (never typed). Another staff member holding the permission approves or
rejects it, once. On approval, in one transaction under the coup's row lock (taken first, as settlement
takes it, so correction and settlement never both pay): the coup's result fields, the shoe's roads,
and for a settled coup a re-settlement by compensating transactions (``wagering.corrections``). A coup
resolved but not yet settled needs none: settlement, running later, pays by the corrected result.
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import PermissionDenied
from django.db import IntegrityError, transaction
from django.utils import timezone

from baccarat.cards import InvalidCardError, parse_cards
from baccarat.coup import CoupResult, DealingError, resolve_hands
from kernel.errors import ErrorCode
from tables.audit import audit_record
from tables.errors import TableError
from tables.locks import coup_locked, coup_only_locked
from tables.models import Coup, ResultCorrection
from tables.selectors import coup_rules

User = AbstractBaseUser
PERMISSION = "tables.correct_result"
CORRECTABLE_STATES = (Coup.State.RESOLVED, Coup.State.SETTLED)
RESULT_FIELDS = ("player_total", "banker_total", "winner", "player_pair", "banker_pair", "natural")


def _permission_check(actor: User) -> None:
    if not actor.is_authenticated or not actor.is_active or not actor.has_perm(PERMISSION):
        raise PermissionDenied("correcting a result needs the correct_result permission")


def corrected_result(*, coup: Coup, player_cards: str, banker_cards: str) -> CoupResult:
    """The result of the corrected hands (codes separated by spaces), as the game core resolves them."""
    try:
        player, banker = parse_cards(player_cards), parse_cards(banker_cards)
        result = resolve_hands(player, banker)
    except (InvalidCardError, DealingError) as error:
        raise TableError(f"the corrected cards are not a coup: {error}", code=ErrorCode.INVALID_CARDS) from None
    decks = coup_rules(coup=coup).table.decks
    for card in set(player + banker):
        if (player + banker).count(card) > decks:
            raise TableError(
                f"{card.code} appears more than {decks} times: a {decks}-deck shoe has no more",
                code=ErrorCode.TOO_MANY_COPIES,
            )
    return result


@transaction.atomic
def result_correction_request(
    *, coup: Coup, player_cards: str, banker_cards: str, reason: str, actor: User
) -> ResultCorrection:
    """Ask for the coup's result to be corrected to these cards; another staff member decides."""
    _permission_check(actor)
    if not reason or not reason.strip():
        raise TableError("a result correction needs a reason", code=ErrorCode.REASON_REQUIRED)
    coup = coup_only_locked(coup.pk)
    if coup.state not in CORRECTABLE_STATES:
        raise TableError(
            f"coup {coup.round_id} is {coup.state}: only a resolved or settled result is corrected",
            code=ErrorCode.NOT_CORRECTABLE,
        )
    current = coup.result()
    corrected = corrected_result(coup=coup, player_cards=player_cards, banker_cards=banker_cards)
    if (corrected.player, corrected.banker) == (current.player, current.banker):
        raise TableError(
            f"these are the cards coup {coup.round_id} already has: nothing to correct",
            code=ErrorCode.NOTHING_TO_CORRECT,
        )
    if coup.corrections.filter(state=ResultCorrection.State.PENDING).exists():
        raise TableError(
            f"coup {coup.round_id} already has a correction waiting for a decision", code=ErrorCode.CORRECTION_PENDING
        )
    try:
        with transaction.atomic():
            correction = ResultCorrection.objects.create(
                coup=coup,
                player_cards=" ".join(card.code for card in corrected.player),
                banker_cards=" ".join(card.code for card in corrected.banker),
                before=current.as_dict(),
                after=corrected.as_dict(),
                reason=reason.strip(),
                requested_by=actor,
            )
    except IntegrityError:  # a concurrent request won the race (one pending per coup)
        raise TableError(
            f"coup {coup.round_id} already has a correction waiting for a decision", code=ErrorCode.CORRECTION_PENDING
        ) from None
    audit_record(
        action="result_correction_requested",
        actor=actor,
        table=coup.table,
        obj=correction,
        before=correction.before,
        after={**correction.after, "round_id": coup.round_id},
        reason=correction.reason,
    )
    return correction


def _pending_locked(
    correction: ResultCorrection, actor: User, *, tray_moves: bool = False
) -> tuple[Coup, ResultCorrection]:
    """The coup's row (as settlement takes it), then the correction's; refused unless it is pending and the
    actor is not its requester. ``tray_moves``: a re-settlement of seated chips moves the table's tray, so the
    coup is locked with its table and shoe (``coup_locked``), as a shift's closing count takes the table."""
    _permission_check(actor)
    coup = coup_locked(correction.coup) if tray_moves else coup_only_locked(correction.coup_id)
    correction = (
        ResultCorrection.objects.select_for_update(of=("self",)).select_related("requested_by").get(pk=correction.pk)
    )
    if correction.state != ResultCorrection.State.PENDING:
        raise TableError(f"correction {correction.pk} is already {correction.state}", code=ErrorCode.ALREADY_DECIDED)
    if correction.requested_by_id == actor.pk:
        raise TableError(
            "four eyes: a correction is decided by someone other than the person who requested it",
            code=ErrorCode.FOUR_EYES,
        )
    return coup, correction


def result_correction_apply(
    *, correction: ResultCorrection, actor: User, reason: str = "", tray_moves: bool = False
) -> tuple[Coup, ResultCorrection, CoupResult]:
    """The approval's floor part: the correction decided and the coup's result rewritten, the coup's row
    locked (with its table when ``tray_moves``: ``_pending_locked``). ``casino.lifecycle.result_correction_approve``
    composes it with the re-settlement, the roads, the audit and the notices, in one transaction."""
    coup, correction = _pending_locked(correction, actor, tray_moves=tray_moves)
    if coup.state not in CORRECTABLE_STATES:
        raise TableError(
            f"coup {coup.round_id} is {coup.state}: its result can no longer be corrected",
            code=ErrorCode.NOT_CORRECTABLE,
        )
    result = correction.result()
    now = timezone.now()
    correction.state, correction.decided_by, correction.decided_at = ResultCorrection.State.APPROVED, actor, now
    correction.decision_reason = reason.strip()
    correction.save(update_fields=["state", "decided_by", "decided_at", "decision_reason"])
    coup.player_total, coup.banker_total, coup.winner = result.player_total, result.banker_total, result.winner
    coup.player_pair, coup.banker_pair, coup.natural = result.player_pair, result.banker_pair, result.natural
    coup.corrected_at = now
    coup.save(update_fields=[*RESULT_FIELDS, "corrected_at"])
    return coup, correction, result


@transaction.atomic
def result_correction_reject(*, correction: ResultCorrection, actor: User, reason: str) -> ResultCorrection:
    """Refuse the correction: the result stays as recorded."""
    if not reason or not reason.strip():
        raise TableError("rejecting a correction needs a reason", code=ErrorCode.REASON_REQUIRED)
    coup, correction = _pending_locked(correction, actor)
    correction.state, correction.decided_by = ResultCorrection.State.REJECTED, actor
    correction.decided_at, correction.decision_reason = timezone.now(), reason.strip()
    correction.save(update_fields=["state", "decided_by", "decided_at", "decision_reason"])
    audit_record(
        action="result_correction_rejected",
        actor=actor,
        table=coup.table,
        obj=correction,
        after={"round_id": coup.round_id, "requested_by": correction.requested_by.get_username()},
        reason=correction.decision_reason,
    )
    return correction
