"""Coups, void requests, result corrections and shoes in the admin: read-only, but a coup can be held, its held
card decided, voided (four eyes once the players have seen its first cards), and its result corrected (four eyes),
through the coup lifecycle; a physical shoe's cut or whole shuffle cancelled before its first coup (seed 000 §2.1.3)."""

from __future__ import annotations

from django.contrib import admin, messages
from django.http import HttpRequest

from casino import lifecycle
from casino.admin.actions import confirmed_action
from kernel.admin_base import ReadOnlyAdmin, ReadOnlyInline
from tables import corrections, holds, shuffles, voids
from tables.forms import (
    KeepForNextCoupForm,
    ResultCorrectionForm,
    VoidForm,
)
from tables.models import (
    Coup,
    CoupVoidRequest,
    DealtCard,
    HeldCard,
    ResultCorrection,
    Shoe,
    Table,
)

# --- Coups and shoes: read-only, but a coup can be held, decided and voided -----------------------


class DealtCardInline(ReadOnlyInline):
    model = DealtCard
    fields = ("position", "hand", "card", "shoe_position", "entered_by", "dealt_at")
    readonly_fields = fields


class ResultCorrectionInline(ReadOnlyInline):
    model = ResultCorrection
    fields = ("state", "player_cards", "banker_cards", "reason", "requested_by", "decided_by", "decided_at")
    readonly_fields = fields


class CoupVoidRequestInline(ReadOnlyInline):
    model = CoupVoidRequest
    fields = ("state", "dealing_error", "description", "requested_by", "decided_by", "decided_at", "decision_reason")
    readonly_fields = fields


class HeldCardInline(ReadOnlyInline):
    model = HeldCard
    fk_name = "coup"
    fields = ("card", "entered_for", "next_hand", "shoe_position", "entered_by", "outcome", "decided_by", "decided_at")
    readonly_fields = fields
    verbose_name_plural = "cards entered for the wrong hand"


@admin.register(Coup)
class CoupAdmin(ReadOnlyAdmin):
    list_display = (
        "round_id",
        "table",
        "shoe",
        "number",
        "state",
        "no_bet",
        "winner",
        "player_total",
        "banker_total",
        "held_reason",
        "opened_at",
    )
    list_filter = ("state", "no_bet", "table")
    list_select_related = ("table", "shoe")
    search_fields = ("round_id",)
    date_hierarchy = "opened_at"
    inlines = (DealtCardInline, HeldCardInline, CoupVoidRequestInline, ResultCorrectionInline)
    actions = (
        "hold_coups",
        "release_coups",
        "deal_held_card_in_this_coup",
        "keep_held_card_for_next_coup",
        "void_coups",
        "request_result_correction",
    )

    def table_of(self, coup: Coup) -> Table:
        return coup.table

    def has_void_coup_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("tables.void_coup")

    def has_correct_result_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("tables.correct_result")

    def has_resolve_dealing_error_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("tables.resolve_dealing_error")

    @confirmed_action(description="Hold the selected coups for the pit", permission="resolve_dealing_error")
    def hold_coups(self, request: HttpRequest, coup: Coup, data: dict) -> None:
        holds.coup_hold(coup=coup, actor=request.user, reason=data["reason"])

    @confirmed_action(description="Release the selected held coups", permission="resolve_dealing_error")
    def release_coups(self, request: HttpRequest, coup: Coup, data: dict) -> None:
        holds.coup_release(coup=coup, actor=request.user, reason=data["reason"])

    @confirmed_action(
        description="Held card: deal it in proper order in this coup (§4.3)", permission="resolve_dealing_error"
    )
    def deal_held_card_in_this_coup(self, request: HttpRequest, coup: Coup, data: dict) -> None:
        holds.held_card_deal_in_this_coup(coup=coup, actor=request.user, reason=data["reason"])

    @confirmed_action(
        description="Held card: keep it as the next coup's first card (§4.3)",
        permission="resolve_dealing_error",
        form_class=KeepForNextCoupForm,
    )
    def keep_held_card_for_next_coup(self, request: HttpRequest, coup: Coup, data: dict) -> None:
        holds.held_card_keep_for_next_coup(coup=coup, actor=request.user, no_bet=data["no_bet"], reason=data["reason"])

    @confirmed_action(
        description="Void the selected coups and refund all their bets, or request the void where the players "
        "have seen the first cards",
        permission="void_coup",
        form_class=VoidForm,
    )
    def void_coups(self, request: HttpRequest, coup: Coup, data: dict) -> None:
        done = lifecycle.coup_void(
            coup=coup, actor=request.user, reason=data["reason"], dealing_error=data["dealing_error"]
        )
        if isinstance(done, CoupVoidRequest):
            self.message_user(
                request,
                f"Coup {coup.round_id}: the players have seen its first cards, so its void is requested and the coup "
                "held; another holder of 'approve the void of a dealt coup' approves or rejects it (Coup void "
                "requests).",
                messages.WARNING,
            )

    @confirmed_action(
        description="Request a correction of the result (another staff member approves it)",
        permission="correct_result",
        form_class=ResultCorrectionForm,
        one_at_a_time=True,
    )
    def request_result_correction(self, request: HttpRequest, coup: Coup, data: dict) -> None:
        corrections.result_correction_request(
            coup=coup,
            player_cards=data["player_cards"],
            banker_cards=data["banker_cards"],
            reason=data["reason"],
            actor=request.user,
        )


