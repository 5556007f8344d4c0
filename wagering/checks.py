"""The books' invariants, checked from the rows: the ledger balanced and chained, balances equal to their
legs, every bet closed by the transaction its state says, stake totals equal to their bets, corrections
applied. The reconciliation (and every wagering test) runs them; on PostgreSQL the triggers they list
guard the same rules as the rows are written."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from decimal import Decimal
from typing import NamedTuple

from django.contrib.auth.models import AbstractBaseUser
from django.db import connection
from django.db.models import (
    Case,
    Count,
    DecimalField,
    F,
    IntegerField,
    Max,
    Min,
    OuterRef,
    Q,
    Subquery,
    Sum,
    Value,
    When,
    Window,
)
from django.db.models.functions import Coalesce, Lag, Mod

from kernel.money import HALF_CENT, MONEY
from tables.models import Coup, DealtCard
from tables.selectors import coup_rules
from wagering.models import (
    LEDGER_SHARDS,
    SHARDED_KINDS,
    ZERO,
    Account,
    Bet,
    BetAdjustment,
    BetSettlement,
    ChipMovement,
    CoupStakeTotal,
    LedgerEntry,
    LedgerTransaction,
    PlayerAdjustment,
    money,
)
from wagering.selectors import bet_paid

User = AbstractBaseUser


@dataclass(frozen=True)
class LedgerCheck:
    """The ledger's counts, and the ids of the transactions, accounts or entries breaking its invariants."""

    transactions: int
    entries: int
    unbalanced: list[int]
    mixed_currencies: list[int]
    mismatched_accounts: list[int]
    stale_accounts: list[int]
    broken_chains: list[int]
    changed_accounts: list[int]
    missing_guards: list[str]
    # Not problems of the books: how they could become some (``_connection_role_warnings``).
    warnings: list[str] = field(default_factory=list)

    @property
    def problems(self) -> list[str]:
        """Each kind of problem found, in words, with the first ten ids."""
        found = {
            "transactions whose legs do not sum to zero": self.unbalanced,
            "transactions with a leg in another currency than theirs": self.mixed_currencies,
            "accounts whose balance is not the sum of their entries": self.mismatched_accounts,
            "accounts whose balance is not their last entry's balance_after": self.stale_accounts,
            "entries that do not follow their account's previous entry": self.broken_chains,
            "accounts whose currency, owner or table is not what their legs show": self.changed_accounts,
            "database guards missing, disabled, changed or on the caller's search path": self.missing_guards,
        }
        return [f"{len(ids)} {what}: {ids[:10]}" for what, ids in found.items() if ids]

    @property
    def ok(self) -> bool:
        return not self.problems


class Guard(NamedTuple):
    """A guard trigger as its migration installs it: its table, the function it runs, its ``tgtype`` (when it fires,
    on which events, for each row or statement), whether it has a ``WHEN`` condition, whether its check waits for
    the commit (a deferred constraint trigger)."""

    table: str
    function: str
    events: int
    when: bool = False
    deferred: bool = False


