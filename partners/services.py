"""Every change the partner API makes: partners, API keys, players and their money (their bets: ``partners.bets``).

One transaction each, validated and audited, on the ledger of ``wagering.ledger``. A partner's
deposits and withdrawals move money between the partner's float account and the player's wallet
(the cashier's deposits use the operator's float). Requests carrying an ``Idempotency-Key`` are carried
out once per partner and key: the same key and request again answers the first result, the same
key with another request is an ``IdempotencyConflict``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from kernel.errors import ErrorCode
from partners.identifiers import (
    PartnerConflict,
    PartnerRejected,
    api_key_new,
    api_key_secret_hash,
    idempotency_key_valid,
    partner_actor_label,
    player_id_valid,
    player_username,
)
from partners.models import Partner, PartnerApiKey, PartnerIdempotencyKey, PartnerPlayer
from partners.selectors.accounts import partner_api_reads_forget
from tables.audit import audit_record
from wagering.amounts import amount_checked
from wagering.errors import IdempotencyConflict, WalletRejected
from wagering.idempotency import request_once
from wagering.models import Account, LedgerTransaction
from wagering.placement import PlacedBatch
from wagering.wallets import TransferAudit, wallet_transfer

User = AbstractBaseUser
PARTNER_EDITABLE_FIELDS = ("name", "is_active", "rate_limit", "frame_origins")


@dataclass(frozen=True)
class IssuedApiKey:
    api_key: PartnerApiKey
    key: str  # the whole key: shown once, never stored


@dataclass(frozen=True)
class PartnerRequestResult:
    """The money a request moved; ``replayed`` when its idempotency key had already carried it out."""

    transaction: LedgerTransaction
    replayed: bool
    placed: PlacedBatch | None = None  # a placement just made, as the service left it (not on a replay)


# --- Partners and their keys ---------------------------------------------------------------------


@transaction.atomic
def partner_create(
    *, code: str, name: str, rate_limit: str = "", is_active: bool = True, actor: User | None = None
) -> Partner:
    """A new partner with its float account."""
    partner = Partner(code=code, name=name, rate_limit=rate_limit, is_active=is_active)
    _partner_clean(partner)
    partner.save()
    Account.objects.get_or_create(
        kind=Account.Kind.PARTNER_FLOAT, partner_code=partner.code, defaults={"currency": partner.currency}
    )
    audit_record(
        action="partner_created",
        actor=actor,
        actor_label="admin",
        obj=partner,
        after={field: getattr(partner, field) for field in ("code", *PARTNER_EDITABLE_FIELDS)},
    )
    return partner


@transaction.atomic
def partner_update(*, partner: Partner, changes: Mapping[str, object], actor: User | None = None) -> Partner:
    """Change a partner's name, whether it may use the API, or its rate limit (its code is for good)."""
    unknown = set(changes) - set(PARTNER_EDITABLE_FIELDS)
    if unknown:
        raise PartnerRejected(
            f"cannot change {', '.join(sorted(unknown))} of a partner", code=ErrorCode.INVALID_PARTNER
        )
    partner = Partner.objects.select_for_update(of=("self",)).get(pk=partner.pk)
    before = {field: getattr(partner, field) for field in PARTNER_EDITABLE_FIELDS}
    for field, value in changes.items():
        setattr(partner, field, value)
    _partner_clean(partner)
    partner.save(update_fields=list(changes))
    partner_api_reads_forget()  # other processes see it within PARTNER_API_CACHE_SECONDS
    audit_record(
        action="partner_updated",
        actor=actor,
        actor_label="admin",
        obj=partner,
        before=before,
        after={field: getattr(partner, field) for field in PARTNER_EDITABLE_FIELDS},
    )
    return partner


def _partner_clean(partner: Partner) -> None:
    try:
        partner.full_clean()
    except ValidationError as error:
        problems = [f"{field}: {message}" for field, messages in error.message_dict.items() for message in messages]
        raise PartnerRejected(
            "; ".join(problems), code=ErrorCode.INVALID_PARTNER, details={"code": str(partner.code)}
        ) from None


