"""Players by the partner's id, their balance, deposits and withdrawals against the partner's float."""

from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model

from partners.models import PartnerIdempotencyKey, PartnerPlayer
from tables.models import AuditLog
from tests.factories import UserFactory
from tests.partners.conftest import idempotency_key, player_make
from wagering.checks import ledger_check
from wagering.models import Account, LedgerTransaction
from wagering.selectors import wallet_balance

D = Decimal


def partner_float(partner) -> Decimal:
    return Account.objects.get(kind=Account.Kind.PARTNER_FLOAT, partner_code=partner.code).balance


def deposit(api, player_id, amount, key="dep-1"):
    return api.post(f"/api/v1/players/{player_id}/deposits/", {"amount": amount}, HTTP_IDEMPOTENCY_KEY=key)


def withdraw(api, player_id, amount, key="wd-1"):
    return api.post(f"/api/v1/players/{player_id}/withdrawals/", {"amount": amount}, HTTP_IDEMPOTENCY_KEY=key)


def test_a_player_is_created_once_with_an_empty_wallet(partner, api):
    created = api.post("/api/v1/players/", {"player_id": "user-42@example.com"})
    assert created.status_code == 201
    assert created.json() == {
        "player_id": "user-42@example.com",
        "currency": "EUR",
        "balance": "0.00",
        "created_at": created.json()["created_at"],
    }
    again = api.post("/api/v1/players/", {"player_id": "user-42@example.com"})
    assert again.status_code == 200 and again.json() == created.json()
    player = PartnerPlayer.objects.get(partner=partner, external_id="user-42@example.com")
    assert player.user.username == "user-42@example.com@acme" and not player.user.has_usable_password()
    assert player.user.wallet.balance == D("0.00")
    assert AuditLog.objects.filter(action="partner_player_created", actor_label="partner:acme").count() == 1


@pytest.mark.parametrize("player_id", ["", "-starts-with-dash", "has space", "x" * 101, "émile", "a/b"])
def test_a_malformed_player_id_is_400(api, player_id):
    response = api.post("/api/v1/players/", {"player_id": player_id})
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_request"
    assert "player_id" in response.json()["error"]["details"]
    assert not PartnerPlayer.objects.exists()


def test_a_player_id_whose_username_is_taken_is_409(partner, api):
    UserFactory(username="p-1@acme")
    response = api.post("/api/v1/players/", {"player_id": "p-1"})
    assert response.status_code == 409 and response.json()["error"]["code"] == "player_id_unavailable"


def test_the_balance_is_the_wallets(api, player):
    response = api.get("/api/v1/players/p-1/")
    assert response.status_code == 200 and response.json()["balance"] == "1000.00"


def test_another_partners_player_is_404_everywhere(other_api, player, coup):
    paths = ["/api/v1/players/p-1/", "/api/v1/players/p-1/bets/", "/api/v1/players/p-1/rounds/"]
    for path in paths:
        response = other_api.get(path)
        assert response.status_code == 404 and response.json()["error"]["code"] == "player_not_found"
    assert deposit(other_api, "p-1", "10.00").status_code == 404
    assert withdraw(other_api, "p-1", "10.00").status_code == 404
    bets = {"table": "pb1", "bets": {"banker": "10.00"}}
    assert other_api.post("/api/v1/players/p-1/bets/", bets, **idempotency_key()).status_code == 404
    assert wallet_balance(user=player.user) == D("1000.00")


def test_two_partners_may_use_the_same_player_id_for_two_players(partner, other_partner, api, other_api):
    assert api.post("/api/v1/players/", {"player_id": "p-1"}).status_code == 201
    assert other_api.post("/api/v1/players/", {"player_id": "p-1"}).status_code == 201
    assert deposit(api, "p-1", "30.00").status_code == 201
    assert other_api.get("/api/v1/players/p-1/").json()["balance"] == "0.00"
    assert get_user_model().objects.filter(username__in=["p-1@acme", "p-1@globex"]).count() == 2


