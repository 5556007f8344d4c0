"""The seamless wallet: a bet is debited from the partner's wallet before it is placed, a round credits
what it returns (zero for a loss), a void or undo rolls the debits back, failures are rolled back and
credits sent again until acknowledged; the books carry it all against the partner's float."""

from __future__ import annotations

import uuid
from datetime import timedelta
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from django.utils import timezone

from casino.lifecycle import coup_void
from casino.lifecycle.settlement import coup_settle
from partners import seamless, wallet_sending
from partners.models import WalletTransaction
from partners.services import partner_player_create
from partners.wallet_settings import partner_wallet_set
from tests.factories import coup_deal_and_resolve
from tests.partners.conftest import client_for, idempotency_key, launch_open, partner_make
from tests.partners.fake_wallet import SECRET, FakeWallet
from wagering.cancellation import bet_batch_undo
from wagering.checks import ledger_check, settlement_check
from wagering.errors import BetRejected
from wagering.models import Account, Bet

D = Decimal
PLAYER_NATURAL_9 = "9S 2H KD 3C"  # Player 9, Banker 2: Player wins


@pytest.fixture
def wallet():
    with FakeWallet({"p-1": "100.00", "p-2": "50.00"}) as fake:
        yield fake


@pytest.fixture
def seamless_partner(db, wallet):
    partner = partner_make("acme")
    return partner_wallet_set(partner=partner, mode="seamless", wallet_url=wallet.url, wallet_secret=SECRET)


@pytest.fixture
def ann(seamless_partner):
    return partner_player_create(partner=seamless_partner, external_id="p-1")[0]


@pytest.fixture
def bob(seamless_partner):
    return partner_player_create(partner=seamless_partner, external_id="p-2")[0]


def float_balance(code="acme") -> Decimal:
    return Account.objects.get(kind=Account.Kind.PARTNER_FLOAT, partner_code=code).balance


def transactions(kind=None):
    found = WalletTransaction.objects.order_by("pk")
    return list(found.filter(kind=kind) if kind else found)


def test_a_bet_is_debited_from_the_partners_wallet_then_placed(wallet, ann, coup):
    placed = seamless.seamless_bet_place(player=ann, coup=coup, bets={"player": "30.00", "tie": "5"})
    assert wallet.balances["p-1"] == D("65.00")
    assert placed.balance == D("65.00")  # the partner's, as it answered
    [debit] = wallet.operations("debit")
    assert debit == {
        "transaction_id": debit["transaction_id"],
        "player_id": "p-1",
        "currency": "EUR",
        "amount": "35.00",
        "round_id": coup.round_id,
        "table": "pb1",
        "bets": [{"bet_type": "player", "stake": "30.00"}, {"bet_type": "tie", "stake": "5.00"}],
    }
    assert all(valid for _, _, valid in wallet.requests)
    [record] = transactions()
    assert (record.kind, record.state, record.attempts, record.batch_id) == (
        "debit",
        "acknowledged",
        1,
        placed.batch.pk,
    )
    assert record.call_attempts.get().outcome == "acknowledged"
    bets = Bet.objects.filter(coup=coup)
    assert {bet.stake_account.kind for bet in bets} == {"partner_float"}
    assert float_balance() == D("-35.00")  # the partner holds the stakes: it owes them
    assert Account.objects.get(user=ann.user).balance == 0
    assert ledger_check().ok


@pytest.mark.parametrize(
    ("behaviour", "code"), [("ok", "insufficient_funds"), ("blocked", "wallet_refused")], ids=["funds", "blocked"]
)
def test_a_refusal_by_the_wallet_refuses_the_bet_and_changes_nothing(wallet, ann, coup, behaviour, code):
    wallet.behaviour = behaviour
    with pytest.raises(BetRejected) as refused:
        seamless.seamless_bet_place(player=ann, coup=coup, bets={"banker": "500"})
    assert refused.value.code == code
    assert refused.value.details["balance"] == "100.00"
    assert not Bet.objects.exists()
    assert [(t.kind, t.state) for t in transactions()] == [("debit", "refused")]
    assert wallet.operations("rollback") == []  # nothing was taken, nothing to give back
    assert wallet.balances["p-1"] == D("100.00")