@transaction.atomic
def partner_api_key_create(*, partner: Partner, name: str = "", actor: User | None = None) -> IssuedApiKey:
    """A new API key for the partner: only its prefix and the SHA-256 of its secret are kept."""
    parts = api_key_new()
    api_key = PartnerApiKey.objects.create(
        partner=partner, name=name, prefix=parts.prefix, secret_hash=api_key_secret_hash(parts.secret)
    )
    audit_record(
        action="partner_api_key_created",
        actor=actor,
        actor_label="admin",
        obj=api_key,
        after={"partner": partner.code, "prefix": api_key.prefix, "name": name},
    )
    return IssuedApiKey(api_key=api_key, key=parts.key)


@transaction.atomic
def partner_api_key_revoke(*, api_key: PartnerApiKey, actor: User | None = None, reason: str = "") -> PartnerApiKey:
    """Revoke a key: from now on it answers 401."""
    api_key = PartnerApiKey.objects.select_for_update(of=("self",)).select_related("partner").get(pk=api_key.pk)
    if api_key.revoked_at is not None:
        raise PartnerRejected(f"API key {api_key.prefix} is already revoked", code=ErrorCode.ALREADY_REVOKED)
    api_key.revoked_at = timezone.now()
    api_key.save(update_fields=["revoked_at"])
    partner_api_reads_forget()  # other processes refuse it within PARTNER_API_CACHE_SECONDS
    audit_record(
        action="partner_api_key_revoked",
        actor=actor,
        actor_label="admin",
        obj=api_key,
        after={"partner": api_key.partner.code, "prefix": api_key.prefix},
        reason=reason,
    )
    return api_key


# --- Players -------------------------------------------------------------------------------------


def partner_player_create(*, partner: Partner, external_id: str) -> tuple[PartnerPlayer, bool]:
    """The partner's player with that id, created with an empty wallet the first time (``True``)."""
    if not player_id_valid(external_id):
        raise PartnerRejected(
            "a player id is 1 to 100 letters, digits and . _ @ + -, starting with a letter or digit",
            code=ErrorCode.INVALID_PLAYER_ID,
            details={"player_id": str(external_id)},
        )
    existing = PartnerPlayer.objects.filter(partner=partner, external_id=external_id).first()
    if existing is not None:
        return existing, False
    username = player_username(partner_code=partner.code, external_id=external_id)
    try:
        with transaction.atomic():
            user = get_user_model().objects.create_user(username=username)  # no password: never signs in
            player = PartnerPlayer.objects.create(partner=partner, external_id=external_id, user=user)
            Account.objects.create(kind=Account.Kind.PLAYER, user=user, currency=partner.currency)
            audit_record(
                action="partner_player_created",
                actor_label=partner_actor_label(partner.code),
                obj=player,
                after={"partner": partner.code, "player_id": external_id, "username": username},
            )
    except IntegrityError:  # created meanwhile by a concurrent request, or the username is someone else's
        existing = PartnerPlayer.objects.filter(partner=partner, external_id=external_id).first()
        if existing is None:
            raise PartnerConflict(
                f"player id {external_id!r} cannot be used: its username {username!r} is taken",
                code=ErrorCode.PLAYER_ID_UNAVAILABLE,
                details={"player_id": external_id},
            ) from None
        return existing, False
    return player, True


# --- Money: transfers between the partner's float and a player's wallet --------------------------


def partner_wallet_deposit(
    *, partner: Partner, player: PartnerPlayer, amount: Decimal | int | str, idempotency_key: str
) -> PartnerRequestResult:
    """Credit the player's wallet from the partner's float."""
    return _partner_wallet_move(
        kind=LedgerTransaction.Kind.DEPOSIT,
        partner=partner,
        player=player,
        amount=amount,
        idempotency_key=idempotency_key,
    )


def partner_wallet_withdraw(
    *, partner: Partner, player: PartnerPlayer, amount: Decimal | int | str, idempotency_key: str
) -> PartnerRequestResult:
    """Debit the player's wallet back to the partner's float, never below zero."""
    return _partner_wallet_move(
        kind=LedgerTransaction.Kind.WITHDRAWAL,
        partner=partner,
        player=player,
        amount=amount,
        idempotency_key=idempotency_key,
    )


