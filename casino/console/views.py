"""The dealer console: a dealer table's shoe and coups, step by step.

Every POST is one step of ``STEPS`` (one view): one call to the floor's services or the coup lifecycle
(two in one transaction, for a new shoe); a refused step is shown as a message and changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import wraps
from typing import NamedTuple

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.forms import Form
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from baccarat import rules as game_rules
from baccarat.cards import InvalidCardError, hand_total
from baccarat.coup import CoupDeal, DealingError, result_announcement
from casino import lifecycle
from casino.console.seats import (
    patron_move_step,
    patron_seat_step,
    patron_unseat_step,
    reduction_proposal,
    seat_bet_override_step,
    seat_bet_step,
    seat_bets_reduce_step,
    seat_buy_in_step,
    seats_context,
)
from casino.console.shoe_holder import shoe_holder_context, shoe_holder_decline_step, shoe_holder_pass_step
from casino.console.showing import banker_shown_first_step, hand_shown_by_dealer_step, showing_context
from casino.console.status import console_status
from casino.console.tray import tray_context, tray_count_step, tray_credit_step, tray_fill_step
from casino.sign_in.two_factor import auto_refresh_not_staff_activity, not_staff_activity
from kernel.errors import ErrorCode, PuntoError
from tables import coups, shoes, shuffles
from tables.console_forms import (
    BuyInForm,
    HandForm,
    PatronMoveForm,
    PatronSeatForm,
    SeatBetForm,
    SeatSessionForm,
    ShoeHolderForm,
    TrayForm,
)
from tables.dealing import coup_deal_card
from tables.errors import TableError
from tables.forms import CardForm, CoupStepForm, ShoeCutForm, ShoeStartForm
from tables.models import Coup, DealerSession, HeldCard, Shoe, Table
from tables.selectors import (
    coup_deal_state,
    shoe_is_finished,
    table_current_coup,
    table_dealer,
    table_live_coup,
    table_live_coup_named,
    table_shoe_in_play,
    table_shoe_shuffled,
    table_supervised_by,
)


def dealer_required(view: Callable) -> Callable:
    """Staff with tables.deal only; anyone else is sent to the admin login (anonymous) or refused."""

    @wraps(view)
    def guarded(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path(), login_url=reverse("admin:login"))
        if not (request.user.is_staff and request.user.has_perm("tables.deal")):
            raise PermissionDenied
        return view(request, *args, **kwargs)

    return guarded


def _dealer_table(code: str) -> Table:
    return get_object_or_404(Table, code=code, dealing_mode=Table.DealingMode.DEALER)


def _deals_here(request: HttpRequest, table: Table) -> bool:
    """The signed-in user is the dealer logged in at this table (tables.deal alone, as a pit boss has, is not);
    a pit boss so logged in, only while the table is in their care (it may have moved to another pit since)."""
    session = table_dealer(table=table)
    if session is None or session.dealer_id != request.user.pk:
        return False
    return not request.user.has_perm("tables.operate_table") or table_supervised_by(table=table, user=request.user)


def _may_act(request: HttpRequest, table: Table, step: ConsoleStep) -> bool:
    """The dealer logged in at the table, and for the steps a pit boss may take, a pit boss of the table's pit."""
    if step.dealer_may and _deals_here(request, table):
        return True
    return step.pit_boss_may and _pit_boss_here(request, table)


def _pit_boss_here(request: HttpRequest, table: Table) -> bool:
    """A pit boss (tables.operate_table) in whose care the table is: it is in a pit they supervise, or in none."""
    return request.user.has_perm("tables.operate_table") and table_supervised_by(table=table, user=request.user)


@dealer_required
@require_GET
def table_list(request: HttpRequest) -> HttpResponse:
    tables = Table.objects.filter(dealing_mode=Table.DealingMode.DEALER)
    rows = [
        {"table": table, "dealer": table_dealer(table=table), "coup": table_live_coup(table=table)} for table in tables
    ]
    return render(request, "console/table_list.html", {"rows": rows})