@pytest.mark.parametrize("behaviour", ["slow", "fail", "garbage"])
def test_no_valid_answer_refuses_the_bet_and_rolls_the_debit_back(
    wallet, ann, coup, settings, behaviour, django_capture_on_commit_callbacks
):
    settings.SEAMLESS_WALLET_DEADLINE_SECONDS = 0.5
    wallet.behaviour, wallet.slow_seconds = behaviour, 1.0
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(BetRejected) as refused:
        seamless.seamless_bet_place(player=ann, coup=coup, bets={"banker": "40"})
    assert refused.value.code == "wallet_unavailable"
    assert not Bet.objects.exists()
    debit, rollback = transactions()
    assert (debit.kind, debit.state) == ("debit", "failed")
    assert (rollback.kind, rollback.rolls_back_id, rollback.amount) == ("rollback", debit.pk, D("40.00"))
    wallet.behaviour = "ok"
    wallet_sending.wallet_transaction_attempt(pk=rollback.pk)
    rollback.refresh_from_db()
    assert rollback.state == "acknowledged"
    assert rollback.body["rolled_back_transaction_id"] == str(debit.transaction_id)
    assert wallet.balances["p-1"] == D("100.00")  # a slow debit taken, then given back; the others never taken


def test_a_round_credits_each_player_once_zero_for_a_loss(wallet, ann, bob, coup, django_capture_on_commit_callbacks):
    seamless.seamless_bet_place(player=ann, coup=coup, bets={"player": "30.00"})
    seamless.seamless_bet_place(player=bob, coup=coup, bets={"banker": "20.00"})
    coup_deal_and_resolve(coup, PLAYER_NATURAL_9)
    with django_capture_on_commit_callbacks(execute=True):
        coup_settle(coup_id=coup.pk)
    credits = {body["player_id"]: body for body in wallet.operations("credit")}
    assert credits["p-1"]["amount"] == "60.00" and credits["p-2"]["amount"] == "0.00"
    debit_ids = {t.player.external_id: str(t.transaction_id) for t in transactions("debit")}
    assert credits["p-1"]["debit_transaction_ids"] == [debit_ids["p-1"]]
    assert credits["p-1"]["round_id"] == coup.round_id and credits["p-1"]["table"] == "pb1"
    assert wallet.balances == {"p-1": D("130.00"), "p-2": D("30.00")}
    assert {t.state for t in transactions("credit")} == {"acknowledged"}
    assert float_balance() == D("10.00")  # -50 staked, +60 credited: the house owes the partner 10
    assert ledger_check().ok
    assert settlement_check().problems == []  # their own wallets (empty) never held these stakes
    with django_capture_on_commit_callbacks(execute=True):
        coup_settle(coup_id=coup.pk)  # again: nothing more
    assert len(wallet.operations("credit")) == 2


def test_a_void_rolls_back_every_debit_of_the_round(wallet, ann, coup, pit_boss, django_capture_on_commit_callbacks):
    seamless.seamless_bet_place(player=ann, coup=coup, bets={"player": "30.00"})
    seamless.seamless_bet_place(player=ann, coup=coup, bets={"player": "10.00"})
    with django_capture_on_commit_callbacks(execute=True):
        coup_void(coup=coup, actor=pit_boss, reason="misdeal")
    assert sorted(body["amount"] for body in wallet.operations("rollback")) == ["10.00", "30.00"]
    assert wallet.balances["p-1"] == D("100.00")
    assert float_balance() == 0
    assert ledger_check().ok


def test_a_credit_is_sent_again_until_acknowledged(wallet, ann, coup, django_capture_on_commit_callbacks):
    seamless.seamless_bet_place(player=ann, coup=coup, bets={"player": "30.00"})
    coup_deal_and_resolve(coup, PLAYER_NATURAL_9)
    wallet.behaviour = "fail"
    with django_capture_on_commit_callbacks(execute=True):
        coup_settle(coup_id=coup.pk)  # settles all the same: the credit waits for the wallet, nobody else does
    [credit] = transactions("credit")
    assert (credit.state, credit.attempts, credit.last_status_code) == ("pending", 1, 500)
    coup.refresh_from_db()
    assert coup.state == "settled"
    assert wallet_sending.wallet_transactions_due() == []  # not yet: its next attempt is in a few seconds
    due_later = wallet_sending.wallet_transactions_due(now=timezone.now() + timedelta(minutes=1))
    assert due_later == [credit.pk]
    wallet.behaviour = "ok"
    assert wallet_sending.wallet_transaction_attempt(pk=credit.pk)
    credit.refresh_from_db()
    assert (credit.state, credit.attempts) == ("acknowledged", 2)
    assert [a.outcome for a in credit.call_attempts.order_by("pk")] == ["failed", "acknowledged"]
    assert wallet.balances["p-1"] == D("130.00")


