"""The coup lifecycle: the one module that composes the apps (``docs/architecture.md``).

Each step is one transaction: the floor's step (``tables``), then what follows from it, by explicit
calls in the same transaction: who shows each hand and a kept card (close betting), the roads and the
settlement task on commit (resolve), the payout, the coup marked settled and the partners' notices
(settle), the refunds, seamless wallets' rollbacks and notices (void, a shoe replaced), the
re-settlement, roads, adjustments and notices (a result correction). The table loop, the dealer
console, the admin's actions and the Celery tasks call these; steps that touch only the floor (open,
deal a card, holds) are called in ``tables`` directly.
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from casino.lifecycle.tasks import coup_settle_task
from kernel.errors import ErrorCode
from kernel.live import table_event_send
from partners.seamless import correction_adjustments_record, round_rollbacks_record
from partners.shoe_webhooks import webhook_shoe_finished_enqueue
from partners.webhooks import VOID, webhook_correction_enqueue, webhook_events_enqueue
from roadmaps.services import shoe_road_add_coup
from tables.audit import audit_record
from tables.corrections import result_correction_apply
from tables.coups import coup_close_betting as floor_close_betting
from tables.coups import coup_resolve as floor_resolve
from tables.errors import TableError
from tables.holds import held_card_discard, kept_card_deal
from tables.locks import coup_locked, table_locked
from tables.models import Coup, CoupVoidRequest, ResultCorrection, Shoe, Table, VoidReason
from tables.selectors import table_live_coup, table_shoe_in_play
from tables.shoes import shoe_finish, shoe_prepare
from tables.voids import VoidGround, coup_void_check, coup_void_record, coup_void_request_decide, coup_void_request_open
from wagering.cancellation import coup_bets_refund
from wagering.corrections import coup_resettle
from wagering.selectors import coup_has_seated_bets, coup_top_bettors

User = AbstractBaseUser


@transaction.atomic
def coup_close_betting(*, coup: Coup, actor: User | None = None) -> Coup:
    """'No more bets': the highest bettor on each hand shows it (seed 000 §5.1), read under the coup's
    lock so no bet slips in between; then a card the pit kept for this coup is its first (§4.3)."""
    coup = coup_locked(coup)
    coup = floor_close_betting(coup=coup, shown_by=coup_top_bettors(coup=coup), actor=actor)
    kept_card_deal(coup=coup)
    return coup


@transaction.atomic
def coup_resolve(*, coup: Coup) -> Coup:
    """Record the result, add it to the shoe's roads, and hand the coup to settlement on commit."""
    coup = floor_resolve(coup=coup)
    shoe_road_add_coup(coup=coup)
    coup_id = coup.pk
    transaction.on_commit(lambda: coup_settle_task.delay(coup_id), robust=True)  # broker down: the loop resends
    return coup


@transaction.atomic
def coup_void(*, coup: Coup, actor: User | None, reason: str = "", dealing_error: str = "") -> Coup | CoupVoidRequest:
    """Void a coup as far as ``tables.voids.coup_void_check`` allows: its held card discarded, every bet
    refunded, the partners notified. A coup whose first cards the players have seen is not voided here: the
    request for it is opened (and returned), and ``coup_void_request_approve`` voids it."""
    ground = coup_void_check(coup=coup, reason=reason, dealing_error=dealing_error)
    if ground.needs_approval:
        return coup_void_request_open(ground=ground, actor=actor)
    return _voided(ground, actor=actor)


@transaction.atomic
def coup_void_request_approve(*, void_request: CoupVoidRequest, actor: User, reason: str = "") -> Coup:
    """The second pair of eyes: the request decided, then the coup voided through the same check."""
    void_request = coup_void_request_decide(void_request=void_request, actor=actor, approve=True, reason=reason)
    ground = coup_void_check(
        coup=void_request.coup, reason=void_request.description, dealing_error=void_request.dealing_error
    )
    return _voided(ground, actor=actor, void_request=void_request)


def _voided(ground: VoidGround, *, actor: User | None, void_request: CoupVoidRequest | None = None) -> Coup:
    held_card_discard(coup=ground.coup, actor=actor)
    coup_bets_refund(coup=ground.coup)
    round_rollbacks_record(coup=ground.coup)
    coup = coup_void_record(ground=ground, actor=actor, void_request=void_request)
    webhook_events_enqueue(coup=coup, kind=VOID)
    return coup


@transaction.atomic
def shoe_end(*, shoe: Shoe, actor: User | None = None, discard: bool = False, reason: str = "") -> Shoe:
    """Finish a shoe (the cut card out) or discard it: its cards revealed, and the partners told."""
    shoe = shoe_finish(shoe=shoe, actor=actor, discard=discard, reason=reason)
    webhook_shoe_finished_enqueue(shoe=shoe)
    return shoe


@transaction.atomic
def shoe_replace(*, table: Table, actor: User | None, reason: str) -> Shoe:
    """Replace the cards (seed 000 §3.3 A): void a coup in progress, discard the shoe, prepare a new one.

    A coup in progress is void for the listed dealing error "cards replaced", the reason as its note, only
    before its first card (``coup_void_check``): one with cards out is finished first (or voided under §4.2).
    """
    if not reason:
        raise TableError("replacing the cards needs a reason", code=ErrorCode.REASON_REQUIRED)
    table = table_locked(table.pk)
    live = table_live_coup(table=table)
    if live is not None:
        coup_void(coup=live, actor=actor, dealing_error=VoidReason.CARDS_REPLACED, reason=reason)
    shoe = table_shoe_in_play(table=table)
    if shoe is not None:
        shoe_end(shoe=shoe, actor=actor, discard=True, reason=reason)
    new = shoe_prepare(table=table, actor=actor)
    audit_record(action="cards_replaced", actor=actor, table=table, obj=new, reason=reason)
    return new


@transaction.atomic
def result_correction_approve(*, correction: ResultCorrection, actor: User, reason: str = "") -> ResultCorrection:
    """Apply the corrected result: the coup, its shoe's roads, a re-settlement if the coup was settled,
    and the notices to the table, the players and the partners (on commit)."""
    tray_moves = coup_has_seated_bets(coup_id=correction.coup_id)  # none is added to a coup once it is resolved
    coup, correction, result = result_correction_apply(
        correction=correction, actor=actor, reason=reason, tray_moves=tray_moves
    )
    settled = coup.state == Coup.State.SETTLED
    resettlement = coup_resettle(correction=correction, coup=coup, result=result, actor=actor) if settled else []
    if resettlement:
        correction_adjustments_record(correction=correction, coup=coup)
    audit_record(
        action="result_corrected",
        actor=actor,
        table=coup.table,
        obj=coup,
        before={**correction.before, "state": coup.state},
        after={
            **correction.after,
            "correction": correction.pk,
            "requested_by": correction.requested_by.get_username(),
            "approved_by": actor.get_username(),
            "ledger_transactions": [ledger_transaction.pk for ledger_transaction in resettlement],
        },
        reason=correction.reason,
    )
    shoe_road_add_coup(coup=coup)
    if settled:
        webhook_correction_enqueue(correction=correction)
    table_event_send(
        table_code=coup.table.code,
        event_type="result_corrected",
        data={"round_id": coup.round_id, "before": correction.before, "after": correction.after},
    )
    return correction