def test_a_deposit_moves_money_from_the_partners_float_to_the_wallet(partner, api, player):
    response = deposit(api, "p-1", "250.50")
    assert response.status_code == 201
    body = response.json()
    assert body == {
        "transaction_id": body["transaction_id"],
        "kind": "deposit",
        "player_id": "p-1",
        "currency": "EUR",
        "amount": "250.50",
        "balance": "1250.50",
        "created_at": body["created_at"],
    }
    assert "Idempotent-Replayed" not in response
    assert wallet_balance(user=player.user) == D("1250.50")
    assert partner_float(partner) == D("-1250.50")  # the float is what the partner has put in
    legs = LedgerTransaction.objects.get(pk=body["transaction_id"]).entries.select_related("account")
    assert {(leg.account.kind, leg.amount) for leg in legs} == {
        ("player", D("250.50")),
        ("partner_float", D("-250.50")),
    }
    audit = AuditLog.objects.filter(action="partner_wallet_deposit", actor_label="partner:acme").first()
    assert audit.object_id == str(player.user.wallet.pk)
    assert (audit.after["amount"], audit.after["idempotency_key"]) == ("250.50", "dep-1")
    assert ledger_check().ok


def test_a_withdrawal_moves_money_back_to_the_float(partner, api, player):
    response = withdraw(api, "p-1", "400")
    assert response.status_code == 201 and response.json()["balance"] == "600.00"
    assert partner_float(partner) == D("-600.00")
    assert ledger_check().ok


def test_the_same_key_and_body_answer_the_first_result_and_move_money_once(api, player):
    first = deposit(api, "p-1", "100.00", key="k-1")
    again = deposit(api, "p-1", "100", key="k-1")  # the same amount, written differently
    assert again.status_code == 201 and again.json() == first.json()
    assert again["Idempotent-Replayed"] == "true"
    assert wallet_balance(user=player.user) == D("1100.00")


def test_the_same_key_with_another_body_is_409_and_moves_nothing(partner, api, player):
    deposit(api, "p-1", "100.00", key="k-1")
    other_amount = deposit(api, "p-1", "99.00", key="k-1")
    other_kind = withdraw(api, "p-1", "100.00", key="k-1")
    player_make(partner, "p-2", balance="0")
    other_player = deposit(api, "p-2", "100.00", key="k-1")
    for response in (other_amount, other_kind, other_player):
        assert response.status_code == 409
        assert response.json()["error"]["code"] == "idempotency_conflict"
        assert response.json()["error"]["details"]["first_amount"] == "100.00"
    assert wallet_balance(user=player.user) == D("1100.00")


def test_keys_are_per_partner(other_partner, api, other_api, player):
    player_make(other_partner, "p-9", balance="0")
    assert deposit(api, "p-1", "10.00", key="shared").status_code == 201
    assert deposit(other_api, "p-9", "20.00", key="shared").status_code == 201


def test_withdrawing_more_than_the_balance_is_400_and_says_by_how_much(api, player):
    response = withdraw(api, "p-1", "1000.01", key="too-much")
    assert response.status_code == 400
    assert response.json()["error"] == {
        "code": "insufficient_funds",
        "message": "cannot withdraw 1000.01: the balance is 1000.00, short by 0.01",
        "details": {"balance": "1000.00", "amount": "1000.01", "short_by": "0.01"},
    }
    assert not PartnerIdempotencyKey.objects.filter(key="too-much").exists()  # nothing half-done: try again
    assert withdraw(api, "p-1", "1000.00", key="too-much").status_code == 201


@pytest.mark.parametrize("amount", ["0", "0.00", "-5", "1.001", "abc", "", "1e3", 10, 10.5, None, "1000000000000"])
def test_an_invalid_amount_is_400(api, player, amount):
    response = api.post("/api/v1/players/p-1/deposits/", {"amount": amount}, format="json", **idempotency_key())
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_request"
    assert "amount" in response.json()["error"]["details"]


@pytest.mark.parametrize(
    "headers", [{}, {"HTTP_IDEMPOTENCY_KEY": ""}, {"HTTP_IDEMPOTENCY_KEY": "x" * 256}, {"HTTP_IDEMPOTENCY_KEY": "a b"}]
)
def test_a_missing_or_malformed_idempotency_key_is_400(api, player, headers):
    response = api.post("/api/v1/players/p-1/deposits/", {"amount": "10.00"}, **headers)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_idempotency_key"
    assert wallet_balance(user=player.user) == D("1000.00")


def test_malformed_json_is_400(api, player):
    response = api.generic("POST", "/api/v1/players/p-1/deposits/", "{not json", content_type="application/json")
    assert response.status_code == 400 and response.json()["error"]["code"] == "parse_error"


def test_a_deposit_past_what_an_account_holds_is_400_not_an_overflow(api, player):
    response = deposit(api, "p-1", "999999999999.99", key="huge")
    assert response.status_code == 400 and response.json()["error"]["code"] == "amount_too_large"
    assert wallet_balance(user=player.user) == D("1000.00")