@auto_refresh_not_staff_activity
@dealer_required
@require_GET
def table_console(request: HttpRequest, code: str) -> HttpResponse:
    table = _dealer_table(code)
    deals_here = _deals_here(request, table)
    pit_boss_here = _pit_boss_here(request, table)
    now = _table_now(table)
    context = {
        "table": table,
        "dealer": now.dealer,
        "deals_here": deals_here,
        "pit_boss_here": pit_boss_here,
        "status": console_status(table=table, **now._asdict()),
        "shoe": now.shoe,
        "shuffled_shoe": now.shuffled,
        "burn_by_card": table.burn_procedure == game_rules.BURN_CARD,
        "coup": now.coup,
        "hands": _hands(now.deal) if now.deal is not None else [],
        "card_ranks": CARD_RANKS,
        "card_suits": CARD_SUITS,
        **_dealer_controls(now, dealer_acts=deals_here),
        **seats_context(table=table, coup=now.coup, acting=deals_here or pit_boss_here),
        **shoe_holder_context(table=table, coup=now.coup, acting=deals_here or pit_boss_here),
        **tray_context(table=table, acting=pit_boss_here),
        **showing_context(coup=now.coup, dealer_acts=deals_here, pit_acts=pit_boss_here),
        **reduction_proposal(request=request, coup=now.coup),
    }
    return render(request, "console/table.html", context)


def _dealer_controls(now: _TableNow, *, dealer_acts: bool) -> dict:
    """The forms and buttons of the table's next step, the shoe's and the coup's; each None for anyone but the
    dealer logged in here (the page shows them the table, its steps are the dealer's)."""
    controls = {**_shoe_controls(now), **_coup_controls(now)}
    return controls if dealer_acts else dict.fromkeys(controls)


def _shoe_controls(now: _TableNow) -> dict:
    """Start a shoe (none in play nor shuffled) or cut the shuffled one; between coups, open the next coup, or
    finish the shoe once its cut card has come out."""
    shoe = now.shoe
    between_coups = shoe is not None and now.coup_state not in Coup.LIVE_STATES
    shoe_over = between_coups and shoe_is_finished(shoe=shoe)
    return {
        "shoe_form": ShoeStartForm() if shoe is None and now.shuffled is None else None,
        "shoe_cut_form": ShoeCutForm() if now.shuffled is not None else None,
        "cut_card_in_shoe": shoe is not None and shoe.last_coup is None,
        "can_open_coup": between_coups and not shoe_over,
        "can_finish_shoe": between_coups and shoe_over,
    }


def _coup_controls(now: _TableNow) -> dict:
    """The live coup's next step: close its betting, enter its next card, or resolve it once its cards are out."""
    state, deal = now.coup_state, now.deal
    this_coup = {"round_id": now.coup.round_id} if state in Coup.LIVE_STATES else None
    dealing = state in (Coup.State.NO_MORE_BETS, Coup.State.DEALING) and not deal.complete
    return {
        "close_betting_form": CoupStepForm(initial=this_coup) if state == Coup.State.BETTING else None,
        "card_form": CardForm(initial={**this_coup, "hand": deal.next_hand()}) if dealing else None,
        "resolve_form": CoupStepForm(initial=this_coup) if state == Coup.State.DEALING and deal.complete else None,
    }


@dealer_required
@require_GET
@not_staff_activity
def table_status(request: HttpRequest, code: str) -> JsonResponse:
    """The console page's poll (every few seconds): its coup held or not, the next step, and whether anything
    it shows changed (``casino.console.status``)."""
    table = _dealer_table(code)
    status = console_status(table=table, **_table_now(table)._asdict())
    return JsonResponse(status.as_json(), headers={"Cache-Control": "no-store"})


class _TableNow(NamedTuple):
    dealer: DealerSession | None
    shoe: Shoe | None
    shuffled: Shoe | None  # a shoe shuffled and waiting for its cut, when none is in play
    coup: Coup | None
    deal: CoupDeal | None

    @property
    def coup_state(self) -> str | None:
        return self.coup.state if self.coup is not None else None


def _table_now(table: Table) -> _TableNow:
    """What the console page and its poll both read of the table: one place, so they never differ."""
    shoe = table_shoe_in_play(table=table)
    coup = table_current_coup(table=table)
    return _TableNow(
        dealer=table_dealer(table=table),
        shoe=shoe,
        shuffled=table_shoe_shuffled(table=table) if shoe is None else None,
        coup=coup,
        deal=coup_deal_state(coup=coup) if coup is not None else None,
    )