@admin.register(ResultCorrection)
class ResultCorrectionAdmin(ReadOnlyAdmin):
    """Requested from the coup's page; approved or rejected here by someone other than the requester."""

    list_display = (
        "__str__",
        "state",
        "result_before",
        "result_after",
        "requested_by",
        "requested_at",
        "decided_by",
        "decided_at",
    )
    list_filter = ("state", "coup__table")
    list_select_related = ("coup", "requested_by", "decided_by")
    search_fields = ("coup__round_id",)
    actions = ("approve_corrections", "reject_corrections")

    @admin.display(description="before")
    def result_before(self, correction: ResultCorrection) -> str:
        return _result_text(correction.before)

    @admin.display(description="after")
    def result_after(self, correction: ResultCorrection) -> str:
        return _result_text(correction.after)

    def has_correct_result_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("tables.correct_result")

    def table_of(self, correction: ResultCorrection) -> Table:
        return correction.coup.table

    @confirmed_action(
        description="Approve the selected correction (re-settles its coup)",
        permission="correct_result",
        one_at_a_time=True,  # one transaction: tables locked one after the other could deadlock with a void
    )
    def approve_corrections(self, request: HttpRequest, correction: ResultCorrection, data: dict) -> None:
        lifecycle.result_correction_approve(correction=correction, actor=request.user, reason=data["reason"])

    @confirmed_action(description="Reject the selected corrections", permission="correct_result")
    def reject_corrections(self, request: HttpRequest, correction: ResultCorrection, data: dict) -> None:
        corrections.result_correction_reject(correction=correction, actor=request.user, reason=data["reason"])


@admin.register(CoupVoidRequest)
class CoupVoidRequestAdmin(ReadOnlyAdmin):
    """Opened by the coup's void action; approved or rejected here by someone other than the requester."""

    list_display = ("__str__", "state", "dealing_error", "requested_by", "requested_at", "decided_by", "decided_at")
    list_filter = ("state", "coup__table")
    list_select_related = ("coup", "requested_by", "decided_by")
    search_fields = ("coup__round_id",)
    actions = ("approve_void_requests", "reject_void_requests")

    def has_void_dealt_coup_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("tables.void_dealt_coup")

    def table_of(self, void_request: CoupVoidRequest) -> Table:
        return void_request.coup.table

    @confirmed_action(
        description="Approve the selected void request (the coup is void, its bets refunded)",
        permission="void_dealt_coup",
        one_at_a_time=True,
    )
    def approve_void_requests(self, request: HttpRequest, void_request: CoupVoidRequest, data: dict) -> None:
        lifecycle.coup_void_request_approve(void_request=void_request, actor=request.user, reason=data["reason"])

    @confirmed_action(description="Reject the selected void requests (the coups go on)", permission="void_dealt_coup")
    def reject_void_requests(self, request: HttpRequest, void_request: CoupVoidRequest, data: dict) -> None:
        voids.coup_void_request_decide(
            void_request=void_request, actor=request.user, approve=False, reason=data["reason"]
        )


def _result_text(result: dict) -> str:
    player, banker = " ".join(result["player"]), " ".join(result["banker"])
    return f"{result['winner']} {result['player_total']}-{result['banker_total']} (P {player}, B {banker})"


@admin.register(Shoe)
class ShoeAdmin(ReadOnlyAdmin):
    """The card order (and the cards burned face down) stay hidden until the shoe is out of play."""

    SECRET_UNTIL_OUT_OF_PLAY = "hidden until the shoe is finished or discarded"
    list_display = ("__str__", "state", "shuffle_method", "seal_number", "position", "coups_started", "started_at")
    list_filter = ("state", "shuffle_method", "table")
    list_select_related = ("table",)
    fields = (
        "table",
        "number",
        "state",
        "decks",
        "shuffle_method",
        "seal_number",
        "seal_intact",
        "decks_complete",
        "no_marks",
        "no_damage",
        "cctv_reference",
        "shuffled_by",
        "prepared_by",
        "cut_cards",
        "cut_by_seat",
        "cut_card_position",
        "burn_shown",
        "position",
        "coups_started",
        "last_coup",
        "created_at",
        "started_at",
        "finished_at",
        "burned_cards_once_out_of_play",
        "card_order_once_out_of_play",
    )
    readonly_fields = fields
    actions = ("cancel_cut", "cancel_shuffle")

    def has_replace_cards_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("tables.replace_cards")

    def table_of(self, shoe: Shoe) -> Table:
        return shoe.table

    @confirmed_action(
        description="Cancel the cut (before the first coup): the shoe is cut and burned again",
        permission="replace_cards",
    )
    def cancel_cut(self, request: HttpRequest, shoe: Shoe, data: dict) -> None:
        shuffles.shoe_cut_cancel(shoe=shoe, actor=request.user, reason=data["reason"])

    @confirmed_action(
        description="Cancel the whole shuffle (before the first coup): the shoe is discarded, a new one prepared",
        permission="replace_cards",
    )
    def cancel_shuffle(self, request: HttpRequest, shoe: Shoe, data: dict) -> None:
        shuffles.shoe_shuffle_cancel(shoe=shoe, actor=request.user, reason=data["reason"])

    @admin.display(description="burned cards")
    def burned_cards_once_out_of_play(self, shoe: Shoe) -> str:
        return " ".join(shoe.reveal().burned_cards) if shoe.revealed else self.SECRET_UNTIL_OUT_OF_PLAY

    @admin.display(description="card order")
    def card_order_once_out_of_play(self, shoe: Shoe) -> str:
        if not shoe.revealed:
            return self.SECRET_UNTIL_OUT_OF_PLAY
        return " ".join(shoe.reveal().card_order) or "physical shoe: not recorded"