# PostgreSQL's triggers that keep the ledger and the audit log tamper-evident (tables/0003, 0008;
# wagering/0010, 0019, 0021, 0022, 0027): the ledger balanced, chained and append-only, balances moving only by
# new legs, accounts keeping their identity, ids only as their sequence draws them (each ``*_id_drawn`` trigger
# names its own table's sequence). Their functions run on this search path (wagering/0021), not the caller's,
# whose temporary schema would come first and shadow the tables they read. What is not compared: a WHEN
# condition's text and a function's body (the hourly roots, wagering/ledger_roots.py, catch rows changed).
GUARD_SEARCH_PATH = "search_path=pg_catalog, public, pg_temp"
LEDGER_GUARDS = {
    "tables_auditlog_append_only": Guard("tables_auditlog", "tables_auditlog_append_only", 27),
    "tables_auditlog_id_drawn": Guard("tables_auditlog", "wagering_identity_drawn", 7),
    "tables_auditlog_no_truncate": Guard("tables_auditlog", "tables_auditlog_append_only", 34),
    "wagering_account_balance_inserted": Guard(
        "wagering_account", "wagering_account_balance_follows_ledger", 5, when=True, deferred=True
    ),
    "wagering_account_balance_updated": Guard(
        "wagering_account", "wagering_account_balance_follows_ledger", 17, when=True, deferred=True
    ),
    "wagering_account_identity_fixed": Guard("wagering_account", "wagering_account_identity_fixed", 19, when=True),
    "wagering_ledgerentry_append_only": Guard("wagering_ledgerentry", "wagering_ledger_append_only", 27),
    "wagering_ledgerentry_balanced": Guard("wagering_ledgerentry", "wagering_ledger_legs_balanced", 4),
    "wagering_ledgerentry_id_drawn": Guard("wagering_ledgerentry", "wagering_identity_drawn", 7),
    "wagering_ledgerentry_no_truncate": Guard("wagering_ledgerentry", "wagering_ledger_append_only", 34),
    "wagering_ledgerroot_append_only": Guard("wagering_ledgerroot", "wagering_ledgerroot_append_only", 27),
    "wagering_ledgerroot_inserts_checked": Guard("wagering_ledgerroot", "wagering_ledgerroot_insert_checked", 7),
    "wagering_ledgerroot_no_truncate": Guard("wagering_ledgerroot", "wagering_ledgerroot_append_only", 34),
    "wagering_ledgertransaction_append_only": Guard("wagering_ledgertransaction", "wagering_ledger_append_only", 27),
    "wagering_ledgertransaction_id_drawn": Guard("wagering_ledgertransaction", "wagering_identity_drawn", 7),
    "wagering_ledgertransaction_no_truncate": Guard("wagering_ledgertransaction", "wagering_ledger_append_only", 34),
}
IDENTITY_GUARD = "wagering_identity_drawn"  # its triggers' one argument: their own table's id sequence


def ledger_check() -> LedgerCheck:
    """Every transaction's legs sum to zero, all in its currency; every account's balance is the sum of its
    legs and its last leg's ``balance_after``; each leg's ``balance_before`` is its account's previous leg's
    ``balance_after`` (0 for the first) and its ``balance_after`` that plus its amount; every account still the
    one its legs were written for (``_accounts_changed``). On PostgreSQL, the triggers that guard all this are
    installed and enabled."""
    money_field = DecimalField(**MONEY)
    sums = LedgerEntry.objects.values("transaction_id").annotate(total=Sum("amount")).order_by()
    unbalanced = sums.filter(_beyond_a_cent("total")).values_list("transaction_id", flat=True)
    mixed = LedgerEntry.objects.exclude(account__currency=F("transaction__currency")).values_list("transaction_id")
    drift = Account.objects.annotate(
        drift=F("balance") - Coalesce(Sum("entries__amount"), Value(ZERO), output_field=money_field)
    ).filter(_beyond_a_cent("drift"))
    last_after = LedgerEntry.objects.filter(account=OuterRef("pk")).order_by("-pk").values("balance_after")[:1]
    stale = Account.objects.annotate(gap=F("balance") - Subquery(last_after)).filter(_beyond_a_cent("gap"))
    previous_after = Window(Lag("balance_after"), partition_by=F("account_id"), order_by=F("pk").asc())
    chain = LedgerEntry.objects.annotate(
        gap_before=F("balance_before") - Coalesce(previous_after, Value(ZERO), output_field=money_field),
        gap_after=F("balance_after") - F("balance_before") - F("amount"),
    ).order_by()
    broken = chain.filter(_beyond_a_cent("gap_before") | _beyond_a_cent("gap_after"))
    return LedgerCheck(
        transactions=LedgerTransaction.objects.count(),
        entries=LedgerEntry.objects.count(),
        unbalanced=sorted(unbalanced),
        mixed_currencies=sorted(set(mixed.values_list("transaction_id", flat=True))),
        mismatched_accounts=sorted(drift.values_list("pk", flat=True)),
        stale_accounts=sorted(stale.values_list("pk", flat=True)),
        broken_chains=sorted(broken.values_list("pk", flat=True)),
        changed_accounts=_accounts_changed(),
        missing_guards=_ledger_guards_missing(),
        warnings=_connection_role_warnings(),
    )


def _connection_role_warnings() -> list[str]:
    """On PostgreSQL, a warning if the application's role could disable the guards above: a superuser, or the
    ledger's owner (or a member of its role). The platform should connect as a runtime role that owns nothing
    (``DATABASE_URL``) and migrate as the owner (``DATABASE_MIGRATE_URL``: ``kernel.database_roles``)."""
    if connection.vendor != "postgresql":
        return []  # the embedded default: one file, no roles
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT current_user, rolsuper, pg_has_role(current_user, relowner, 'USAGE') FROM pg_roles, pg_class "
            "WHERE rolname = current_user AND pg_class.oid = %s::regclass",
            [LedgerEntry._meta.db_table],
        )
        role, superuser, owner = cursor.fetchone()
    if not (superuser or owner):
        return []
    what = "a superuser" if superuser else "the ledger's owner"
    return [
        f"the application connects to the database as {role}, {what}, which can disable the ledger's guards: "
        "connect as a runtime role (DATABASE_URL) and migrate as the owner (DATABASE_MIGRATE_URL)"
    ]


