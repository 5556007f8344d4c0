"""The ledger's guards against a client of the database that is neither its owner nor a superuser: a role
with SELECT, INSERT, UPDATE and DELETE on the tables, as the application's own may be (issue 27). Raw SQL,
in the role, inside one transaction: what someone holding the application's password does."""

import uuid
from decimal import Decimal as D

import pytest
from django.db import IntegrityError, connection, transaction

from tests.factories import CoupFactory, UserFactory
from tests.wagering.conftest import fund, ledger_tampered, postgres_only
from wagering.checks import ledger_check
from wagering.models import Account, LedgerTransaction
from wagering.placement import bet_batch_place

FORGED = D("500000.00")


def sql(statement: str, params: list | None = None) -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(statement, params)
        return cursor.fetchall() if cursor.description else []


@pytest.fixture
def as_application():
    """Statements run as a role that is no superuser (``SET LOCAL ROLE``: for the enclosing transaction): a
    fresh one with SELECT, INSERT, UPDATE and DELETE on every table when the connection may create roles;
    else the role the suite connects as (``.ci/run``): the runtime role, or for the identity updates (which
    its column grants refuse before any trigger) the owner, ``database_owner``, whom triggers bind too."""
    ((may_create_roles,),) = sql("SELECT rolsuper OR rolcreaterole FROM pg_roles WHERE rolname = current_user")
    if not may_create_roles:
        yield lambda: None
        return
    role = f"punto_forger_{uuid.uuid4().hex[:12]}"
    sql(f"CREATE ROLE {role} NOLOGIN NOSUPERUSER")
    sql(f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {role}")
    sql(f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {role}")
    sql(f"GRANT TEMPORARY ON DATABASE {connection.settings_dict['NAME']} TO {role}")  # whatever PUBLIC holds
    yield lambda: sql(f"SET LOCAL ROLE {role}")
    sql(f"DROP OWNED BY {role}")
    sql(f"DROP ROLE {role}")


def wallet_of(amount: str | None = "100.00") -> Account:
    user = UserFactory()
    if amount is not None:
        fund(user, amount)
    return Account.objects.get_or_create(kind=Account.Kind.PLAYER, user=user)[0]


def forged_legs(legs: list[tuple[Account, D]]) -> None:
    """The attack of issue 27: a deposit whose legs (one statement) the trigger is told it already summed,
    each account's balance moved to its new leg's ``balance_after``."""
    ((movement,),) = sql(
        "INSERT INTO wagering_ledgertransaction (kind, currency, reason, created_at) "
        "VALUES ('deposit', 'EUR', 'forged', now()) RETURNING id"
    )
    sql("SELECT set_config('wagering.ledger_summed', %s, true)", [f"{movement}:9223372036854775807"])
    accounts, amounts = [account.pk for account, _ in legs], [amount for _, amount in legs]
    sql(
        "INSERT INTO wagering_ledgerentry (transaction_id, account_id, amount, balance_before, balance_after) "
        "SELECT %s, account.id, leg.amount, account.balance, account.balance + leg.amount "
        "FROM unnest(%s::bigint[], %s::numeric[]) AS leg (account_id, amount) "
        "JOIN wagering_account account ON account.id = leg.account_id",
        [movement, accounts, amounts],
    )
    sql(
        "UPDATE wagering_account account SET balance = balance + leg.amount "
        "FROM unnest(%s::bigint[], %s::numeric[]) AS leg (account_id, amount) WHERE account.id = leg.account_id",
        [accounts, amounts],
    )


@postgres_only
@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("currency", "refusal"), [(None, "is unbalanced: its legs sum to 500000"), ("USD", "legs in another currency")]
)
def test_a_setting_the_client_writes_skips_neither_the_sum_nor_the_currency(as_application, currency, refusal):
    """One leg of +500,000 (no other), or a balanced pair with a leg in a dollar account of a euro deposit."""
    wallet = wallet_of()
    legs = [(wallet, FORGED)]
    if currency:
        legs.append((Account.objects.create(kind=Account.Kind.HOUSE, currency=currency), -FORGED))
    with pytest.raises(IntegrityError, match=refusal), transaction.atomic():
        as_application()
        forged_legs(legs)
    wallet.refresh_from_db()
    assert wallet.balance == D("100.00")
    assert not LedgerTransaction.objects.filter(reason="forged").exists()
    assert ledger_check().ok


@postgres_only
@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.database_owner
def test_a_wallet_never_changes_hands(as_application):
    """Three updates in one transaction (past the one-wallet-per-user key) would give carol alice's wallet."""
    alice, carol, spare = wallet_of(), wallet_of("5.00"), UserFactory()
    with (
        pytest.raises(IntegrityError, match=f"account {carol.pk} keeps its identity"),
        transaction.atomic(),
    ):
        as_application()
        sql("UPDATE wagering_account SET user_id = %s WHERE id = %s", [spare.pk, carol.pk])
        sql("UPDATE wagering_account SET user_id = %s WHERE id = %s", [carol.user_id, alice.pk])
        sql("UPDATE wagering_account SET user_id = %s WHERE id = %s", [alice.user_id, carol.pk])
    owners = dict(Account.objects.filter(pk__in=[alice.pk, carol.pk]).values_list("pk", "user_id"))
    assert owners == {alice.pk: alice.user_id, carol.pk: carol.user_id}
    assert ledger_check().ok


@postgres_only
@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.database_owner
@pytest.mark.parametrize(
    ("change", "refusal"),
    [
        ("kind = 'house', user_id = NULL", "keeps its identity"),
        ("partner_code = 'acme'", "keeps its identity"),
        ("currency = 'USD'", "has ledger legs in EUR: its currency cannot change"),
    ],
)
def test_an_accounts_identity_is_fixed(as_application, change, refusal):
    wallet = wallet_of()
    with pytest.raises(IntegrityError, match=refusal), transaction.atomic():
        as_application()
        sql(f"UPDATE wagering_account SET {change} WHERE id = %s", [wallet.pk])
    assert Account.objects.filter(pk=wallet.pk, kind="player", partner_code="", currency="EUR").exists()


@postgres_only
@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.database_owner
def test_a_table_account_stays_at_its_table_and_an_account_without_legs_changes_currency(as_application):
    """A partner's accounts take its new currency before any money moves (``partners.wallet_settings``)."""
    table, other_table = CoupFactory().table, CoupFactory().table
    in_play = Account.objects.create(kind=Account.Kind.BETS_IN_PLAY, table=table)
    refused = [("table_id = %s", [other_table.pk, in_play.pk]), ("shard = 3", [in_play.pk])]
    for change, parameters in refused:  # its shard too: the shard a private coup's money went through
        with pytest.raises(IntegrityError, match="keeps its identity"), transaction.atomic():
            as_application()
            sql(f"UPDATE wagering_account SET {change} WHERE id = %s", parameters)
    with transaction.atomic():
        as_application()
        sql("UPDATE wagering_account SET currency = 'USD' WHERE id = %s", [in_play.pk])
    assert Account.objects.get(pk=in_play.pk).currency == "USD"


@pytest.mark.django_db
@pytest.mark.books_broken_on_purpose
def test_ledger_check_reports_an_account_whose_identity_is_not_its_legs(coup):
    """As only the owner can on PostgreSQL (the triggers off): alice's wallet given to carol, the table's bets
    in play moved to another table, a wallet's currency changed after its legs, and the bets in play of bob's
    table moved to shard 1 (a table's coup posts through shard 0; a private coup through its own)."""
    alice, carol, dollars = UserFactory(), UserFactory(), wallet_of()
    fund(alice, "100.00")
    bet_batch_place(user=alice, coup=coup, bets={"banker": "10"})
    wallet = Account.objects.get(user=alice)
    in_play = Account.objects.get(kind=Account.Kind.BETS_IN_PLAY, table=coup.table)
    other_table = CoupFactory().table
    bob, elsewhere = UserFactory(), CoupFactory()
    fund(bob, "100.00")
    bet_batch_place(user=bob, coup=elsewhere, bets={"player": "10"})
    bobs_in_play = Account.objects.get(kind=Account.Kind.BETS_IN_PLAY, table=elsewhere.table)
    assert ledger_check().ok
    with ledger_tampered():
        Account.objects.filter(pk=wallet.pk).update(user=carol)
        Account.objects.filter(pk=in_play.pk).update(table=other_table)
        Account.objects.filter(pk=dollars.pk).update(currency="USD")
        Account.objects.filter(pk=bobs_in_play.pk).update(shard=1)
    check = ledger_check()
    assert check.changed_accounts == sorted([wallet.pk, in_play.pk, dollars.pk, bobs_in_play.pk])
    assert (check.unbalanced, check.mismatched_accounts, check.stale_accounts) == ([], [], [])


def forged_transactions(count: int, currency: str = "EUR") -> list[int]:
    rows = sql(
        "INSERT INTO public.wagering_ledgertransaction (kind, currency, reason, created_at) "
        "SELECT 'deposit', %s, 'forged', now() FROM generate_series(1, %s) RETURNING id",
        [currency, count],
    )
    return sorted(movement for (movement,) in rows)


def legs_written(legs: list[tuple[int, Account, D, D, D]]) -> None:
    """One INSERT of legs (transaction, account, amount, balance_before, balance_after), in this order; then
    each account's balance set to its last leg's ``balance_after``, as the deferred check wants."""
    columns = list(zip(*[(movement, account.pk, *amounts) for movement, account, *amounts in legs], strict=True))
    sql(
        "INSERT INTO public.wagering_ledgerentry (transaction_id, account_id, amount, balance_before, balance_after) "
        "SELECT * FROM unnest(%s::bigint[], %s::bigint[], %s::numeric[], %s::numeric[], %s::numeric[])",
        [list(column) for column in columns],
    )
    last_after = {account.pk: after for _, account, _, _, after in legs}
    sql(
        "UPDATE public.wagering_account account SET balance = leg.balance FROM unnest(%s::bigint[], %s::numeric[]) "
        "AS leg (account_id, balance) WHERE account.id = leg.account_id",
        [list(last_after), list(last_after.values())],
    )


def house(currency: str = "EUR") -> Account:
    return Account.objects.get_or_create(kind=Account.Kind.HOUSE, currency=currency)[0]


def shadow_legs(wallet: Account) -> None:
    """The review's attack: the statement trigger sums an empty temporary ``wagering_ledgerentry``; the
    deferred one finds there the leg whose ``balance_after`` the forged balance is."""
    sql(
        "CREATE TEMP TABLE wagering_ledgerentry "
        "(id bigint, transaction_id bigint, account_id bigint, amount numeric, balance_after numeric)"
    )
    (movement,) = forged_transactions(1)
    legs_written([(movement, wallet, FORGED, wallet.balance, wallet.balance + FORGED)])
    sql(
        "INSERT INTO pg_temp.wagering_ledgerentry (id, account_id, balance_after) VALUES (1, %s, %s)",
        [wallet.pk, wallet.balance + FORGED],
    )


def shadow_accounts(wallet: Account) -> None:
    """A leg in a dollar account of a euro deposit: a temporary ``wagering_account`` says both are in euros,
    with the balances the deferred check reads."""
    dollars = house("USD")
    sql("CREATE TEMP TABLE wagering_account (id bigint, currency varchar, balance numeric)")
    (movement,) = forged_transactions(1)
    legs_written(
        [
            (movement, wallet, FORGED, wallet.balance, wallet.balance + FORGED),
            (movement, dollars, -FORGED, dollars.balance, dollars.balance - FORGED),
        ]
    )
    sql(
        "INSERT INTO pg_temp.wagering_account VALUES (%s, 'EUR', %s), (%s, 'EUR', %s)",
        [wallet.pk, wallet.balance + FORGED, dollars.pk, dollars.balance - FORGED],
    )


def shadow_transactions(wallet: Account) -> None:
    """A dollar deposit moving euro accounts: a temporary ``wagering_ledgertransaction`` says it is in euros."""
    euros = house()
    sql("CREATE TEMP TABLE wagering_ledgertransaction (id bigint, currency varchar)")
    (movement,) = forged_transactions(1, "USD")
    sql("INSERT INTO pg_temp.wagering_ledgertransaction VALUES (%s, 'EUR')", [movement])
    legs_written(
        [
            (movement, wallet, FORGED, wallet.balance, wallet.balance + FORGED),
            (movement, euros, -FORGED, euros.balance, euros.balance - FORGED),
        ]
    )


def shadow_legs_of_an_account(wallet: Account) -> None:
    """The identity trigger finds no leg in an empty temporary ``wagering_ledgerentry``: the currency changes."""
    sql("CREATE TEMP TABLE wagering_ledgerentry (id bigint, account_id bigint)")
    sql("UPDATE public.wagering_account SET currency = 'USD' WHERE id = %s", [wallet.pk])


@postgres_only
@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.database_owner  # may create TEMP tables (the runtime role may not); triggers bind the owner too
@pytest.mark.parametrize(
    ("attack", "refusal"),
    [
        (shadow_legs, "is unbalanced: its legs sum to 500000"),
        (shadow_accounts, "has 1 legs in another currency"),
        (shadow_transactions, "has 2 legs in another currency"),
        (shadow_legs_of_an_account, "has ledger legs in EUR: its currency cannot change"),
    ],
)
def test_temporary_tables_do_not_shadow_the_ones_the_guards_read(as_application, attack, refusal):
    """A session's temporary tables come first on its search path: the guards read the tables in public."""
    wallet = wallet_of()
    with pytest.raises(IntegrityError, match=refusal), transaction.atomic():
        as_application()
        attack(wallet)
    wallet.refresh_from_db()
    assert (wallet.balance, wallet.currency) == (D("100.00"), "EUR")
    assert not LedgerTransaction.objects.filter(reason="forged").exists()


MILLION = D("1000000.00")


def forged_balance_after(wallet: Account, other: Account) -> list:
    """A balanced pair, +1 to the wallet and -1 to the house, whose wallet leg says a million more."""
    (movement,) = forged_transactions(1)
    return [
        (movement, wallet, D(1), wallet.balance, wallet.balance + MILLION),
        (movement, other, D(-1), other.balance, other.balance - 1),
    ]


def forged_balance_before(wallet: Account, other: Account) -> list:
    """The same pair, the wallet's leg adding up, from a balance_before a million above its previous leg's."""
    (movement,) = forged_transactions(1)
    return [
        (movement, wallet, D(1), wallet.balance + MILLION, wallet.balance + MILLION + 1),
        (movement, other, D(-1), other.balance, other.balance - 1),
    ]


def forged_chain_in_one_statement(wallet: Account, other: Account) -> list:
    """Two bets of 50 in one statement, the second's leg starting again from the balance before the first."""
    first, second = forged_transactions(2)
    stake = D(50)
    return [
        (first, wallet, -stake, wallet.balance, wallet.balance - stake),
        (first, other, stake, other.balance, other.balance + stake),
        (second, wallet, -stake, wallet.balance, wallet.balance - stake),
        (second, other, stake, other.balance + stake, other.balance + 2 * stake),
    ]


@postgres_only
@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("legs_of", "refusal"),
    [
        (forged_balance_after, r"its balance_after 1000100.00 is not its balance_before plus its amount, 101.00"),
        (forged_balance_before, r"its balance_before 1000100.00 is not the account's previous balance_after 100.00"),
        (forged_chain_in_one_statement, r"its balance_before 100.00 is not the account's previous balance_after 50.00"),
    ],
)
def test_a_legs_balance_follows_its_accounts_previous_leg(as_application, legs_of, refusal):
    """The client writes ``balance_after``, and the balance follows the newest leg's: the statement trigger
    checks each new leg against its account's previous one, in the table or in the same statement."""
    wallet = wallet_of()
    other = house()
    with pytest.raises(IntegrityError, match=refusal), transaction.atomic():
        as_application()
        legs_written(legs_of(wallet, other))
    wallet.refresh_from_db()
    assert wallet.balance == D("100.00")
    assert not LedgerTransaction.objects.filter(reason="forged").exists()
