"""Money's lock order, after the floor's (``tables.locks``: table → shoe → coup): the loss- or deposit-limited
players' protection rows in primary-key order (``wagering.protection.guard``), then player wallets in
primary-key order, then the system accounts in primary-key order (last, just before commit, as every
transaction touches them). A bet request's idempotency record is claimed under its coup's lock, never before it
(``wagering.idempotency``, ``lock_first``). Every money service locks through here. Two orders remain that a
client can cross, each on two coups at once: the same request_id (or partner key) sent to two tables, claimed
before its wallet by a bet alone and after the wallets by a batch; and a group commit's batch, which locks its
runs' wallets run by run. PostgreSQL cancels one side, and the group commit carries that batch out again
(``kernel.group_commit``)."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from decimal import Decimal
from functools import cache

from django.contrib.auth.models import AbstractBaseUser
from django.db import connection
from django.db.models import Case, QuerySet, Value, When

from kernel.errors import ErrorCode
from kernel.lookups import rows_any_of
from kernel.raw_rows import columns_sql, for_update, orm_values, prepared_cursor, sql_literal
from wagering.errors import WalletRejected
from wagering.models import (
    SHARDED_KINDS,
    Account,
    Bet,
    LedgerTransaction,
)

User = AbstractBaseUser


def wallet_locked(user: User) -> Account | None:
    return Account.objects.select_for_update(of=("self",)).filter(kind=Account.Kind.PLAYER, user=user).first()


def wallet_locked_for_transfer(user: User, *, kind: str, amount: Decimal, currency: str) -> Account:
    """The player's wallet, locked (opened in ``currency`` if it is the first transfer), in that currency,
    with the funds a withdrawal needs."""
    wallet = wallet_locked(user)
    if wallet is None:
        Account.objects.get_or_create(kind=Account.Kind.PLAYER, user=user, defaults={"currency": currency})
        wallet = wallet_locked(user)
    if wallet.currency != currency:
        raise WalletRejected(
            f"the wallet holds {wallet.currency}, not {currency}: a wallet has one currency",
            code=ErrorCode.CURRENCY_MISMATCH,
            details={"wallet_currency": wallet.currency, "currency": currency},
        )
    if kind == LedgerTransaction.Kind.WITHDRAWAL and amount > wallet.balance:
        raise WalletRejected(
            f"cannot withdraw {amount}: the balance is {wallet.balance}, short by {amount - wallet.balance}",
            code=ErrorCode.INSUFFICIENT_FUNDS,
            details={"balance": str(wallet.balance), "amount": str(amount), "short_by": str(amount - wallet.balance)},
        )
    return wallet


@dataclass(slots=True, eq=False)
class StakeAccount:
    """An account stakes came from, as its plain values: a coup's settlement locks tens of thousands,
    and model instances would cost more than the rest of its Python. ``ledger_post`` moves ``balance``."""

    pk: int
    kind: str
    user_id: int | None
    currency: str
    balance: Decimal

    @property
    def is_wallet(self) -> bool:
        return self.kind == Account.Kind.PLAYER

    @classmethod
    def read(cls, accounts: QuerySet) -> list[StakeAccount]:
        """The accounts of the query, in its order, as plain values (locked if the query locks them)."""
        return [cls(*row) for row in accounts.values_list(*_STAKE_ACCOUNT_READ)]

    @classmethod
    def from_row(cls, row: Sequence) -> StakeAccount:
        """An account read raw (``_STAKE_ACCOUNT_READ``'s columns), its values as the ORM gives them."""
        return cls(*orm_values(Account, _STAKE_ACCOUNT_READ, row))


_STAKE_ACCOUNT_READ = ("id", "kind", "user_id", "currency", "balance")  # StakeAccount's fields


def stake_accounts_locked(account_ids: set[int]) -> dict[int, StakeAccount]:
    """The accounts stakes came from (wallets, partners' floats), by id: wallets first, then floats, each
    in primary-key order (the order of every service that moves money between a wallet and a float)."""
    wallets_first = Case(When(kind=Account.Kind.PLAYER, then=Value(0)), default=Value(1))
    accounts = Account.objects.select_for_update(of=("self",)).filter(pk__in=account_ids)
    return {account.pk: account for account in StakeAccount.read(accounts.order_by(wallets_first, "pk"))}


def coup_stake_accounts_locked(coup_id: int) -> dict[int, StakeAccount]:
    """``stake_accounts_locked`` for the accounts the coup's open bets were staked from, in one raw statement
    whatever their number (a coup's thousands of bets: a subquery, not a list; a private coup's deal: a
    statement prepared once, not an ORM query built at each deal)."""
    with prepared_cursor() as cursor:
        cursor.execute(_coup_stake_accounts_sql() + for_update(), [coup_id])
        return {row[0]: StakeAccount.from_row(row) for row in cursor.fetchall()}


def system_accounts_locked(
    kinds: set[str], *, currency: str, table_id: int | None = None, shard: int = 0
) -> dict[str, StakeAccount]:
    """The house, bets-in-play and player-debt accounts in the currency, created the first time, locked in
    pk order, in one raw statement (every placement and settlement locks them).

    Bets in play are held per table (``table_id``, the coup's): placements at different tables
    never queue for one account's row lock. The house and bets in play are taken in ``shard`` (the coup's
    ``ledger_shard``): private coups dealt at one table at once never queue for one either.
    """
    shape = tuple(sorted((kind, _account_table_id(kind, table_id) is not None) for kind in kinds))
    parameters = [currency]
    for kind, per_table in shape:
        parameters += [table_id] if per_table else []
        parameters += [shard] if kind in SHARDED_KINDS else []
    for attempt in range(2):  # the second, after opening those missing
        with prepared_cursor() as cursor:
            cursor.execute(_system_accounts_sql(shape) + for_update(), parameters)
            rows = cursor.fetchall()
        locked = {row[1]: StakeAccount.from_row(row) for row in rows}
        if len(locked) == len(kinds) or attempt:
            break
        for kind in kinds - set(locked):
            Account.objects.get_or_create(
                kind=kind,
                partner_code="",
                currency=currency,
                table_id=_account_table_id(kind, table_id),
                shard=shard if kind in SHARDED_KINDS else 0,
            )
    if len(locked) < len(kinds):
        raise RuntimeError(f"the {currency} system accounts {sorted(kinds - set(locked))} were opened but not found")
    return locked


@cache
def _coup_stake_accounts_sql() -> str:
    quote = connection.ops.quote_name  # names of ours, not input
    accounts, bets = quote(Account._meta.db_table), quote(Bet._meta.db_table)
    return (
        f"SELECT {columns_sql(Account, _STAKE_ACCOUNT_READ, alias='a')} FROM {accounts} a "  # noqa: S608
        f"WHERE a.id IN (SELECT b.stake_account_id FROM {bets} b WHERE b.coup_id = %s "
        f"AND b.state = {sql_literal(Bet.State.ACCEPTED.value)}) "
        f"ORDER BY CASE WHEN a.kind = {sql_literal(Account.Kind.PLAYER.value)} THEN 0 ELSE 1 END, a.id"
    )


@cache
def _system_accounts_sql(shape: tuple[tuple[str, bool], ...]) -> str:
    """The statement for these kinds, each held per table (its table id sent) or once per currency, and the
    sharded ones in one shard (its number sent)."""
    quote = connection.ops.quote_name  # names of ours, not input
    kinds = " OR ".join(
        f"(a.kind = {sql_literal(kind)} AND a.table_id {'= %s' if per_table else 'IS NULL'}"
        f"{' AND a.shard = %s' if kind in SHARDED_KINDS else ''})"
        for kind, per_table in shape
    )
    return (
        f"SELECT {columns_sql(Account, _STAKE_ACCOUNT_READ, alias='a')} FROM {quote(Account._meta.db_table)} a "  # noqa: S608
        f"WHERE a.currency = %s AND a.partner_code = '' AND ({kinds}) ORDER BY a.id"
    )


def _account_table_id(kind: str, table_id: int | None) -> int | None:
    return table_id if kind in Account.TABLE_KINDS else None


def float_locked(partner_code: str, *, currency: str) -> Account:
    """A float, locked after the wallet it pays (opened in ``currency`` the first time): the partner's, or
    with an empty code the operator's own. A float holds one currency: the partner's."""
    floats = Account.objects.select_for_update(of=("self",)).filter(
        kind=Account.Kind.PARTNER_FLOAT, partner_code=partner_code
    )
    partner_float = floats.first()
    if partner_float is None:
        Account.objects.get_or_create(
            kind=Account.Kind.PARTNER_FLOAT, partner_code=partner_code, defaults={"currency": currency}
        )
        partner_float = floats.get()
    if partner_float.currency != currency:
        raise WalletRejected(
            f"the float of {partner_code or 'the operator'} holds {partner_float.currency}, not {currency}",
            code=ErrorCode.CURRENCY_MISMATCH,
            details={"float_currency": partner_float.currency, "currency": currency},
        )
    return partner_float


def wallets_locked(user_ids: set[int]) -> dict[int, StakeAccount]:
    """The players' wallets (by user id; none for a player without one), locked in primary-key order, as
    plain values (a group commit locks hundreds)."""
    return wallets_read(user_ids, lock=True)


def wallets_read(user_ids: Collection[int], *, lock: bool = False) -> dict[int, StakeAccount]:
    """The players' wallets by user id, in primary-key order (``lock``: locked): one prepared statement, the same
    whatever the number of players (``kernel.lookups.any_of``), read at every group commit's batch."""
    rows = rows_any_of(_wallets_sql(), "a.user_id", user_ids, then=f" ORDER BY a.id{for_update() if lock else ''}")
    return {row[2]: StakeAccount.from_row(row) for row in rows}


@cache
def _wallets_sql() -> str:
    quote = connection.ops.quote_name  # names of ours, not input
    return (
        f"SELECT {columns_sql(Account, _STAKE_ACCOUNT_READ, alias='a')} FROM {quote(Account._meta.db_table)} a "  # noqa: S608
        f"WHERE a.kind = {sql_literal(Account.Kind.PLAYER.value)}"
    )
