"""Reads for the partner API about a partner's account and its players: API keys, webhook endpoints and
the float; players, their transfers and bet batches as records, and whose money a signed-in player plays.

No writes here. Amounts are ``Decimal`` (the API renders them as strings).
"""

from __future__ import annotations

import hmac
from datetime import date
from decimal import Decimal
from functools import cache
from operator import attrgetter
from typing import TYPE_CHECKING

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import DEFAULT_DB_ALIAS, connection
from django.db.models import Model, QuerySet

from kernel.raw_rows import columns_sql, model_attnames, orm_values, prepared_cursor
from kernel.ttl_cache import TtlCache
from partners.identifiers import api_key_parse, api_key_secret_hash
from partners.models import Partner, PartnerApiKey, PartnerPlayer, WalletTransaction, WebhookEndpoint
from wagering.models import Account, Bet, BetBatch, LedgerEntry, LedgerTransaction, money
from wagering.selectors import wallet_balance

if TYPE_CHECKING:
    from wagering.placement import PlacedBatch


# --- Keys and players ----------------------------------------------------------------------------


# Every partner API request reads its key and partner, and most a player: read once every
# PARTNER_API_CACHE_SECONDS in each process (a key revoked or a partner disabled elsewhere is refused within
# them; in the process that did it, at once: ``partner_api_reads_forget``).
_api_reads = TtlCache(size=10_000)


def partner_api_key_find(*, key: str) -> PartnerApiKey | None:
    """The unrevoked key a partner sent, with its partner, or None (the secret is compared in constant time)."""
    parts = api_key_parse(key)
    if parts is None:
        return None
    secret_hash = api_key_secret_hash(parts.secret)
    rows = _api_reads.get(
        ("key", parts.prefix, secret_hash),
        lambda: _api_key_rows(prefix=parts.prefix, secret_hash=secret_hash),
        seconds=settings.PARTNER_API_CACHE_SECONDS,
    )
    if rows is None:
        return None
    api_key = _built(PartnerApiKey, rows[0])
    api_key.partner = _built(Partner, rows[1])
    return api_key


def partner_player_find(*, partner: Partner, external_id: str) -> PartnerPlayer | None:
    """The partner's player (only its own), with its user."""
    rows = _api_reads.get(
        ("player", partner.pk, external_id),
        lambda: _player_rows(partner=partner, external_id=external_id),
        seconds=settings.PARTNER_API_CACHE_SECONDS,
    )
    if rows is None:
        return None
    player = _built(PartnerPlayer, rows[0])
    player.user = _built(get_user_model(), rows[1])
    player.partner = partner  # the asking partner: its currency and wallet mode, without reading it again
    return player


def partner_api_reads_forget() -> None:
    """Forget this process's keys, partners and players read: a change of them is seen at once here."""
    _api_reads.clear()


def _api_key_rows(*, prefix: str, secret_hash: str) -> tuple[tuple, tuple] | None:
    api_key = PartnerApiKey.objects.select_related("partner").filter(prefix=prefix, revoked_at=None).first()
    if api_key is None or not hmac.compare_digest(api_key.secret_hash, secret_hash):
        return None
    return _row(api_key), _row(api_key.partner)


def _player_rows(*, partner: Partner, external_id: str) -> tuple[tuple, tuple] | None:
    """The player's row and its user's, in one raw statement: a player betting once a coup finds the cache
    expired at each bet, and the ORM's query cost more to build than to run."""
    player_fields, user_fields = _player_read_fields()
    with prepared_cursor() as cursor:
        cursor.execute(_player_read_sql(), [partner.pk, external_id])
        row = cursor.fetchone()
    if row is None:
        return None
    split = len(player_fields)
    return (
        tuple(orm_values(PartnerPlayer, player_fields, row[:split])),
        tuple(orm_values(get_user_model(), user_fields, row[split:])),
    )


@cache
def _player_read_fields() -> tuple[tuple[str, ...], tuple[str, ...]]:
    return model_attnames(PartnerPlayer), model_attnames(get_user_model())


@cache
def _player_read_sql() -> str:
    player_fields, user_fields = _player_read_fields()
    user_model, player_meta = get_user_model(), PartnerPlayer._meta
    quote = connection.ops.quote_name  # names of ours, not input

    def column(name: str) -> str:
        return quote(player_meta.get_field(name).column)

    return (
        f"SELECT {columns_sql(PartnerPlayer, player_fields, alias='p')}, "  # noqa: S608
        f"{columns_sql(user_model, user_fields, alias='u')} FROM {quote(player_meta.db_table)} p "
        f"JOIN {quote(user_model._meta.db_table)} u ON u.{quote(user_model._meta.pk.column)} = p.{column('user')} "
        f"WHERE p.{column('partner')} = %s AND p.{column('external_id')} = %s"
    )


def _row(instance: Model) -> tuple:
    """Its columns' values: what is cached (each request builds instances of its own from them)."""
    return tuple(getattr(instance, field.attname) for field in instance._meta.concrete_fields)


