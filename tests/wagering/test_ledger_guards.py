"""Tamper evidence on PostgreSQL: the ledger is append-only, balances move only by new legs, and
``ledger_check`` notices a guard that was removed. Raw SQL: what someone with the database's password does."""

from decimal import Decimal as D

import pytest
from django.db import DatabaseError, IntegrityError, connection, transaction

from tests.factories import UserFactory
from tests.wagering.conftest import fund, postgres_only
from wagering.checks import LEDGER_GUARDS, ledger_check
from wagering.models import Account, LedgerEntry, LedgerTransaction
from wagering.selectors import wallet_balance
from wagering.wallets import wallet_withdraw

pytestmark = [postgres_only, pytest.mark.postgres]


def sql(statement: str, params: list | None = None) -> None:
    with connection.cursor() as cursor:
        cursor.execute(statement, params)


def funded_wallet() -> Account:
    user = UserFactory()
    fund(user, "100.00")
    return Account.objects.get(user=user)


@pytest.mark.django_db(transaction=True)  # committed first: TRUNCATE and ALTER refuse a table with checks pending
@pytest.mark.database_owner  # the triggers; the runtime role is refused sooner (tests/kernel/test_database_roles.py)
@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE wagering_ledgerentry SET amount = amount * 10 WHERE account_id = %(wallet)s",
        "UPDATE wagering_ledgerentry SET balance_after = 1000 WHERE account_id = %(wallet)s",
        "DELETE FROM wagering_ledgerentry WHERE account_id = %(wallet)s",
        "TRUNCATE wagering_ledgerentry CASCADE",
        "UPDATE wagering_ledgertransaction SET reason = 'rewritten' WHERE kind = 'deposit'",
        "DELETE FROM wagering_ledgertransaction WHERE kind = 'deposit'",
        "TRUNCATE wagering_ledgertransaction CASCADE",
    ],
)
def test_ledger_rows_are_never_changed_or_removed(statement):
    wallet = funded_wallet()
    legs = list(LedgerEntry.objects.values_list("pk", "amount", "balance_after").order_by("pk"))
    with pytest.raises(DatabaseError, match="the ledger is append-only"), transaction.atomic():
        sql(statement.replace("%(wallet)s", str(wallet.pk)))
    assert list(LedgerEntry.objects.values_list("pk", "amount", "balance_after").order_by("pk")) == legs
    assert LedgerTransaction.objects.get().reason == "test"


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE wagering_account SET balance = balance + 900 WHERE id = %(wallet)s",
        "UPDATE wagering_account SET balance = 0 WHERE id = %(wallet)s",
        "INSERT INTO wagering_account (kind, partner_code, currency, balance, created_at) "
        "VALUES ('house', '', 'EUR', 50, now())",
    ],
)
def test_a_balance_moves_only_by_a_new_leg(statement):
    """Checked at commit (the legs of a transaction may come after its balances); refused whole."""
    wallet = funded_wallet()
    accounts = Account.objects.count()
    with pytest.raises(IntegrityError, match="is not its newest ledger leg's balance_after"), transaction.atomic():
        sql(statement.replace("%(wallet)s", str(wallet.pk)))
    assert (Account.objects.get(pk=wallet.pk).balance, Account.objects.count()) == (D("100.00"), accounts)
    assert ledger_check().ok


@pytest.mark.django_db(transaction=True)
def test_balances_moved_with_their_legs_commit_even_when_the_legs_come_after():
    """What the services do: a placement moves the wallet before writing its leg (one statement), settlement
    writes the legs, then every balance; several transactions of one account in one database transaction."""
    user, other = UserFactory(), UserFactory()
    with transaction.atomic():
        fund(user, "100.00")
        fund(user, "50.00")
        wallet_withdraw(user=user, amount="30", idempotency_key="wd")
        fund(other, "1.00")
    assert wallet_balance(user=user) == D("120.00")
    assert ledger_check().ok


@pytest.mark.django_db
def test_ledger_check_finds_every_guard_on_a_sound_database():
    funded_wallet()
    assert ledger_check().missing_guards == [] and ledger_check().ok


@pytest.mark.django_db(transaction=True)
@pytest.mark.database_owner  # only the owner may drop or disable a trigger
@pytest.mark.parametrize(
    ("statement", "guard"),
    [
        ("DROP TRIGGER {guard} ON wagering_ledgerentry", "wagering_ledgerentry_append_only"),
        ("ALTER TABLE wagering_account DISABLE TRIGGER {guard}", "wagering_account_balance_updated"),
        ("DROP TRIGGER {guard} ON tables_auditlog", "tables_auditlog_no_truncate"),
        ("ALTER TABLE wagering_ledgerentry DISABLE TRIGGER {guard}", "wagering_ledgerentry_balanced"),
        (
            "ALTER FUNCTION wagering_account_balance_follows_ledger() RESET search_path",
            "wagering_account_balance_updated",
        ),
        (  # the id guard told another table's sequence: the legs' ids would go unchecked
            "CREATE OR REPLACE TRIGGER {guard} BEFORE INSERT ON wagering_ledgerentry FOR EACH ROW "
            "EXECUTE FUNCTION wagering_identity_drawn('public.tables_auditlog_id_seq')",
            "wagering_ledgerentry_id_drawn",
        ),
        (  # another guard's function, harmless on this table's updates
            "CREATE OR REPLACE TRIGGER {guard} BEFORE UPDATE OR DELETE ON wagering_ledgerentry FOR EACH ROW "
            "EXECUTE FUNCTION wagering_ledgerroot_insert_checked()",
            "wagering_ledgerentry_append_only",
        ),
        (  # fires only in a replica's sessions: not in the platform's
            "ALTER TABLE wagering_ledgerentry ENABLE REPLICA TRIGGER {guard}",
            "wagering_ledgerentry_append_only",
        ),
        (  # a condition that never holds
            "CREATE OR REPLACE TRIGGER {guard} BEFORE UPDATE OR DELETE ON tables_auditlog FOR EACH ROW "
            "WHEN (false) EXECUTE FUNCTION tables_auditlog_append_only()",
            "tables_auditlog_append_only",
        ),
        (  # on another event: TRUNCATE goes through
            "CREATE OR REPLACE TRIGGER {guard} BEFORE DELETE ON wagering_ledgerentry "
            "FOR EACH STATEMENT EXECUTE FUNCTION wagering_ledger_append_only()",
            "wagering_ledgerentry_no_truncate",
        ),
        (  # dropped, and its name given to a trigger on a table nobody writes
            "DROP TRIGGER {guard} ON wagering_ledgertransaction; CREATE TRIGGER {guard} BEFORE UPDATE OR DELETE "
            "ON wagering_ledgerroot FOR EACH ROW EXECUTE FUNCTION wagering_ledger_append_only()",
            "wagering_ledgertransaction_append_only",
        ),
    ],
)
def test_ledger_check_reports_a_guard_removed_or_disabled(statement, guard):
    funded_wallet()
    assert guard in LEDGER_GUARDS
    with transaction.atomic():  # DDL is transactional on PostgreSQL: rolled back with the savepoint
        for part in statement.split("; "):
            sql(part.format(guard=guard))
        check = ledger_check()
        assert guard in check.missing_guards and not check.ok
        assert check.problems == [
            f"{len(check.missing_guards)} database guards missing, disabled, changed or on the caller's search path: "
            f"{check.missing_guards!r}"
        ]
        transaction.set_rollback(True)
    assert ledger_check().ok
