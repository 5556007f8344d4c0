"""Wallets and the double-entry ledger: deposits, withdrawals, idempotency keys, the database's guards."""

from decimal import Decimal

import pytest
from django.db import DatabaseError, IntegrityError, connection, transaction

from tables.models import AuditLog
from tests.factories import UserFactory
from tests.wagering.conftest import ledger_tampered, postgres_only
from wagering.checks import ledger_check
from wagering.errors import IdempotencyConflict, WalletRejected
from wagering.models import Account, IdempotencyKey, LedgerEntry, LedgerTransaction
from wagering.selectors import wallet_balance
from wagering.wallets import wallet_deposit, wallet_withdraw

D = Decimal


@pytest.fixture
def user(db):
    return UserFactory()


def test_a_deposit_credits_the_wallet_from_the_operator_float(user, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        entry = wallet_deposit(user=user, amount=D("250.50"), idempotency_key="dep-1", reason="cash")
    assert wallet_balance(user=user) == D("250.50")
    legs = {leg.account.kind: leg for leg in entry.entries.select_related("account")}
    assert legs["player"].amount == D("250.50") and legs["partner_float"].amount == D("-250.50")
    assert (legs["player"].balance_before, legs["player"].balance_after) == (D("0.00"), D("250.50"))
    assert entry.kind == LedgerTransaction.Kind.DEPOSIT
    assert AuditLog.objects.filter(action="wallet_deposit", object_id=str(user.wallet.pk)).exists()
    assert len(callbacks) == 1  # the new balance, pushed to the player once committed
    assert ledger_check().ok


def test_the_same_key_twice_moves_money_once_and_returns_the_same_transaction(user):
    first = wallet_deposit(user=user, amount="100", idempotency_key="dep-1")
    again = wallet_deposit(user=user, amount=D("100.00"), idempotency_key="dep-1")
    assert again.pk == first.pk
    assert wallet_balance(user=user) == D("100.00")
    assert LedgerTransaction.objects.count() == 1
    first_withdrawal = wallet_withdraw(user=user, amount="30", idempotency_key="wd-1")
    assert wallet_withdraw(user=user, amount="30", idempotency_key="wd-1").pk == first_withdrawal.pk
    assert wallet_balance(user=user) == D("70.00")


@pytest.mark.parametrize(
    "second",
    [
        {"amount": "100.01"},
        {"operation": "withdraw"},
        {"other_user": True},
    ],
)
def test_the_same_key_with_other_parameters_is_a_conflict(user, second):
    wallet_deposit(user=user, amount="100", idempotency_key="key-1")
    move = wallet_withdraw if second.get("operation") == "withdraw" else wallet_deposit
    target = UserFactory() if second.get("other_user") else user
    with pytest.raises(IdempotencyConflict) as error:
        move(user=target, amount=second.get("amount", "100"), idempotency_key="key-1")
    assert error.value.code == "idempotency_conflict"
    assert "key-1" in error.value.message and error.value.details["first_amount"] == "100.00"
    assert wallet_balance(user=user) == D("100.00") and LedgerTransaction.objects.count() == 1


def test_a_refused_request_leaves_its_key_free_for_a_retry(user):
    wallet_deposit(user=user, amount="20", idempotency_key="dep")
    with pytest.raises(WalletRejected) as error:
        wallet_withdraw(user=user, amount="50", idempotency_key="wd")
    assert error.value.code == "insufficient_funds"
    assert error.value.details == {"balance": "20.00", "amount": "50.00", "short_by": "30.00"}
    assert "short by 30.00" in error.value.message
    assert not IdempotencyKey.objects.filter(key="wd").exists()
    wallet_deposit(user=user, amount="30", idempotency_key="dep-2")
    wallet_withdraw(user=user, amount="50", idempotency_key="wd")
    assert wallet_balance(user=user) == D("0.00")


def test_withdrawing_from_a_player_without_a_wallet_is_refused(user):
    with pytest.raises(WalletRejected) as error:
        wallet_withdraw(user=user, amount="1", idempotency_key="wd")
    assert error.value.code == "insufficient_funds"


@pytest.mark.parametrize(
    "amount",
    [0, -5, "0.00", "-1", "1.001", 1.5, float("nan"), "NaN", "Infinity", "abc", "", None, True, D("1E+13"), [1]],
)
def test_amounts_must_be_positive_with_two_decimals_and_finite(user, amount):
    with pytest.raises(WalletRejected) as error:
        wallet_deposit(user=user, amount=amount, idempotency_key="dep")
    assert error.value.code == "invalid_amount"
    assert not LedgerTransaction.objects.exists() and not IdempotencyKey.objects.exists()


@pytest.mark.parametrize("key", ["", "k" * 101, None])
def test_an_idempotency_key_is_required(user, key):
    with pytest.raises(WalletRejected) as error:
        wallet_deposit(user=user, amount="1", idempotency_key=key)
    assert error.value.code == "invalid_idempotency_key"


@pytest.mark.books_broken_on_purpose
def test_the_database_refuses_a_negative_wallet_but_not_a_negative_house(user):
    wallet_deposit(user=user, amount="10", idempotency_key="dep")
    with pytest.raises(IntegrityError), transaction.atomic():
        Account.objects.filter(pk=user.wallet.pk).update(balance=D("-0.01"))
    house = Account.objects.create(kind=Account.Kind.HOUSE)
    with ledger_tampered():  # a balance without a leg: only the check constraint is asked here
        Account.objects.filter(pk=house.pk).update(balance=D("-1000.00"))


@pytest.mark.database_owner  # the unbalanced leg goes past the trigger, as only the owner can
def test_ledger_check_finds_an_unbalanced_transaction_and_a_drifted_balance(user):
    wallet_deposit(user=user, amount="10", idempotency_key="dep")
    assert ledger_check().ok
    # Written as only a superuser can on PostgreSQL (the ledger trigger refuses the leg), and rolled back.
    with transaction.atomic():
        broken = LedgerTransaction.objects.create(kind=LedgerTransaction.Kind.DEPOSIT)
        with ledger_tampered():
            LedgerEntry.objects.create(
                transaction=broken, account=user.wallet, amount=D("5.00"), balance_before=D(10), balance_after=D(15)
            )
            Account.objects.filter(pk=user.wallet.pk).update(balance=D("15.00"))
        check = ledger_check()
        assert check.unbalanced == [broken.pk]
        assert check.transactions == 2 and check.entries == 3
        Account.objects.filter(pk=user.wallet.pk).update(balance=D("15.01"))
        assert ledger_check().mismatched_accounts == [user.wallet.pk]
        transaction.set_rollback(True)
    assert ledger_check().ok


@pytest.mark.books_broken_on_purpose
def test_ledger_check_finds_an_entry_off_its_accounts_chain_and_a_stale_balance(user):
    wallet_deposit(user=user, amount="10", idempotency_key="dep-1")
    wallet_deposit(user=user, amount="5", idempotency_key="dep-2")
    second = LedgerEntry.objects.filter(account=user.wallet).latest("pk")
    with ledger_tampered():  # amounts untouched: the transactions still balance
        LedgerEntry.objects.filter(pk=second.pk).update(balance_before=D("11.00"), balance_after=D("16.00"))
    check = ledger_check()
    assert (check.broken_chains, check.stale_accounts) == ([second.pk], [user.wallet.pk])
    assert (check.unbalanced, check.mismatched_accounts, check.ok) == ([], [], False)
    assert check.problems == [
        f"1 accounts whose balance is not their last entry's balance_after: [{user.wallet.pk}]",
        f"1 entries that do not follow their account's previous entry: [{second.pk}]",
    ]


@pytest.mark.books_broken_on_purpose
def test_ledger_check_finds_an_entry_whose_balance_after_is_not_before_plus_amount(user):
    wallet_deposit(user=user, amount="10", idempotency_key="dep-1")
    wallet_deposit(user=user, amount="5", idempotency_key="dep-2")
    first, second = LedgerEntry.objects.filter(account=user.wallet).order_by("pk")
    with ledger_tampered():
        LedgerEntry.objects.filter(pk=first.pk).update(balance_after=D("11.00"))
    check = ledger_check()
    assert check.broken_chains == [first.pk, second.pk]  # the first's own sum, and the second no longer follows it
    assert (check.stale_accounts, check.ok) == ([], False)


@postgres_only
@pytest.mark.django_db(transaction=True)
@pytest.mark.books_broken_on_purpose  # legs written by hand to test the trigger
def test_postgresql_refuses_a_statement_that_leaves_a_transaction_unbalanced():
    """Each statement that writes legs must leave their transactions balanced (checked as it ends, not at
    commit): every writer puts a transaction's legs in one statement."""
    user = UserFactory()
    wallet_deposit(user=user, amount="10", idempotency_key="dep")
    wallet = Account.objects.get(user=user)
    with pytest.raises(IntegrityError, match="unbalanced"), transaction.atomic():
        entry = LedgerTransaction.objects.create(kind=LedgerTransaction.Kind.DEPOSIT)
        LedgerEntry.objects.create(
            transaction=entry, account=wallet, amount=D("5.00"), balance_before=D(10), balance_after=D(15)
        )
    assert LedgerTransaction.objects.count() == 1
    house = Account.objects.create(kind=Account.Kind.HOUSE)

    def legs(entry):
        return [
            LedgerEntry(transaction=entry, account=wallet, amount=D(5), balance_before=D(10), balance_after=D(15)),
            LedgerEntry(transaction=entry, account=house, amount=D(-5), balance_before=D(0), balance_after=D(-5)),
        ]

    with pytest.raises(IntegrityError, match="unbalanced"), transaction.atomic():  # balanced only at the end
        entry = LedgerTransaction.objects.create(kind=LedgerTransaction.Kind.DEPOSIT)
        for leg in legs(entry):
            leg.save()
    with transaction.atomic():  # the same legs in one statement
        entry = LedgerTransaction.objects.create(kind=LedgerTransaction.Kind.DEPOSIT)
        LedgerEntry.objects.bulk_create(legs(entry))
    # Nor may a committed leg be changed afterwards.
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
        LedgerEntry.objects.filter(account=house).update(amount=D("-4.00"))
    with connection.cursor() as cursor:
        cursor.execute("SELECT SUM(amount) FROM wagering_ledgerentry")
        assert cursor.fetchone()[0] == 0


@postgres_only
@pytest.mark.django_db(transaction=True)
@pytest.mark.books_broken_on_purpose  # legs written by hand to test the trigger
def test_postgresql_sums_each_new_leg_even_after_checking_its_transaction_once():
    """The trigger sums all the legs of each transaction a statement writes to: a leg added after its
    transaction was found balanced is summed with the legs before it."""
    users = UserFactory.create_batch(3)
    house = Account.objects.create(kind=Account.Kind.HOUSE)
    wallets = [Account.objects.create(kind=Account.Kind.PLAYER, user=user) for user in users]

    def leg(entry, account, amount):  # each account's first leg, chained from 0 (wagering/0021)
        return LedgerEntry(transaction=entry, account=account, amount=D(amount), balance_before=0, balance_after=amount)

    with pytest.raises(IntegrityError, match="unbalanced"), transaction.atomic():
        entry = LedgerTransaction.objects.create(kind=LedgerTransaction.Kind.DEPOSIT)
        LedgerEntry.objects.bulk_create(
            [leg(entry, wallet, "1.00") for wallet in wallets[:2]] + [leg(entry, house, "-2")]
        )
        LedgerEntry.objects.create(
            transaction=entry, account=wallets[2], amount=D("1.00"), balance_before=0, balance_after=D("1.00")
        )
    with transaction.atomic():  # many legs in one statement, balanced: committed
        entry = LedgerTransaction.objects.create(kind=LedgerTransaction.Kind.DEPOSIT)
        LedgerEntry.objects.bulk_create([leg(entry, wallet, "1.00") for wallet in wallets] + [leg(entry, house, "-3")])
    assert LedgerEntry.objects.count() == 4
