"""Players of partners in other currencies at our tables: each currency has its own limits, differential,
bets in play, house account, settlement transaction and report; no amount is ever added to another
currency's. The books are checked after every test (``books_balanced``)."""

from __future__ import annotations

import uuid
from datetime import timedelta
from decimal import Decimal

import pytest
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from casino.lifecycle import coup_void
from casino.lifecycle.settlement import coup_settle
from partners.identifiers import PartnerRejected
from partners.wallet_settings import partner_wallet_set
from tables.limit_sets import bet_limit_set, limit_set_create
from tests.factories import CoupFactory, TableFactory, UserFactory, coup_deal_and_resolve
from tests.partners.conftest import client_for, idempotency_key, partner_make, player_make
from wagering.checks import ledger_check, settlement_check
from wagering.errors import BetRejected
from wagering.ledger import rows_insert
from wagering.models import Account, Bet, CoupStakeTotal, LedgerEntry, LedgerTransaction
from wagering.placement import bet_batch_place
from wagering.reports import table_day_report_build
from wagering.selectors import wallet_balance
from wagering.wallets import wallet_deposit

D = Decimal
BANKER_WINS = "2S 9H KD TC"  # Player 2, Banker 9


@pytest.fixture(autouse=True)
def books_balanced(db):
    yield
    ledger = ledger_check()
    assert ledger.ok, ledger.problems
    assert settlement_check(finished=False).problems == []


@pytest.fixture
def dollar_partner():
    return partner_wallet_set(partner=partner_make("yankee"), mode="transfer", currency="USD")


@pytest.fixture
def two_currency_table():
    """Limits in EUR (the house's, by default) and in USD: a tighter differential and Player/Banker maximum."""
    table = TableFactory(code="fx1")
    limit_set_create(table=table, actor=None, currency="USD", max_differential="300")
    for bet_type in ("player", "banker"):
        bet_limit_set(table=table, actor=None, currency="USD", bet_type=bet_type, minimum="2", maximum="200")
    return table


def euro_player(amount="5000.00"):
    user = UserFactory()
    wallet_deposit(user=user, amount=D(amount), idempotency_key=uuid.uuid4().hex)
    return user


def test_each_currency_keeps_its_own_limits_differential_and_books(dollar_partner, two_currency_table):
    coup = CoupFactory(table=two_currency_table)
    euro = euro_player()
    dollars = player_make(dollar_partner, "d-1", "1000.00")
    assert Account.objects.get(user=dollars.user).currency == "USD"
    bet_batch_place(user=euro, coup=coup, bets={"banker": "900"})  # within EUR's differential of 5000
    placed = bet_batch_place(user=dollars.user, coup=coup, bets={"banker": "150"})
    assert (placed.currency, placed.balance) == ("USD", D("850.00"))

    # USD's limits and differential are USD's own: 900 EUR on Banker neither counts nor helps.
    with pytest.raises(BetRejected) as over_maximum:
        bet_batch_place(user=player_make(dollar_partner, "d-2", "1000.00").user, coup=coup, bets={"player": "250"})
    assert (over_maximum.value.code, over_maximum.value.details["maximum"]) == ("above_maximum", "200.00")
    with pytest.raises(BetRejected) as over_differential:
        bet_batch_place(user=player_make(dollar_partner, "d-3", "1000.00").user, coup=coup, bets={"banker": "200"})
    assert over_differential.value.code == "max_differential"
    assert over_differential.value.details | {"over_by": "50.00", "currency": "USD", "max_differential": "300.00"} == (
        over_differential.value.details
    )
    totals = set(CoupStakeTotal.objects.filter(coup=coup).values_list("bet_type", "currency", "total"))
    assert totals == {("banker", "EUR", D("900.00")), ("banker", "USD", D("150.00"))}
    in_play = Account.objects.filter(kind=Account.Kind.BETS_IN_PLAY, table=two_currency_table)
    assert set(in_play.values_list("currency", "balance")) == {("EUR", D("900.00")), ("USD", D("150.00"))}

    coup_deal_and_resolve(coup, BANKER_WINS)
    transactions = coup_settle(coup_id=coup.pk)
    assert sorted(each.currency for each in transactions) == ["EUR", "USD"]
    for each in transactions:  # every leg in the transaction's currency, summing to zero
        legs = LedgerEntry.objects.filter(transaction=each).select_related("account")
        assert {leg.account.currency for leg in legs} == {each.currency}
        assert sum(leg.amount for leg in legs) == 0
    assert wallet_balance(user=dollars.user) == D("1142.50")  # 850 + 150 x 1.95
    assert wallet_balance(user=euro) == D("5855.00")  # 4100 + 900 x 1.95
    houses = Account.objects.filter(kind=Account.Kind.HOUSE)
    assert set(houses.values_list("currency", "balance")) == {("EUR", D("-855.00")), ("USD", D("-142.50"))}

    reports = {
        report.currency: report for report in table_day_report_build(table_id=coup.table_id, day=timezone.now().date())
    }
    assert {currency: (report.staked, report.house_win) for currency, report in reports.items()} == {
        "EUR": (D("900.00"), D("-855.00")),
        "USD": (D("150.00"), D("-142.50")),
    }