def _accounts_changed() -> list[int]:
    """Accounts whose identity differs from what their legs show. A leg names only its account and its
    transaction, so what can be compared is: the currency of the account's first leg's transaction; for a
    player's wallet, the player of every bet staked from it; for a table's account, the table of every coup
    whose transactions have a leg in it; for a shard of the house or of bets in play, the coup's shard (or 0). Its
    kind and partner have no witness in the rows: on PostgreSQL a trigger keeps them, with the rest
    (``wagering_account_identity_fixed``)."""
    first_currency = LedgerEntry.objects.filter(account=OuterRef("pk")).order_by("pk").values("transaction__currency")
    currency = Account.objects.annotate(first=Subquery(first_currency[:1])).exclude(currency=F("first"))
    owner = Bet.objects.filter(stake_account__kind=Account.Kind.PLAYER).exclude(user_id=F("stake_account__user_id"))
    table = LedgerEntry.objects.filter(account__table__isnull=False, transaction__coup__isnull=False).exclude(
        account__table_id=F("transaction__coup__table_id")
    )
    coup_shard = Case(  # ledger_shard's rule, in SQL
        When(transaction__coup__player__isnull=False, then=Mod("transaction__coup_id", LEDGER_SHARDS)),
        default=0,
        output_field=IntegerField(),
    )
    # Shard 0 or the coup's: the private coups settled before the shards (wagering 0026) went through shard 0.
    shard = (
        LedgerEntry.objects.filter(account__kind__in=SHARDED_KINDS, transaction__coup__isnull=False)
        .exclude(account__shard=0)
        .exclude(account__shard=coup_shard)
    )
    return sorted(
        set(currency.filter(first__isnull=False).values_list("pk", flat=True))
        | set(owner.values_list("stake_account_id", flat=True))
        | set(table.values_list("account_id", flat=True))
        | set(shard.values_list("account_id", flat=True))
    )


def _ledger_guards_missing() -> list[str]:
    """The guards not installed as ``LEDGER_GUARDS`` says (another table, function, event or WHEN), disabled
    or firing only in replicas, whose function no longer pins its search path, or (the id guards) told another
    table's sequence."""
    if connection.vendor != "postgresql":
        return []  # SQLite has no such triggers
    tables, functions, events, whens, deferred = (list(column) for column in zip(*LEDGER_GUARDS.values(), strict=True))
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT tgname FROM pg_trigger JOIN pg_proc ON pg_proc.oid = tgfoid "
            "JOIN unnest(%s::text[], %s::text[], %s::text[], %s::int[], %s::bool[], %s::bool[]) "
            "AS guard(name, relation, function, events, has_when, deferred) ON guard.name = tgname "
            "WHERE NOT tgisinternal AND tgenabled IN ('O', 'A') AND %s = ANY(proconfig) "
            "AND tgrelid = pg_catalog.to_regclass(pg_catalog.format('public.%%I', guard.relation)) "
            "AND pg_proc.proname = guard.function AND pg_proc.pronamespace = 'public'::regnamespace "
            "AND tgtype = guard.events AND (tgqual IS NOT NULL) = guard.has_when AND tginitdeferred = guard.deferred "
            "AND (guard.function <> %s OR tgargs = pg_catalog.convert_to(pg_catalog.pg_get_serial_sequence("
            "pg_catalog.format('public.%%I', guard.relation), 'id'), 'UTF8') || '\\x00'::bytea)",
            [list(LEDGER_GUARDS), tables, functions, events, whens, deferred, GUARD_SEARCH_PATH, IDENTITY_GUARD],
        )
        installed = {name for (name,) in cursor.fetchall()}
    return [name for name in LEDGER_GUARDS if name not in installed]


def _beyond_a_cent(name: str) -> Q:
    """The difference ``name`` is further from zero than rounding explains."""
    return Q(**{f"{name}__gt": HALF_CENT}) | Q(**{f"{name}__lt": -HALF_CENT})