def test_a_debit_orphaned_by_a_dead_process_is_rolled_back_by_the_sweep(wallet, ann, coup):
    debit = wallet_sending.wallet_transaction_record(
        kind="debit", player=ann, amount=D("25.00"), coup=coup, extra={"round_id": coup.round_id}
    )
    WalletTransaction.objects.filter(pk=debit.pk).update(created_at=timezone.now() - timedelta(minutes=2))
    due = wallet_sending.wallet_transactions_due()
    debit.refresh_from_db()
    assert debit.state == "failed"
    [rollback] = transactions("rollback")
    assert due == [rollback.pk] and rollback.rolls_back_id == debit.pk


def test_a_bet_slower_than_the_orphan_sweep_is_refused_not_placed_on_a_debit_given_back(wallet, ann, coup, monkeypatch):
    debit_asked = seamless.seamless_debit

    def sweep_meanwhile(**kwargs):
        answer = debit_asked(**kwargs)
        later = timezone.now() + timedelta(seconds=wallet_sending.DEBIT_ORPHANED_SECONDS + 1)
        for pk in wallet_sending.wallet_transactions_due(now=later):
            assert wallet_sending.wallet_transaction_attempt(pk=pk)
        return answer

    monkeypatch.setattr(seamless, "seamless_debit", sweep_meanwhile)
    with pytest.raises(BetRejected) as refused:
        seamless.seamless_bet_place(player=ann, coup=coup, bets={"player": "30.00"})
    assert refused.value.code == "wallet_unavailable"
    assert [(t.kind, t.state) for t in transactions()] == [("debit", "acknowledged"), ("rollback", "acknowledged")]
    assert wallet.balances["p-1"] == D("100.00") and not Bet.objects.exists()
    assert ledger_check().ok


def test_a_failure_after_the_bets_committed_does_not_give_their_debit_back(wallet, ann, coup, monkeypatch):
    """An error once the bets' transaction is done (the commit's acknowledgement lost, say): the bets stand, so
    their debit is not rolled back; a debit still without bets is."""
    placed = seamless.seamless_bet_place(player=ann, coup=coup, bets={"player": "30.00"})
    [debit] = transactions("debit")
    seamless.rollback_unless_placed(debit=debit)
    assert transactions("rollback") == [] and debit.batch_id == placed.batch.pk
    WalletTransaction.objects.filter(pk=debit.pk).update(batch=None)
    seamless.rollback_unless_placed(debit=debit)
    [rollback] = transactions("rollback")
    assert rollback.rolls_back_id == debit.pk


def test_the_api_places_a_seamless_bet_once_per_idempotency_key(wallet, seamless_partner, ann, coup):
    api = client_for(seamless_partner)
    headers = idempotency_key()
    body = {"table": "pb1", "bets": {"banker": "10.00"}}
    first = api.post("/api/v1/players/p-1/bets/", body, **headers)
    again = api.post("/api/v1/players/p-1/bets/", body, **headers)
    assert first.status_code == again.status_code == 201, first.json()
    assert first.json()["balance"] == again.json()["balance"] == "90.00"
    assert again.headers["Idempotent-Replayed"] == "true"
    assert len(wallet.operations("debit")) == 1
    other = api.post("/api/v1/players/p-1/bets/", {**body, "bets": {"banker": "20.00"}}, **headers)
    assert other.status_code == 409 and other.json()["error"]["code"] == "idempotency_conflict"


def test_the_api_answers_503_when_the_wallet_does_not(wallet, seamless_partner, ann, coup, settings):
    settings.SEAMLESS_WALLET_DEADLINE_SECONDS = 0.5
    wallet.behaviour = "fail"
    key = idempotency_key()
    response = client_for(seamless_partner).post(
        "/api/v1/players/p-1/bets/", {"table": "pb1", "bets": {"tie": "5"}}, **key
    )
    assert response.status_code == 503 and response.json()["error"]["code"] == "wallet_unavailable"
    wallet.behaviour = "ok"  # the key may be tried again: nothing was placed under it
    response = client_for(seamless_partner).post(
        "/api/v1/players/p-1/bets/", {"table": "pb1", "bets": {"tie": "5"}}, **key
    )
    assert response.status_code == 201