def _partner_wallet_move(
    *, kind: str, partner: Partner, player: PartnerPlayer, amount: object, idempotency_key: str
) -> PartnerRequestResult:
    player_of_partner_check(partner=partner, player=player)
    amount = amount_checked(amount, error=WalletRejected, what=f"the {kind} amount")
    request = {"operation": kind, "player_id": player.external_id, "amount": str(amount)}

    def move() -> LedgerTransaction:
        return wallet_transfer(
            kind=kind,
            user=player.user,
            amount=amount,
            float_code=partner.code,
            currency=partner.currency,
            actor=None,
            ledger_reason=f"partner {partner.code}",
            audit=TransferAudit(
                action=f"partner_wallet_{kind}",
                actor_label=partner_actor_label(partner.code),
                after={"player_id": player.external_id, "idempotency_key": idempotency_key},
            ),
        )

    return partner_request_once(partner=partner, key=idempotency_key, request=request, perform=move)


# --- Idempotency ---------------------------------------------------------------------------------


def partner_request_once(
    *,
    partner: Partner,
    key: str,
    request: dict,
    perform: Callable[[], LedgerTransaction],
    lock_first: Callable[[], object] | None = None,
) -> PartnerRequestResult:
    """``perform`` once per partner and ``Idempotency-Key`` (``wagering.idempotency``, as the cashier; ``lock_first``
    there)."""
    idempotency_key_check(key)
    outcome = request_once(
        model=PartnerIdempotencyKey,
        scope={"partner_id": partner.pk},
        key=key,
        request=request,
        perform=perform,
        conflict=lambda record: idempotency_conflict(key=key, record=record),
        lock_first=lock_first,
    )
    return PartnerRequestResult(transaction=outcome.result, replayed=outcome.replayed)


def partner_request_once_claimed(
    *,
    partner: Partner,
    key: str,
    request: dict,
    perform: Callable[[Callable[[LedgerTransaction], None]], LedgerTransaction],
) -> PartnerRequestResult:
    """``perform`` once per partner and ``Idempotency-Key``, for a request that calls a seamless wallet (which
    cannot sit in a transaction): the key is claimed and committed first; ``perform`` gets the function that
    records its transaction on the key, to call in the transaction that moves the money. A refusal (the
    wallet's, its silence, any check of the wagering or the table) gives the key up, to be tried again: no
    transaction was recorded on it; a key whose request never finished answers 409 ``request_in_progress``."""
    idempotency_key_check(key)
    with transaction.atomic():
        record, claimed = PartnerIdempotencyKey.objects.get_or_create(
            partner=partner, key=key, defaults={"request": request}
        )
    if not claimed:
        if record.request != request:
            raise idempotency_conflict(key=key, record=record)
        if record.transaction_id is None:
            raise IdempotencyConflict(
                f"the request with Idempotency-Key {key!r} is in progress, or did not finish (nothing was placed)",
                code=ErrorCode.REQUEST_IN_PROGRESS,
                details={"key": key},
            )
        return PartnerRequestResult(transaction=record.transaction, replayed=True)

    def recorded(moved: LedgerTransaction) -> None:
        PartnerIdempotencyKey.objects.filter(pk=record.pk).update(transaction=moved)

    try:
        return PartnerRequestResult(transaction=perform(recorded), replayed=False)
    except Exception:  # a refusal of any kind (a table's too: shoe_changed, table_closed) moved no money
        PartnerIdempotencyKey.objects.filter(pk=record.pk, transaction__isnull=True).delete()
        raise


def idempotency_key_check(key: str) -> None:
    if not idempotency_key_valid(key):
        raise PartnerRejected(
            "an Idempotency-Key header of 1 to 255 printable ASCII characters (no spaces) is required",
            code=ErrorCode.INVALID_IDEMPOTENCY_KEY,
            details={"header": "Idempotency-Key"},
        )


def idempotency_conflict(*, key: str, record: PartnerIdempotencyKey) -> IdempotencyConflict:
    return IdempotencyConflict(
        f"Idempotency-Key {key!r} was used for another request: a {record.request['operation']} "
        f"for player {record.request['player_id']}",
        code=ErrorCode.IDEMPOTENCY_CONFLICT,
        details={"key": key, **{f"first_{name}": str(value) for name, value in record.request.items()}},
    )


def player_of_partner_check(*, partner: Partner, player: PartnerPlayer) -> None:
    if player.partner_id != partner.pk:
        raise PartnerRejected(
            f"no player {player.external_id!r} at {partner.code}",
            code=ErrorCode.UNKNOWN_PLAYER,
            details={"player_id": player.external_id},
        )