@dataclass(frozen=True)
class SettlementCheck:
    coups: dict[str, int]  # coups by state
    bets: dict[str, int]  # bets by state
    problems: list[str]


def settlement_check(*, finished: bool = True) -> SettlementCheck:
    """After faults: each coup's cards dealt once and in order, each bet closed once by its coup's one
    settlement or refund, each wallet = deposits - withdrawals - stakes + returns, each table's bets in
    play = its accepted stakes, each coup's running stake totals = its bets not cancelled, each corrected
    coup's bets returning what its corrected result pays and the players' debt account = what they owe. ``finished``:
    every coup must also be settled or void (none left open or awaiting settlement)."""
    coups = dict(Coup.objects.values_list("state").annotate(n=Count("pk")).order_by())
    problems = []
    if finished and set(coups) - {Coup.State.SETTLED, Coup.State.VOID}:
        problems.append(f"coups neither settled nor void: {coups}")
    problems += _card_problems() + _bet_problems() + _wallet_problems() + _bets_in_play_problems()
    problems += _stake_total_problems() + _correction_problems() + _chip_problems()
    bets = dict(Bet.objects.values_list("state").annotate(n=Count("pk")).order_by())
    return SettlementCheck(coups=coups, bets=bets, problems=problems)


def _card_problems() -> list[str]:
    coups = DealtCard.objects.values("coup_id").annotate(n=Count("pk"), top=Max("position"), low=Min("position"))
    twice = DealtCard.objects.values("shoe_id", "shoe_position").annotate(n=Count("pk")).filter(n__gt=1)
    return [f"coup {row['coup_id']}: cards out of order" for row in coups.exclude(low=0, top=F("n") - 1)] + [
        f"shoe {row['shoe_id']}: card {row['shoe_position']} dealt {row['n']} times" for row in twice
    ]


_CLOSED_BY = {Bet.State.SETTLED: LedgerTransaction.Kind.SETTLEMENT, Bet.State.REFUNDED: LedgerTransaction.Kind.REFUND}


def _bet_problems() -> list[str]:
    closing = LedgerTransaction.objects.filter(kind__in=_CLOSED_BY.values())
    repeated = closing.values("coup_id", "currency").annotate(n=Count("pk")).filter(n__gt=1)
    problems = [
        f"coup {row['coup_id']}: {row['n']} settlement/refund transactions in {row['currency']}" for row in repeated
    ]
    for bet in Bet.objects.exclude(state=Bet.State.CANCELLED).select_related(
        "coup", "stake_account", "settlement__transaction"
    ):
        settlement = getattr(bet, "settlement", None)
        if bet.state == Bet.State.ACCEPTED:
            if bet.coup.state in (Coup.State.SETTLED, Coup.State.VOID):
                problems.append(f"bet {bet.pk}: still open on a {bet.coup.state} coup")
        elif settlement is None or settlement.transaction.kind != _CLOSED_BY[bet.state]:
            problems.append(f"bet {bet.pk}: {bet.state} without its {_CLOSED_BY[bet.state]}")
        elif settlement.transaction.coup_id != bet.coup_id:
            problems.append(f"bet {bet.pk}: closed by another coup's transaction")
        elif settlement.transaction.currency != bet.stake_account.currency:
            problems.append(f"bet {bet.pk}: closed in {settlement.transaction.currency}, staked in another currency")
    return problems


def _wallet_problems() -> list[str]:
    """Each wallet from the money it received and the bets' own records, not from its ledger legs: the bets it
    staked (a partner's seamless wallet's bets are staked from the partner's float, never the player's wallet)."""
    transfers = LedgerTransaction.Kind.DEPOSIT, LedgerTransaction.Kind.WITHDRAWAL
    expected: dict[int, Decimal] = defaultdict(lambda: ZERO)
    entries = LedgerEntry.objects.filter(transaction__kind__in=transfers, account__kind=Account.Kind.PLAYER)
    for user_id, amount in entries.values_list("account__user_id").annotate(total=Sum("amount")).order_by():
        expected[user_id] += amount
    own = Bet.objects.filter(stake_account__kind=Account.Kind.PLAYER)
    staked = own.exclude(state=Bet.State.CANCELLED).values_list("user_id").annotate(total=Sum("stake"))
    for user_id, amount in staked.order_by():
        expected[user_id] -= amount
    returned = (
        BetSettlement.objects.filter(bet__stake_account__kind=Account.Kind.PLAYER)
        .values_list("bet__user_id")
        .annotate(total=Sum("returned"))
        .order_by()
    )
    for user_id, amount in returned:
        expected[user_id] += amount
    adjusted = (
        BetAdjustment.objects.filter(bet__stake_account__kind=Account.Kind.PLAYER)
        .values_list("bet__user_id")
        .annotate(total=Sum(F("returned_after") - F("returned_before")))
    )
    owed = PlayerAdjustment.objects.values_list("user_id").annotate(total=Sum("owed_change"))
    for user_id, amount in [*adjusted.order_by(), *owed.order_by()]:
        expected[user_id] += amount
    wallets = Account.objects.filter(kind=Account.Kind.PLAYER).values_list("user_id", "balance")
    return [
        f"wallet of user {user_id}: {balance}, expected {money(expected[user_id])}"
        for user_id, balance in wallets
        if abs(balance - expected[user_id]) > HALF_CENT
    ]