def test_a_transaction_id_is_never_reused(wallet, ann, coup):
    seamless.seamless_bet_place(player=ann, coup=coup, bets={"player": "1"})
    seamless.seamless_bet_place(player=ann, coup=coup, bets={"player": "1"})
    ids = [body["transaction_id"] for body in wallet.operations("debit")]
    assert len(set(ids)) == 2 and all(uuid.UUID(value) for value in ids)


def test_reconciliation_lists_the_day_and_balances_to_the_cent(
    wallet, seamless_partner, ann, bob, coup, django_capture_on_commit_callbacks
):
    seamless.seamless_bet_place(player=ann, coup=coup, bets={"player": "30.00"})
    seamless.seamless_bet_place(player=bob, coup=coup, bets={"banker": "20.00"})
    with pytest.raises(BetRejected):
        seamless.seamless_bet_place(player=bob, coup=coup, bets={"tie": "40.00"})  # bob has 30 left
    coup_deal_and_resolve(coup, PLAYER_NATURAL_9)
    with django_capture_on_commit_callbacks(execute=True):
        coup_settle(coup_id=coup.pk)
    api = client_for(seamless_partner)
    today = timezone.now().date().isoformat()
    response = api.get(f"/api/v1/reconciliation/?date={today}")
    assert response.status_code == 200
    body = response.json()
    assert (body["stakes"], body["returns"], body["rollbacks"], body["refused_debits"]) == (
        "50.00",
        "60.00",
        "0.00",
        "40.00",
    )
    assert body["currency"] == "EUR" and body["unacknowledged"] == [] and body["count"] == 5
    changes = {row["player_id"]: D(row["balance_change"]) for row in body["players"]}
    assert changes == {"p-1": wallet.balances["p-1"] - D("100.00"), "p-2": wallet.balances["p-2"] - D("50.00")}
    assert {row["state"] for row in body["results"]} == {"acknowledged", "refused"}
    assert api.get("/api/v1/reconciliation/?date=yesterday").status_code == 400
    assert api.get(f"/api/v1/reconciliation/?date={today}&partner=globex").status_code == 400
    other = client_for(partner_make("globex")).get(f"/api/v1/reconciliation/?date={today}")
    assert other.json()["count"] == 0  # another partner sees none of acme's


def test_a_launched_player_bets_and_undoes_from_the_table_page(
    wallet, seamless_partner, coup, django_capture_on_commit_callbacks
):
    api = client_for(seamless_partner)
    launch = api.post("/api/v1/sessions/", {"player_id": "p-1", "currency": "EUR", "table": "pb1"}).json()
    browser = Client(enforce_csrf_checks=False)
    launch_open(browser, launch["launch_url"])
    mine = browser.get("/tables/pb1/bets/").json()
    assert mine["balance"] == "100.00"  # asked of the partner's wallet
    placed = browser.post("/tables/pb1/bets/", {"bets": {"player": "25.00"}}, content_type="application/json")
    assert placed.status_code == 200 and placed.json()["balance"] == "75.00"
    with django_capture_on_commit_callbacks(execute=True):
        undone = browser.post("/tables/pb1/bets/undo/", {}, content_type="application/json")
    assert undone.status_code == 200 and undone.json()["bets"] == {}
    assert wallet.balances["p-1"] == D("100.00")
    assert [(t.kind, t.state) for t in transactions()] == [("debit", "acknowledged"), ("rollback", "acknowledged")]
    assert float_balance() == 0 and ledger_check().ok


def test_a_launched_players_game_history_has_no_balance_of_ours(wallet, seamless_partner, coup):
    api = client_for(seamless_partner)
    launch = api.post("/api/v1/sessions/", {"player_id": "p-1", "currency": "EUR", "table": "pb1"}).json()
    browser = Client()
    launch_open(browser, launch["launch_url"])
    browser.post("/tables/pb1/bets/", {"bets": {"player": "25.00"}}, content_type="application/json")
    (round_,) = browser.get("/tables/pb1/history/").json()["rounds"]
    assert (round_["staked"], round_["currency"]) == ("25.00", "EUR")
    assert round_["balance_before"] is None and round_["balance_after"] is None  # the partner's wallet holds it