# The card pad: tap a rank, then a suit (or the other way round), and the card is entered.
CARD_RANKS = [(rank, "10" if rank == "T" else rank) for rank in "A23456789TJQK"]
CARD_SUITS = [("S", "♠", "spades"), ("H", "♥", "hearts"), ("D", "♦", "diamonds"), ("C", "♣", "clubs")]


def _hands(deal: CoupDeal) -> list[dict]:
    return [
        {"name": name, "cards": cards, "total": hand_total(cards) if cards else None}
        for name, cards in (("Player", deal.player), ("Banker", deal.banker))
    ]


def _errors_text(form: Form) -> str:
    return " ".join(
        f"{form[name].label}: {' '.join(errors)}" if name in form.fields else " ".join(errors)
        for name, errors in form.errors.items()
    )


def _carry_out(request: HttpRequest, table: Table, form: Form, step: Callable[[dict], str]) -> HttpResponse:
    """Run one console step with the form's data; show what it did, or why it was refused."""
    if not form.is_valid():
        messages.error(request, _errors_text(form))
    else:
        try:
            done = step(form.cleaned_data)
            if done:
                messages.success(request, done)
        except (PuntoError, DealingError, InvalidCardError) as error:  # a refusal, or a card the rules refuse
            messages.error(request, str(error))
    return redirect("console:table", code=table.code)


def _shoe_in_play(table: Table) -> Shoe:
    shoe = table_shoe_in_play(table=table)
    if shoe is None:
        raise TableError(f"table {table.code} has no shoe in play", code=ErrorCode.NO_SHOE_IN_PLAY)
    return shoe


def _shoe_start(request: HttpRequest, table: Table, data: dict) -> str:
    sealed = data["shuffle_method"] == Shoe.ShuffleMethod.PRELIMINARY
    record = shuffles.ShuffleRecord(
        decks_complete=data["decks_complete"],
        no_marks=data["no_marks"],
        no_damage=data["no_damage"],
        cctv_reference=data["cctv_reference"],
        seal_intact=data["seal_intact"] if sealed or data["seal_intact"] else None,
        shuffled_by=data["shuffled_by"],
    )
    with transaction.atomic():  # a shoe that cannot start is not left prepared
        shoe = shoes.shoe_prepare(
            table=table,
            actor=request.user,
            shuffle_method=data["shuffle_method"],
            seal_number=data["seal_number"],
            shuffle=record,
        )
        return _shoe_cut_and_started(request, shoe, data)


def _shoe_cut_start(request: HttpRequest, table: Table, data: dict) -> str:
    shoe = table_shoe_shuffled(table=table)
    if shoe is None:
        raise TableError(
            f"table {table.code} has no shuffled shoe waiting for its cut", code=ErrorCode.PAGE_OUT_OF_DATE
        )
    with transaction.atomic():
        return _shoe_cut_and_started(request, shoe, data)


def _shoe_cut_and_started(request: HttpRequest, shoe: Shoe, data: dict) -> str:
    """The cut (seed 000 §2.1.3), then the burn: the shoe in play."""
    shoe = shuffles.shoe_cut(
        shoe=shoe, actor=request.user, cards_from_top=data["cut_cards"], by_seat=data["cut_by_seat"]
    )
    shoe = shoes.shoe_start(shoe=shoe, actor=request.user, burn_card=data["burn_card"] or None)
    burned = f" {shoe.burn_shown} shown, {shoe.position - 1} cards burned." if shoe.burn_shown else ""
    return f"Shoe {shoe.number} in play.{burned}"


def _coup_open(request: HttpRequest, table: Table, data: dict) -> str:
    coup = coups.coup_open(table=table, actor=request.user)
    return f"Coup {coup.number} ({coup.round_id}): " + ("a no-bet coup." if coup.no_bet else "bets, please.")


def _coup_close_betting(request: HttpRequest, table: Table, data: dict) -> str:
    lifecycle.coup_close_betting(coup=table_live_coup_named(table=table, round_id=data["round_id"]), actor=request.user)
    return "No more bets."


def _coup_card(request: HttpRequest, table: Table, data: dict) -> str:
    coup = table_live_coup_named(table=table, round_id=data["round_id"])
    dealt = coup_deal_card(coup=coup, card=data["card"], hand=data["hand"], actor=request.user)
    if isinstance(dealt, HeldCard):
        messages.warning(
            request,
            f"{dealt.card} entered for the {dealt.entered_for}, but the {dealt.next_hand} hand was next: "
            "the coup is held until a pit boss decides (seed 000 §4.3). Leave the card where it is.",
        )
        return ""
    return f"{dealt.card} to the {dealt.hand}."


