"""The site header's wallet (templates/base.html): a signed-in player's balance with its currency."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from casino.players.launch import launched_seamless_player
from wagering.selectors import wallet_balance, wallet_currency


@dataclass(frozen=True)
class HeaderWallet:
    balance: Decimal
    currency: str


def header_wallet(request: HttpRequest) -> dict:
    """Context processor: ``header_wallet``, read only if the page draws it. None for anyone without a wallet
    of ours: visitors, staff, and launched players whose partner's seamless wallet holds the money (asking it
    takes a call to the partner; the table page shows that balance)."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated or user.is_staff:
        return {"header_wallet": None}
    return {"header_wallet": SimpleLazyObject(lambda: _player_wallet(request))}


def _player_wallet(request: HttpRequest) -> HeaderWallet | None:
    if launched_seamless_player(request) is not None:
        return None
    return HeaderWallet(balance=wallet_balance(user=request.user), currency=wallet_currency(user=request.user))
