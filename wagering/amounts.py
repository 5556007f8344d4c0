"""Amounts in the wagering services' refusals: ``kernel.money``'s parser, with each service's error."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal

from django.contrib.auth.models import AbstractBaseUser

from kernel.money import AmountInvalid, amount_parse
from wagering.errors import WageringError

User = AbstractBaseUser


def amount_checked(value: object, *, error: type[WageringError], what: str) -> Decimal:
    """``kernel.money.amount_parse``, its refusal raised as the service's own error (same code and details)."""
    try:
        return amount_parse(value, what=what)
    except AmountInvalid as invalid:
        raise error(invalid.message, code=invalid.code, details=invalid.details) from None


def bet_label(bet_type: str) -> str:
    return bet_type.replace("_", " ").capitalize()


def amounts_as_strings(amounts: Mapping[str, Decimal]) -> dict[str, str]:
    return {key: str(amount) for key, amount in amounts.items()}