def test_a_table_without_limits_in_a_currency_takes_no_bets_in_it(dollar_partner):
    coup = CoupFactory(table=TableFactory(code="eur1"))
    dollars = player_make(dollar_partner, "d-1", "100.00")
    with pytest.raises(BetRejected) as refused:
        bet_batch_place(user=dollars.user, coup=coup, bets={"banker": "10"})
    assert (refused.value.code, refused.value.details) == (
        "currency_not_offered",
        {"currency": "USD", "offered": "EUR"},
    )
    assert wallet_balance(user=dollars.user) == D("100.00") and not Bet.objects.exists()


def test_the_partner_api_bets_and_lists_tables_in_the_partners_currency(dollar_partner, two_currency_table):
    api = client_for(dollar_partner)
    open_window = timezone.now() + timedelta(minutes=5)
    CoupFactory(table=TableFactory(code="eur1"), betting_closes_at=open_window)
    coup = CoupFactory(table=two_currency_table, betting_closes_at=timezone.now() + timedelta(minutes=5))
    player_make(dollar_partner, "d-1", "500.00")
    tables = {table["code"]: table for table in api.get("/api/v1/tables/").json()["results"]}
    usd, eur_only = tables["fx1"], tables["eur1"]
    assert (usd["currency"], usd["currencies"], usd["rules"]["max_differential"]) == ("USD", ["EUR", "USD"], "300.00")
    assert {limit["bet_type"]: limit["maximum"] for limit in usd["limits"]}["banker"] == "200.00"
    assert (eur_only["currencies"], eur_only["limits"], eur_only["rules"]["max_differential"]) == (["EUR"], [], None)

    url = "/api/v1/players/d-1/bets/"
    answer = api.post(url, {"table": "fx1", "round_id": coup.round_id, "bets": {"banker": "50"}}, **idempotency_key())
    assert answer.status_code == 201, answer.json()
    assert (answer.json()["currency"], answer.json()["balance"]) == ("USD", "450.00")
    player_make(dollar_partner, "d-2", "500.00")
    refused = api.post("/api/v1/players/d-2/bets/", {"table": "fx1", "bets": {"player": "250"}}, **idempotency_key())
    assert (refused.status_code, refused.json()["error"]["code"]) == (400, "above_maximum")
    refused = api.post(url, {"table": "eur1", "bets": {"player": "10"}}, **idempotency_key())
    assert (refused.status_code, refused.json()["error"]["code"]) == (400, "currency_not_offered")


def test_a_partners_currency_is_fixed_once_money_has_moved(dollar_partner):
    pounds = partner_wallet_set(partner=dollar_partner, mode="transfer", currency="GBP")  # nothing moved: allowed
    player = player_make(pounds, "d-1", "10.00")
    assert Account.objects.get(user=player.user).currency == "GBP"
    with pytest.raises(PartnerRejected) as locked:
        partner_wallet_set(partner=dollar_partner, mode="transfer", currency="USD")
    assert locked.value.code == "currency_locked"
    dollar_partner.refresh_from_db()
    assert dollar_partner.currency == "GBP"
    assert set(Account.objects.filter(currency="USD").values_list("kind", flat=True)) == set()


def test_the_cashier_pays_house_currency_only_into_a_house_currency_wallet(dollar_partner):
    from wagering.errors import WalletRejected

    dollars = player_make(dollar_partner, "d-1", "10.00")
    with pytest.raises(WalletRejected) as refused:
        wallet_deposit(user=dollars.user, amount=D("5"), idempotency_key="cashier-1")
    assert (refused.value.code, refused.value.details) == (
        "currency_mismatch",
        {"wallet_currency": "USD", "currency": "EUR"},
    )
    assert wallet_balance(user=dollars.user) == D("10.00")


def test_a_void_refunds_each_currency_in_its_own_transaction(dollar_partner, two_currency_table):
    coup = CoupFactory(table=two_currency_table)
    euro, dollars = euro_player(), player_make(dollar_partner, "d-1", "100.00")
    bet_batch_place(user=euro, coup=coup, bets={"player": "40"})
    bet_batch_place(user=dollars.user, coup=coup, bets={"player": "30"})
    coup_void(coup=coup, actor=UserFactory(is_staff=True), reason="the pit's decision")
    refunds = LedgerTransaction.objects.filter(kind=LedgerTransaction.Kind.REFUND)
    assert sorted(refunds.values_list("currency", flat=True)) == ["EUR", "USD"]
    assert (wallet_balance(user=euro), wallet_balance(user=dollars.user)) == (D("5000.00"), D("100.00"))


@pytest.mark.skipif(connection.vendor != "postgresql", reason="SQLite has no ledger trigger")
@pytest.mark.django_db(transaction=True)
def test_postgresql_refuses_a_transaction_with_a_leg_in_another_currency():
    euro = Account.objects.create(kind=Account.Kind.HOUSE, currency="EUR")
    dollars = Account.objects.create(kind=Account.Kind.HOUSE, currency="USD")
    with pytest.raises(IntegrityError, match="another currency"), transaction.atomic():
        movement = LedgerTransaction.objects.create(kind=LedgerTransaction.Kind.CORRECTION, currency="EUR")
        rows_insert(
            LedgerEntry,
            ("transaction", "account", "amount", "balance_before", "balance_after"),
            [(movement.pk, euro.pk, D("5.00"), 0, 0), (movement.pk, dollars.pk, D("-5.00"), 0, 0)],
        )
    assert not LedgerTransaction.objects.exists()
