"""Money: one type (``Decimal`` to the cent), one column shape, one amount parser for forms, the API
and the services. Every app reads amounts through here, so an amount means the same everywhere."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from django import forms

from kernel.errors import ErrorCode, PuntoError

MONEY = {"max_digits": 14, "decimal_places": 2}  # the column every amount is stored in
CENT = Decimal("0.01")
# A stored amount is exact to the cent; anything further off is a real difference (SQLite sums floats).
HALF_CENT = Decimal("0.005")
ZERO = Decimal("0.00")
MAX_AMOUNT = Decimal("999999999999.99")  # what MONEY (14 digits, 2 places) can hold
AMOUNT_TEXT = re.compile(r"[0-9]+(\.[0-9]+)?")  # ASCII digits: Decimal alone takes "1_000", "1e3", "١٠٠"


def money(value: Decimal | int | str | None) -> Decimal:
    """An amount to the cent; SQLite hands sums back as floats' digits, so every sum goes through here."""
    return ZERO if value is None else Decimal(value).quantize(CENT)


class AmountInvalid(PuntoError):
    """An amount refused by ``amount_parse``, the amount in its details; each service raises it again as its
    own refusal (``wagering.amounts.amount_checked``, ``tables.limit_sets.table_amount``)."""

    default_code = ErrorCode.INVALID_AMOUNT

    def __init__(self, message: str, *, value: object) -> None:
        super().__init__(message, details={"amount": str(value)})


def amount_parse(value: object, *, what: str = "the amount") -> Decimal:
    """A positive amount with at most 2 decimals and 12 digits: ``Decimal``, ``int`` or a string of ASCII
    digits; floats, booleans, exponents and anything else are refused with ``AmountInvalid``."""
    if isinstance(value, bool) or not isinstance(value, Decimal | int | str):
        raise AmountInvalid(f"{what} must be a decimal amount, not {type(value).__name__}", value=value)
    if isinstance(value, str) and value.strip().startswith("-") and AMOUNT_TEXT.fullmatch(value.strip()[1:]):
        raise AmountInvalid(f"{what} must be a positive amount, not {value.strip()}", value=value)
    if isinstance(value, str) and not AMOUNT_TEXT.fullmatch(value.strip()):
        raise AmountInvalid(f"{what} must be written in digits, e.g. 25.50, not {value!r}", value=value)
    try:
        amount = Decimal(value.strip()) if isinstance(value, str) else Decimal(value)
    except InvalidOperation:
        raise AmountInvalid(f"{what} must be a decimal amount, not {value!r}", value=value) from None
    if not amount.is_finite() or amount <= 0:
        raise AmountInvalid(f"{what} must be a positive amount, not {value}", value=value)
    if amount > MAX_AMOUNT or amount != amount.quantize(CENT):
        raise AmountInvalid(f"{what} must have at most 2 decimals and 12 digits, not {value}", value=value)
    return amount.quantize(CENT)


class AmountField(forms.DecimalField):
    """A form's amount in ASCII digits (``AMOUNT_TEXT``, as ``amount_parse`` reads them): DecimalField alone
    takes "1_000", "1e3", "١٠٠". Its bounds come from the field's ``min_value`` and ``MONEY``."""

    default_error_messages = {"not_digits": "Write the amount in digits, e.g. 25.50."}

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**{**MONEY, **kwargs})

    def to_python(self, value: object) -> Decimal | None:
        if isinstance(value, str) and value.strip() and not AMOUNT_TEXT.fullmatch(value.strip()):
            raise forms.ValidationError(self.error_messages["not_digits"], code="not_digits")
        return super().to_python(value)