def _coup_resolve(request: HttpRequest, table: Table, data: dict) -> str:
    coup = lifecycle.coup_resolve(coup=table_live_coup_named(table=table, round_id=data["round_id"]))
    return result_announcement(winner=coup.winner, player_total=coup.player_total, banker_total=coup.banker_total) + "."


def _shoe_cut_card_out(request: HttpRequest, table: Table, data: dict) -> str:
    shoe = shoes.shoe_cut_card_out(shoe=_shoe_in_play(table), actor=request.user)
    return f"Cut card out: coup {shoe.last_coup} is the last of shoe {shoe.number}."


def _shoe_finish(request: HttpRequest, table: Table, data: dict) -> str:
    shoe = lifecycle.shoe_end(shoe=_shoe_in_play(table), actor=request.user, reason="the cut card came out")
    return f"Shoe {shoe.number} finished."


@dataclass(frozen=True)
class ConsoleStep:
    """One button of the console: the form its POST fills, and the service call it makes (returning what
    the dealer is told); who may take it: the dealer logged in at the table, a pit boss, or both."""

    form: type[Form]
    run: Callable[[HttpRequest, Table, dict], str]
    dealer_may: bool = True
    pit_boss_may: bool = False


STEPS = {
    "shoe_start": ConsoleStep(ShoeStartForm, _shoe_start),
    "shoe_cut_start": ConsoleStep(ShoeCutForm, _shoe_cut_start),
    "shoe_cut_card_out": ConsoleStep(Form, _shoe_cut_card_out),
    "shoe_finish": ConsoleStep(Form, _shoe_finish),
    "coup_open": ConsoleStep(Form, _coup_open),
    "coup_close_betting": ConsoleStep(CoupStepForm, _coup_close_betting),
    "coup_card": ConsoleStep(CardForm, _coup_card),
    "coup_resolve": ConsoleStep(CoupStepForm, _coup_resolve),
    "patron_seat": ConsoleStep(PatronSeatForm, patron_seat_step, pit_boss_may=True),
    "patron_move": ConsoleStep(PatronMoveForm, patron_move_step, pit_boss_may=True),
    "patron_unseat": ConsoleStep(SeatSessionForm, patron_unseat_step, pit_boss_may=True),
    "seat_bet": ConsoleStep(SeatBetForm, seat_bet_step, pit_boss_may=True),
    "seat_buy_in": ConsoleStep(BuyInForm, seat_buy_in_step, pit_boss_may=True),
    "seat_bets_reduce": ConsoleStep(SeatBetForm, seat_bets_reduce_step, pit_boss_may=True),
    "seat_bet_override": ConsoleStep(SeatBetForm, seat_bet_override_step, dealer_may=False, pit_boss_may=True),
    "tray_count": ConsoleStep(TrayForm, tray_count_step, dealer_may=False, pit_boss_may=True),
    "tray_fill": ConsoleStep(TrayForm, tray_fill_step, dealer_may=False, pit_boss_may=True),
    "tray_credit": ConsoleStep(TrayForm, tray_credit_step, dealer_may=False, pit_boss_may=True),
    "hand_shown_by_dealer": ConsoleStep(HandForm, hand_shown_by_dealer_step, pit_boss_may=True),
    "banker_shown_first": ConsoleStep(HandForm, banker_shown_first_step, dealer_may=False, pit_boss_may=True),
    "shoe_holder_pass": ConsoleStep(ShoeHolderForm, shoe_holder_pass_step, pit_boss_may=True),
    "shoe_holder_decline": ConsoleStep(ShoeHolderForm, shoe_holder_decline_step, pit_boss_may=True),
}


@dealer_required
@require_POST
def console_step(request: HttpRequest, code: str, step: str) -> HttpResponse:
    """Every console button: the signed-in dealer's own table only (a pit boss of its pit's, for the seats, the
    tray and who shows a hand), one step from ``STEPS``."""
    table = _dealer_table(code)
    action = STEPS[step]
    if not _may_act(request, table, action):
        raise PermissionDenied
    return _carry_out(request, table, action.form(request.POST), lambda data: action.run(request, table, data))