def _built(model: type[Model], row: tuple) -> Model:
    return model.from_db(DEFAULT_DB_ALIAS, None, row)


def partner_player_record(*, player: PartnerPlayer) -> dict:
    return {
        "player_id": player.external_id,
        "currency": player.partner.currency,
        "balance": None if player.partner.is_seamless else wallet_balance(user=player.user),
        "created_at": player.created_at,
    }


def transfer_record(*, ledger_transaction: LedgerTransaction, player: PartnerPlayer) -> dict:
    """A deposit or withdrawal as it was: the amount and the wallet's balance just after."""
    wallet_leg = ledger_transaction.entries.get(account__user=player.user)
    return {
        "transaction_id": ledger_transaction.pk,
        "kind": ledger_transaction.kind,
        "player_id": player.external_id,
        "currency": player.partner.currency,
        "amount": abs(wallet_leg.amount),
        "balance": wallet_leg.balance_after,
        "created_at": ledger_transaction.created_at,
    }


def bet_batch_record(*, ledger_transaction: LedgerTransaction, player: PartnerPlayer) -> dict:
    """A batch of bets as it was placed (by its placement): the bets, their total, the balance just after."""
    batch = BetBatch.objects.select_related("coup__table").get(placement=ledger_transaction)
    debit = WalletTransaction.objects.filter(batch=batch).first()  # paid by a seamless wallet
    if debit is not None:
        balance = debit.partner_balance
    else:
        balance = ledger_transaction.entries.get(account__user=player.user).balance_after
    bets = list(batch.bets.order_by("pk"))
    return _bet_batch_record(batch=batch, bets=bets, player=player, balance=balance)


def placed_batch_record(*, placed: PlacedBatch, player: PartnerPlayer) -> dict:
    """``bet_batch_record`` of a placement just made, from what the service answered (no reads)."""
    bets = sorted(placed.bets, key=attrgetter("pk"))
    return _bet_batch_record(batch=placed.batch, bets=bets, player=player, balance=placed.balance)


def _bet_batch_record(*, batch: BetBatch, bets: list[Bet], player: PartnerPlayer, balance: Decimal | None) -> dict:
    return {
        "batch_id": batch.pk,
        "round_id": batch.coup.round_id,
        "table": batch.coup.table.code,
        "player_id": player.external_id,
        "bets": bets,
        "currency": player.partner.currency,
        "total": money(sum(bet.stake for bet in bets)),
        "balance": balance,
        "placed_at": batch.created_at,
    }


def partner_webhook_endpoints(*, partner: Partner) -> QuerySet[WebhookEndpoint]:
    return WebhookEndpoint.objects.filter(partner=partner, is_active=True).order_by("pk")


def seamless_player(*, user: AbstractBaseUser | AnonymousUser) -> PartnerPlayer | None:
    """The partner's player this user is, if its partner keeps the money in a seamless wallet."""
    if not user.is_authenticated:
        return None
    player = PartnerPlayer.objects.filter(user=user, partner__wallet_mode="seamless").select_related("partner")
    return player.first()


def player_currency(*, user: AbstractBaseUser | AnonymousUser) -> str:
    """The currency a player plays in: their partner's, or the house's. One raw statement
    (``kernel.raw_rows``): every socket's connect reads it."""
    if user.pk is None:
        return settings.HOUSE_CURRENCY
    with prepared_cursor() as cursor:
        cursor.execute(_player_currency_sql(), [user.pk])
        row = cursor.fetchone()
    return row[0] if row is not None else settings.HOUSE_CURRENCY


@cache
def _player_currency_sql() -> str:
    quote = connection.ops.quote_name
    players, partners = quote(PartnerPlayer._meta.db_table), quote(Partner._meta.db_table)  # ours, not input
    currency = columns_sql(Partner, ["currency"], alias="p")
    return f"SELECT {currency} FROM {players} pp JOIN {partners} p ON p.id = pp.partner_id WHERE pp.user_id = %s"  # noqa: S608


# --- The partner's float -------------------------------------------------------------------------


def partner_float(*, partner: Partner) -> Account | None:
    return Account.objects.filter(kind=Account.Kind.PARTNER_FLOAT, partner_code=partner.code).first()


def partner_float_statement(
    *, partner: Partner, date_from: date | None = None, date_to: date | None = None
) -> QuerySet[LedgerEntry]:
    """The float's movements, newest first (UTC days, both included), with their transaction and round."""
    entries = LedgerEntry.objects.filter(
        account__kind=Account.Kind.PARTNER_FLOAT, account__partner_code=partner.code
    ).select_related("transaction__coup")
    if date_from is not None:
        entries = entries.filter(transaction__created_at__date__gte=date_from)
    if date_to is not None:
        entries = entries.filter(transaction__created_at__date__lte=date_to)
    return entries.order_by("-pk")
