"""The dealer console's chip tray, for the pit boss: the shift opened and closed by counting the tray, fills
from the cage and credits back to it, and the shift's drop, win and hold so far. The steps join
``casino.console.views.STEPS``; a seated patron's buy-in is the dealer's (``casino.console.seats``)."""

from __future__ import annotations

from django.http import HttpRequest

from tables.console_forms import TrayForm
from tables.models import Table
from tables.selectors import table_currencies
from wagering.chip_reports import shift_report, table_open_shifts
from wagering.chips import tray_count, tray_credit, tray_fill

TRAY_STEPS = ("tray_count", "tray_fill", "tray_credit")
TRAY_LABELS = ("Count the tray (opens or closes the shift)", "Fill from the cage", "Credit to the cage")


def tray_context(*, table: Table, acting: bool) -> dict:
    """The pit boss's (``acting``): the open shifts' reports and the forms. A dealer sees no drop or win."""
    if not acting:
        return {}
    currencies = table_currencies(table=table)
    shifts = [shift_report(opening=opening) for opening in table_open_shifts(table_id=table.pk)]
    forms = {name: TrayForm(currencies=currencies, auto_id=f"{name}-%s") for name in TRAY_STEPS}
    steps = [(f"console:{name}", forms[name], label) for name, label in zip(TRAY_STEPS, TRAY_LABELS, strict=True)]
    return {"shifts": shifts, "tray_count": forms["tray_count"], "tray_steps": steps}


def tray_count_step(request: HttpRequest, table: Table, data: dict) -> str:
    count = tray_count(table=table, currency=data["currency"], counted=data["amount"], actor=request.user)
    if count.opening is None:
        return f"Shift opened: {count.counted} {count.currency} counted in the tray."
    report = shift_report(opening=count.opening)
    return (
        f"Shift closed: {count.counted} {count.currency} counted; win {report.count_win}, variance {report.variance}."
    )


def tray_fill_step(request: HttpRequest, table: Table, data: dict) -> str:
    movement = tray_fill(table=table, currency=data["currency"], amount=data["amount"], actor=request.user)
    return f"Fill: {movement.amount} {movement.currency} from the cage."


def tray_credit_step(request: HttpRequest, table: Table, data: dict) -> str:
    movement = tray_credit(table=table, currency=data["currency"], amount=data["amount"], actor=request.user)
    return f"Credit: {movement.amount} {movement.currency} to the cage."
