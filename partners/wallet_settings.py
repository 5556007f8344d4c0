"""A partner's wallet settings: transfer or seamless, the seamless wallet's URL and signing secret, and the
currency its players play in (``manage.py partner_wallet_set``, the admin)."""

from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Q

from kernel.currencies import CurrencyInvalid, currency_checked
from kernel.encryption import encrypt, reencrypt
from kernel.errors import ErrorCode
from partners.identifiers import PartnerRejected
from partners.models import Partner
from tables.audit import audit_record
from wagering.models import Account, LedgerEntry

User = AbstractBaseUser
MODES = ("transfer", "seamless")
MIN_SECRET_LENGTH = 16


@transaction.atomic
def partner_wallet_set(
    *,
    partner: Partner,
    mode: str,
    wallet_url: str | None = None,
    wallet_secret: str | None = None,
    currency: str | None = None,
    actor: User | None = None,
) -> Partner:
    """Set the partner's wallet mode (``None`` keeps a setting as it is). Seamless needs a wallet URL
    (https; http on loopback only with ``WEBHOOK_ALLOW_PRIVATE_TARGETS``) and a secret of 16 characters or
    more; the secret is stored encrypted and never shown again. The audit records no secret."""
    partner = Partner.objects.select_for_update(of=("self",)).get(pk=partner.pk)
    before = {"wallet_mode": partner.wallet_mode, "wallet_url": partner.wallet_url, "currency": partner.currency}
    wallet_url = partner.wallet_url if wallet_url is None else wallet_url
    currency = partner.currency if currency is None else currency
    wallet_settings_check(
        mode=mode,
        wallet_url=wallet_url,
        wallet_secret=wallet_secret,
        currency=currency,
        has_secret=bool(partner.wallet_secret_encrypted) or wallet_secret is not None,
    )
    if currency != partner.currency:
        _accounts_currency_change(partner=partner, currency=currency)
    partner.wallet_mode, partner.wallet_url, partner.currency = mode, wallet_url, currency
    if wallet_secret is not None:
        partner.wallet_secret_encrypted = encrypt(wallet_secret)
    partner.save(update_fields=["wallet_mode", "wallet_url", "wallet_secret_encrypted", "currency"])
    audit_record(
        action="partner_wallet_set",
        actor=actor,
        actor_label="admin",
        obj=partner,
        before=before,
        after={
            "wallet_mode": partner.wallet_mode,
            "wallet_url": partner.wallet_url,
            "currency": partner.currency,
            "secret_changed": wallet_secret is not None,
        },
    )
    return partner


def _partner_accounts(partner: Partner):
    return Account.objects.filter(
        Q(kind=Account.Kind.PARTNER_FLOAT, partner_code=partner.code)
        | Q(kind=Account.Kind.PLAYER, user__partner_player__partner=partner)
    )


def currency_change_check(*, partner: Partner, currency: str) -> None:
    """``PartnerRejected`` (``currency_locked``) once money has moved through the partner's float or its
    players' wallets: an amount is never converted, nor two currencies added."""
    if currency != partner.currency and LedgerEntry.objects.filter(account__in=_partner_accounts(partner)).exists():
        raise PartnerRejected(
            f"money has moved in {partner.currency} for partner {partner.code}: its currency can no longer change "
            "(open a partner of its own for another currency)",
            code=ErrorCode.CURRENCY_LOCKED,
            details={"currency": partner.currency, "requested": currency},
        )


def _accounts_currency_change(*, partner: Partner, currency: str) -> None:
    """The partner's float and its players' wallets move to the new currency (none has moved money yet)."""
    currency_change_check(partner=partner, currency=currency)
    Account.objects.filter(pk__in=_partner_accounts(partner).values("pk")).update(currency=currency)


def wallet_settings_check(
    *, mode: str, wallet_url: str, wallet_secret: str | None, currency: str, has_secret: bool
) -> None:
    """``PartnerRejected`` unless these settings make a working wallet (the admin's form checks them too)."""
    if mode not in MODES:
        raise PartnerRejected(
            f"the wallet mode is transfer or seamless, not {mode!r}", code=ErrorCode.INVALID_WALLET_MODE
        )
    try:
        currency_checked(currency)
    except CurrencyInvalid as error:
        raise PartnerRejected(
            str(error), code=ErrorCode.INVALID_CURRENCY, details={"currency": str(currency)[:10]}
        ) from None
    if wallet_url:
        _wallet_url_check(wallet_url)
    if wallet_secret is not None and (
        len(wallet_secret) < MIN_SECRET_LENGTH or not wallet_secret.isprintable() or " " in wallet_secret
    ):
        raise PartnerRejected(
            f"a wallet secret is {MIN_SECRET_LENGTH} or more printable characters", code=ErrorCode.INVALID_WALLET_SECRET
        )
    if mode == "seamless" and not (wallet_url and has_secret):
        raise PartnerRejected("a seamless wallet needs its URL and its secret", code=ErrorCode.WALLET_INCOMPLETE)


def _wallet_url_check(url: str) -> None:
    parts = urlsplit(url)
    allowed = ("https", "http") if settings.WEBHOOK_ALLOW_PRIVATE_TARGETS else ("https",)
    if (
        parts.scheme not in allowed
        or not parts.hostname
        or parts.query
        or parts.fragment
        or len(url) > 500
        or any(character.isspace() for character in url)
    ):
        raise PartnerRejected(
            "a wallet URL is https://host/path (no query), at most 500 characters",
            code=ErrorCode.INVALID_WALLET_URL,
            details={"wallet_url": url[:100]},
        )


@transaction.atomic
def wallet_secrets_reencrypt(*, actor: User | None = None) -> int:
    """Key rotation: every partner's wallet secret encrypted again with the first key."""
    partners = list(Partner.objects.select_for_update(of=("self",)).exclude(wallet_secret_encrypted="").order_by("pk"))
    for partner in partners:
        partner.wallet_secret_encrypted = reencrypt(partner.wallet_secret_encrypted)
    Partner.objects.bulk_update(partners, ["wallet_secret_encrypted"])
    audit_record(
        action="wallet_secrets_reencrypted", actor=actor, actor_label="system", after={"partners": len(partners)}
    )
    return len(partners)