def _bets_in_play_problems() -> list[str]:
    """Each table's bets-in-play accounts in a currency (its shards) hold exactly the table's accepted stakes in it,
    and a private coup's shard (1 and up) nothing."""
    accounts = Account.objects.filter(kind=Account.Kind.BETS_IN_PLAY).values_list("table_id", "currency")
    in_play = {
        (table, currency): money(balance) for table, currency, balance in accounts.annotate(Sum("balance")).order_by()
    }
    accepted = Bet.objects.filter(state=Bet.State.ACCEPTED).values_list("coup__table_id", "stake_account__currency")
    staked = {
        (table_id, currency): money(total) for table_id, currency, total in accepted.annotate(Sum("stake")).order_by()
    }
    # A private coup is placed, dealt and settled in one transaction: its shard holds nothing once committed.
    private = Account.objects.filter(kind=Account.Kind.BETS_IN_PLAY, shard__gt=0).exclude(balance=0)
    return [
        f"table {table_id} {currency}: bets in play {in_play.get((table_id, currency), ZERO)}, "
        f"accepted stakes {staked.get((table_id, currency), ZERO)}"
        for table_id, currency in sorted(in_play.keys() | staked.keys(), key=str)
        if in_play.get((table_id, currency), ZERO) != staked.get((table_id, currency), ZERO)
    ] + [
        f"table {table_id} {currency}: bets in play of shard {shard} {money(balance)}, a private coup's holds nothing"
        for table_id, currency, shard, balance in private.values_list("table_id", "currency", "shard", "balance")
    ]


def _correction_problems() -> list[str]:
    """After result corrections: each settled bet of a corrected coup returns (its latest adjustment, else its
    settlement) what the corrected result pays; each player's adjustment is the sum of their bets'; nobody owes
    a negative amount; the players' debt account holds minus what they owe."""
    problems = []
    corrected = Coup.objects.filter(corrected_at__isnull=False, state=Coup.State.SETTLED)
    for coup in corrected:
        result, paytables = coup.result(), coup_rules(coup=coup).table.paytables()
        latest = {each.bet_id: each for each in BetAdjustment.objects.filter(bet__coup=coup).order_by("pk")}
        for bet in coup.bets.filter(state=Bet.State.SETTLED).select_related("settlement"):
            returned = latest[bet.pk].returned_after if bet.pk in latest else bet.settlement.returned
            expected = bet_paid(paytables[bet.bet_type], bet.stake, result)[1]
            if money(returned) != expected:
                problems.append(f"bet {bet.pk}: returns {money(returned)}, its corrected result pays {expected}")
    by_bets = BetAdjustment.objects.values_list("correction_id", "bet__user_id").annotate(
        total=Sum(F("returned_after") - F("returned_before"))
    )
    bets_total = {(correction, user): money(total) for correction, user, total in by_bets.order_by()}
    for each in PlayerAdjustment.objects.all():
        if bets_total.get((each.correction_id, each.user_id), ZERO) != money(each.adjustment):
            problems.append(f"player adjustment {each.pk}: {each.adjustment}, its bets' adjustments differ")
    owed = dict(PlayerAdjustment.objects.values_list("user_id").annotate(total=Sum("owed_change")).order_by())
    problems += [f"user {user_id} owes {money(total)}" for user_id, total in owed.items() if money(total) < 0]
    owed_by_currency = PlayerAdjustment.objects.values_list("transaction__currency").annotate(Sum("owed_change"))
    owed_in = {currency: money(total) for currency, total in owed_by_currency.order_by()}
    debts = dict(Account.objects.filter(kind=Account.Kind.PLAYER_DEBT).values_list("currency", "balance"))
    for currency in sorted(owed_in.keys() | debts.keys()):
        if money(debts.get(currency)) != -owed_in.get(currency, ZERO):
            problems.append(
                f"players' debt account {money(debts.get(currency))} {currency}, "
                f"players owe {owed_in.get(currency, ZERO)} {currency}"
            )
    return problems