def test_the_wallet_command_sets_seamless_and_prints_no_secret(db, wallet):
    partner_make("acme")
    out = StringIO()
    call_command(
        "partner_wallet_set",
        "acme",
        "--mode",
        "seamless",
        "--wallet-url",
        wallet.url,
        "--wallet-secret",
        SECRET,
        "--currency",
        "EUR",
        stdout=out,
    )
    assert SECRET not in out.getvalue() and "seamless" in out.getvalue()
    call_command("partner_wallet_set", "acme", "--mode", "seamless", "--currency", "GBP", stdout=out)
    assert Account.objects.get(kind=Account.Kind.PARTNER_FLOAT, partner_code="acme").currency == "GBP"
    with pytest.raises(CommandError, match="2 \\(EUR"):
        call_command("partner_wallet_set", "acme", "--mode", "transfer", "--currency", "BHD")
    with pytest.raises(CommandError, match="secret"):
        call_command("partner_wallet_set", "acme", "--mode", "seamless", "--wallet-secret", "short")


def test_the_admin_never_shows_the_wallet_secret(client, seamless_partner):
    from tests.factories import UserFactory, staff_login

    staff_login(client, UserFactory(is_staff=True, is_superuser=True))
    page = client.get(f"/admin/partners/partner/{seamless_partner.pk}/change/")
    assert page.status_code == 200
    assert SECRET.encode() not in page.content
    assert seamless_partner.wallet_secret_encrypted.encode() not in page.content
    assert b'name="new_wallet_secret"' in page.content


def test_the_balance_is_asked_of_the_wallet_at_most_every_few_seconds(wallet, ann):
    from django.core.cache import cache

    cache.delete(f"seamless-balance:{ann.pk}")
    assert [seamless.seamless_balance(player=ann) for _ in range(5)] == [D("100.00")] * 5
    assert len(wallet.operations("balance")) == 1


def test_a_credit_names_only_the_debits_that_stand(wallet, ann, coup, django_capture_on_commit_callbacks):
    kept = seamless.seamless_bet_place(player=ann, coup=coup, bets={"player": "10.00"})
    seamless.seamless_bet_place(player=ann, coup=coup, bets={"player": "5.00"})
    with django_capture_on_commit_callbacks(execute=True):
        seamless.batches_rollback(batches=[bet_batch_undo(user=ann.user, coup=coup)])
    coup_deal_and_resolve(coup, PLAYER_NATURAL_9)
    with django_capture_on_commit_callbacks(execute=True):
        coup_settle(coup_id=coup.pk)
    [credit] = wallet.operations("credit")
    assert credit["amount"] == "20.00"
    assert credit["debit_transaction_ids"] == [str(kept.batch.wallet_debit.transaction_id)]
    assert wallet.balances["p-1"] == D("110.00") and ledger_check().ok


def test_a_correction_tells_the_partner_no_balance_of_ours(wallet, ann, coup, django_capture_on_commit_callbacks):
    """``round.corrected`` for a seamless wallet's player: the adjustment is credited to the partner's
    wallet, whose balance is the partner's own, so the event's balance is null (as ``round.settled``'s)."""
    from casino import lifecycle
    from partners.models import WebhookDelivery
    from partners.webhooks import webhook_endpoint_create
    from tables import corrections
    from tables.roles import PIT_BOSS, roles_ensure
    from tests.factories import UserFactory

    pit_bosses = roles_ensure()[PIT_BOSS]
    ana, ben = UserFactory(username="ana", is_staff=True), UserFactory(username="ben", is_staff=True)
    for each in (ana, ben):
        each.groups.add(pit_bosses)
    webhook_endpoint_create(partner=ann.partner, url="https://partner.example/hooks")
    seamless.seamless_bet_place(player=ann, coup=coup, bets={"player": "30.00"})
    coup_deal_and_resolve(coup, PLAYER_NATURAL_9)
    with django_capture_on_commit_callbacks(execute=True):
        coup_settle(coup_id=coup.pk)
        correction = corrections.result_correction_request(
            coup=coup, player_cards="TS 2D 2S", banker_cards="6H KC", reason="misread", actor=ana
        )
        lifecycle.result_correction_approve(correction=correction, actor=ben)
    corrected = WebhookDelivery.objects.get(event_type="round.corrected").payload["data"]
    player = {"player_id": "p-1", "adjustment": "-60.00", "owed_change": "0.00", "balance": None}
    assert corrected["players"] == [player]
