"""Every change the partner API makes: partners, API keys, players, their money and their bets.

One transaction each, validated and audited, on the ledger of ``wagering.ledger``. A partner's
deposits and withdrawals move money between the partner's float account and the player's wallet
(the cashier's deposits use the operator's float). Requests carrying an ``Idempotency-Key`` are carried
out once per partner and key: the same key and request again answers the first result, the same
key with another request is an ``IdempotencyConflict``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from decimal import Decimal

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from partners.identifiers import (
    PartnerRejected,
    api_key_new,
    api_key_secret_hash,
    idempotency_key_valid,
    partner_actor_label,
    player_id_valid,
    player_username,
)
from partners.models import Partner, PartnerApiKey, PartnerIdempotencyKey, PartnerPlayer
from partners.seamless import seamless_bet_place
from tables.audit import audit_record
from tables.models import Coup, Table
from tables.selectors import table_live_coup
from wagering.amounts import amount_checked
from wagering.errors import BetRejected, IdempotencyConflict, WageringError, WalletRejected
from wagering.idempotency import request_once
from wagering.models import Account, LedgerTransaction
from wagering.placement import PlacedBatch, bet_batch_place
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
        raise PartnerRejected("invalid_partner", f"cannot change {', '.join(sorted(unknown))} of a partner")
    partner = Partner.objects.select_for_update(of=("self",)).get(pk=partner.pk)
    before = {field: getattr(partner, field) for field in PARTNER_EDITABLE_FIELDS}
    for field, value in changes.items():
        setattr(partner, field, value)
    _partner_clean(partner)
    partner.save(update_fields=list(changes))
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
        raise PartnerRejected("invalid_partner", "; ".join(problems), {"code": str(partner.code)}) from None


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
        raise PartnerRejected("already_revoked", f"API key {api_key.prefix} is already revoked")
    api_key.revoked_at = timezone.now()
    api_key.save(update_fields=["revoked_at"])
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
            "invalid_player_id",
            "a player id is 1 to 100 letters, digits and . _ @ + -, starting with a letter or digit",
            {"player_id": str(external_id)},
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
            raise PartnerRejected(
                "player_id_unavailable",
                f"player id {external_id!r} cannot be used: its username {username!r} is taken",
                {"player_id": external_id},
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
    _player_of_partner_check(partner=partner, player=player)
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

    return _idempotent(partner=partner, key=idempotency_key, request=request, perform=move)


# --- Bets ----------------------------------------------------------------------------------------


def partner_bet_batch_place(
    *,
    partner: Partner,
    player: PartnerPlayer,
    table: Table,
    bets: Mapping[str, Decimal | int | str],
    idempotency_key: str,
    round_id: str = "",
) -> PartnerRequestResult:
    """Place a batch of bets for the player on the coup taking bets at the table (``round_id``, if
    given, must be that coup): all accepted or none, by every limit of ``bet_batch_place``."""
    _player_of_partner_check(partner=partner, player=player)
    stakes = {
        bet_type: str(amount_checked(stake, error=BetRejected, what=f"the {bet_type} stake"))
        for bet_type, stake in sorted(bets.items())
    }
    request = {
        "operation": "bet",
        "player_id": player.external_id,
        "table": table.code,
        "round_id": round_id,
        "bets": stakes,
    }

    if partner.is_seamless:
        return _seamless_bet_batch_place(
            partner=partner,
            player=player,
            coup_find=lambda: _coup_taking_bets(table, round_id),
            request=request,
            key=idempotency_key,
            stakes=stakes,
        )
    placed: list[PlacedBatch] = []

    def place() -> LedgerTransaction:
        coup = _coup_taking_bets(table, round_id)
        placed.append(bet_batch_place(user=player.user, coup=coup, bets=stakes))
        return placed[0].batch.placement

    result = _idempotent(partner=partner, key=idempotency_key, request=request, perform=place)
    return replace(result, placed=placed[0]) if placed else result


def _coup_taking_bets(table: Table, round_id: str) -> Coup:
    coup = table_live_coup(table=table)
    if coup is None:
        raise BetRejected(
            "betting_closed", f"no more bets: table {table.code} has no coup taking bets", {"table": table.code}
        )
    if round_id and coup.round_id != round_id:
        raise BetRejected(
            "round_not_current",
            f"round {round_id} is not the coup in play at table {table.code}: {coup.round_id} is",
            {"round_id": round_id, "current_round_id": coup.round_id},
        )
    return coup


def _seamless_bet_batch_place(
    *,
    partner: Partner,
    player: PartnerPlayer,
    coup_find: Callable[[], Coup],
    request: dict,
    key: str,
    stakes: dict[str, str],
) -> PartnerRequestResult:
    """A bet paid by the partner's seamless wallet, once per ``Idempotency-Key``: the key is claimed and
    committed before the wallet is called (the call cannot sit in a transaction), given up if the bet is
    refused (the key may be tried again), and a key whose request never finished answers 409."""
    _idempotency_key_check(key)
    with transaction.atomic():
        record, claimed = PartnerIdempotencyKey.objects.get_or_create(
            partner=partner, key=key, defaults={"request": request}
        )
    if not claimed:
        if record.request != request:
            raise _idempotency_conflict(key=key, record=record)
        if record.transaction_id is None:
            raise IdempotencyConflict(
                "request_in_progress",
                f"the request with Idempotency-Key {key!r} is in progress, or did not finish (nothing was placed)",
                {"key": key},
            )
        return PartnerRequestResult(transaction=record.transaction, replayed=True)

    def recorded(placed: PlacedBatch) -> None:
        PartnerIdempotencyKey.objects.filter(pk=record.pk).update(transaction=placed.batch.placement)

    try:
        placed = seamless_bet_place(player=player, coup=coup_find(), bets=stakes, placed_record=recorded)
    except WageringError:
        PartnerIdempotencyKey.objects.filter(pk=record.pk, transaction__isnull=True).delete()
        raise
    return PartnerRequestResult(transaction=placed.batch.placement, replayed=False, placed=placed)


# --- Idempotency ---------------------------------------------------------------------------------


def _idempotent(
    *, partner: Partner, key: str, request: dict, perform: Callable[[], LedgerTransaction]
) -> PartnerRequestResult:
    """``perform`` once per partner and ``Idempotency-Key`` (``wagering.idempotency``, as the cashier)."""
    _idempotency_key_check(key)
    outcome = request_once(
        model=PartnerIdempotencyKey,
        scope={"partner_id": partner.pk},
        key=key,
        request=request,
        perform=perform,
        conflict=lambda record: _idempotency_conflict(key=key, record=record),
    )
    return PartnerRequestResult(transaction=outcome.result, replayed=outcome.replayed)


def _idempotency_key_check(key: str) -> None:
    if not idempotency_key_valid(key):
        raise PartnerRejected(
            "invalid_idempotency_key",
            "an Idempotency-Key header of 1 to 255 printable ASCII characters (no spaces) is required",
            {"header": "Idempotency-Key"},
        )


def _idempotency_conflict(*, key: str, record: PartnerIdempotencyKey) -> IdempotencyConflict:
    return IdempotencyConflict(
        "idempotency_conflict",
        f"Idempotency-Key {key!r} was used for another request: a {record.request['operation']} "
        f"for player {record.request['player_id']}",
        {"key": key, **{f"first_{name}": str(value) for name, value in record.request.items()}},
    )


def _player_of_partner_check(*, partner: Partner, player: PartnerPlayer) -> None:
    if player.partner_id != partner.pk:
        raise PartnerRejected(
            "unknown_player", f"no player {player.external_id!r} at {partner.code}", {"player_id": player.external_id}
        )