def _stake_total_problems() -> list[str]:
    """Each coup's running totals (``CoupStakeTotal``) are its stakes placed and not cancelled, per bet type
    and currency, and their bettors the players and seat sessions those stakes are of."""
    standing = Bet.objects.exclude(state=Bet.State.CANCELLED).values_list(
        "coup_id", "bet_type", "stake_account__currency"
    )
    counted = standing.annotate(Sum("stake"), Count("user", distinct=True), Count("seat_session", distinct=True))
    expected = {key[:3]: (money(key[3]), key[4] + key[5]) for key in counted.order_by()}
    kept = {
        key[:3]: (money(key[3]), key[4])
        for key in CoupStakeTotal.objects.values_list("coup_id", "bet_type", "currency", "total", "bettors")
    }
    none = (ZERO, 0)
    wrong = sorted(key for key in expected.keys() | kept.keys() if kept.get(key, none) != expected.get(key, none))
    return [
        f"coup {key[0]} {key[1]} {key[2]}: running total {kept.get(key, none)[0]} of "
        f"{kept.get(key, none)[1]} bettors, stakes standing {expected.get(key, none)[0]} of "
        f"{expected.get(key, none)[1]} bettors"
        for key in wrong
    ]


def _chip_problems() -> list[str]:
    """Seated play, from the bets' and chip movements' own records, per table and currency: the patrons' chips
    account holds what the seated bets returned (adjustments included) minus what they staked; the chip tray
    what the closed ones staked minus what they returned (the stakes still in play are in neither), plus its
    fills, minus its credits and the chips it sold; the drop box the cash of those sales."""
    seated = Bet.objects.filter(seat_session__isnull=False).exclude(state=Bet.State.CANCELLED)
    keys = ("coup__table_id", "stake_account__currency")
    by_bet = (f"bet__{key}" for key in keys)
    patrons: dict[tuple[int, str], Decimal] = defaultdict(lambda: ZERO)
    tray: dict[tuple[int, str], Decimal] = defaultdict(lambda: ZERO)
    for table_id, currency, total in seated.values_list(*keys).annotate(total=Sum("stake")).order_by():
        patrons[table_id, currency] -= total
    closed = seated.exclude(state=Bet.State.ACCEPTED).values_list(*keys).annotate(total=Sum("stake")).order_by()
    for table_id, currency, total in closed:
        tray[table_id, currency] += total
    returned = BetSettlement.objects.filter(bet__in=seated).values_list(*by_bet).annotate(total=Sum("returned"))
    adjusted = BetAdjustment.objects.filter(bet__in=seated).values_list(*(f"bet__{key}" for key in keys))
    adjusted = adjusted.annotate(total=Sum(F("returned_after") - F("returned_before")))
    for table_id, currency, total in [*returned.order_by(), *adjusted.order_by()]:
        patrons[table_id, currency] += total
        tray[table_id, currency] -= total
    drop: dict[tuple[int, str], Decimal] = defaultdict(lambda: ZERO)
    moved = ChipMovement.objects.values_list("table_id", "currency", "kind").annotate(total=Sum("amount"))
    for table_id, currency, kind, total in moved.order_by():
        tray[table_id, currency] += total if kind == ChipMovement.Kind.FILL else -total
        if kind == ChipMovement.Kind.BUY_IN:
            drop[table_id, currency] += total
    problems = []
    for kind, expected in (
        (Account.Kind.PATRON_CHIPS, patrons),
        (Account.Kind.CHIP_TRAY, tray),
        (Account.Kind.DROP_BOX, drop),
    ):
        accounts = Account.objects.filter(kind=kind).values_list("table_id", "currency", "balance")
        held = {(table_id, currency): balance for table_id, currency, balance in accounts}
        for key in sorted(held.keys() | expected.keys(), key=str):
            if money(held.get(key)) != money(expected.get(key)):
                problems.append(
                    f"table {key[0]} {key[1]}: {kind} {money(held.get(key))}, expected {money(expected.get(key))}"
                )
    return problems
