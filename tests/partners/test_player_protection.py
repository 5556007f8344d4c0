"""Partners' players' protection through the API: a launch's reality checks and session limits, the operator's
own exclusion register (its players only), and a transfer wallet's deposits refused during a break."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal as D

import pytest
from django.conf import settings
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from partners import services as partner_services
from partners.models import LaunchToken, PartnerPlayer
from tables.models import AuditLog
from tests.partners.conftest import client_for, idempotency_key, launch_open, player_make
from wagering.models import Account, BetBatch, LedgerTransaction, PlayerProtection
from wagering.protection.services import protection_break_take, protection_limits_set
from wagering.selectors import wallet_balance

LAUNCH = {"player_id": "u-42", "currency": "EUR", "table": "pb1"}


def launched(api, **protection) -> PartnerPlayer:
    """A launch with these session values, opened in a browser: the player it signed in."""
    response = api.post("/api/v1/sessions/", {**LAUNCH, **protection})
    assert response.status_code == 201, response.json()
    assert launch_open(Client(), response.json()["launch_url"]).status_code == 302
    return PartnerPlayer.objects.get(external_id="u-42")


def bet(api, player_id, stakes):
    return api.post(f"/api/v1/players/{player_id}/bets/", {"table": "pb1", "bets": stakes}, **idempotency_key())


def deposit(api, player_id, amount="100.00"):
    return api.post(f"/api/v1/players/{player_id}/deposits/", {"amount": amount}, **idempotency_key())


def near(moment, minutes: int) -> bool:
    return abs(moment - (timezone.now() + timedelta(minutes=minutes))) < timedelta(seconds=30)


# --- The launch's session ------------------------------------------------------------------------


def test_a_launch_opens_a_session_with_its_reality_checks_and_limits(api, partner, coup):
    player = launched(api, reality_check_minutes=15, session_limit_minutes=30, loss_limit="50.00")
    launch = LaunchToken.objects.get()
    assert (launch.reality_check_minutes, launch.session_limit_minutes, launch.loss_limit) == (15, 30, D("50.00"))
    row = PlayerProtection.objects.get(user=player.user)
    assert row.reality_check_every == 15 and near(row.reality_check_due_at, 15)
    assert near(row.session_ends_at, 30) and row.session_loss_limit == D("50.00")
    assert deposit(api, "u-42").status_code == 201
    refused = bet(api, "u-42", {"banker": "30.00", "player": "21.00"})
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "loss_limit"
    assert refused.json()["error"]["details"]["period"] == "session"
    assert wallet_balance(user=player.user) == D("100.00") and not BetBatch.objects.exists()
    assert bet(api, "u-42", {"banker": "50.00"}).status_code == 201  # exactly up to the limit


def test_the_players_own_shorter_session_limit_stays_and_without_values_the_market_default_applies(api, partner, table):
    player = player_make(partner, "u-42", balance="0")
    protection_limits_set(user=player.user, limits={"session_minutes": 20})
    launched(api, session_limit_minutes=30)
    assert near(PlayerProtection.objects.get(user=player.user).session_ends_at, 20)
    launched(api)
    row = PlayerProtection.objects.get(user=player.user)
    assert row.reality_check_every == settings.PLAYER_REALITY_CHECK_MINUTES and row.session_loss_limit is None
    assert near(row.session_ends_at, 20)


def test_the_bounds_are_accepted(api, partner, table):
    player = launched(api, reality_check_minutes=1, session_limit_minutes=1440, loss_limit="0.01")
    row = PlayerProtection.objects.get(user=player.user)
    assert (row.reality_check_every, row.session_loss_limit) == (1, D("0.01")) and near(row.session_ends_at, 1440)


@pytest.mark.parametrize(
    "field, value",
    [
        ("reality_check_minutes", 0),
        ("reality_check_minutes", 1441),
        ("reality_check_minutes", -15),
        ("reality_check_minutes", "15"),
        ("reality_check_minutes", 15.5),
        ("reality_check_minutes", True),
        ("reality_check_minutes", None),
        ("session_limit_minutes", 0),
        ("session_limit_minutes", 100000),
        ("session_limit_minutes", "30"),
        ("session_limit_minutes", [30]),
        ("loss_limit", 50),
        ("loss_limit", "0.00"),
        ("loss_limit", "-5.00"),
        ("loss_limit", "1.234"),
        ("loss_limit", "1e3"),
        ("loss_limit", "fifty"),
        ("loss_limit", "9999999999999.00"),
    ],
)
def test_bad_session_values_are_400_and_create_nothing(api, partner, table, field, value):
    response = api.post("/api/v1/sessions/", {**LAUNCH, field: value})
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid_request" and list(error["details"]) == [field]
    assert error["message"].startswith(f"{field}: ")
    assert not LaunchToken.objects.exists() and not PartnerPlayer.objects.exists()
    assert not PlayerProtection.objects.exists()


def test_a_launch_sets_the_session_of_the_asking_partners_player_only(api, partner, other_partner, other_api, table):
    acme = launched(api, session_limit_minutes=30, loss_limit="50.00")
    response = other_api.post("/api/v1/sessions/", {**LAUNCH, "session_limit_minutes": 5, "loss_limit": "1.00"})
    assert response.status_code == 201  # its own u-42, another player
    assert launch_open(Client(), response.json()["launch_url"]).status_code == 302
    row = PlayerProtection.objects.get(user=acme.user)
    assert near(row.session_ends_at, 30) and row.session_loss_limit == D("50.00")
    globex = PartnerPlayer.objects.get(partner=other_partner, external_id="u-42")
    assert PlayerProtection.objects.get(user=globex.user).session_loss_limit == D("1.00")


def test_a_revoked_key_launches_nobody(partner, table):
    issued = partner_services.partner_api_key_create(partner=partner)
    partner_services.partner_api_key_revoke(api_key=issued.api_key)
    revoked = APIClient()
    revoked.credentials(HTTP_AUTHORIZATION=f"Bearer {issued.key}")
    response = revoked.post("/api/v1/sessions/", {**LAUNCH, "session_limit_minutes": 30, "loss_limit": "50.00"})
    assert response.status_code == 401 and not LaunchToken.objects.exists()


def test_the_schema_describes_the_session_values(db):
    schema = APIClient().get("/api/schema/?format=json").json()["components"]["schemas"]["SessionCreate"]
    fields = schema["properties"]
    for name in ("reality_check_minutes", "session_limit_minutes"):
        assert (fields[name]["type"], fields[name]["minimum"], fields[name]["maximum"]) == ("integer", 1, 1440)
    assert fields["loss_limit"]["type"] == "string" and "pattern" in fields["loss_limit"]
    assert not {"reality_check_minutes", "session_limit_minutes", "loss_limit"} & set(schema["required"])


# --- The operator's exclusion --------------------------------------------------------------------


def exclusion(api, method: str, player_id: str = "p-1", **body):
    return getattr(api, method)(f"/api/v1/players/{player_id}/exclusion/", body or None)


def test_an_exclusion_refuses_bets_and_deposits_at_once_until_lifted(api, partner, player, coup):
    assert exclusion(api, "get").json() == {"player_id": "p-1", "excluded": False, "excluded_at": None}
    excluded = exclusion(api, "post", reason="register match 2026-118")
    assert excluded.status_code == 200
    state = excluded.json()
    assert state["excluded"] is True and state["excluded_at"]
    audit = AuditLog.objects.get(action="protection_operator_excluded")
    assert (audit.actor_label, audit.reason) == ("partner:acme", "register match 2026-118")
    assert exclusion(api, "post").json() == state  # idempotent: the first time stays
    assert exclusion(api, "get").json() == state
    transactions = LedgerTransaction.objects.count()
    refused = bet(api, "p-1", {"banker": "10.00"})
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "self_excluded"
    refused = api.post("/api/v1/players/p-1/deposits/", {"amount": "100.00"}, HTTP_IDEMPOTENCY_KEY="dep-x")
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "self_excluded"
    assert LedgerTransaction.objects.count() == transactions and wallet_balance(user=player.user) == D("1000.00")
    withdrawn = api.post("/api/v1/players/p-1/withdrawals/", {"amount": "100.00"}, **idempotency_key())
    assert withdrawn.status_code == 201  # a withdrawal stays open
    lifted = exclusion(api, "delete", reason="appeal upheld")
    assert lifted.status_code == 200 and lifted.json() == {"player_id": "p-1", "excluded": False, "excluded_at": None}
    assert AuditLog.objects.get(action="protection_operator_exclusion_lifted").reason == "appeal upheld"
    assert exclusion(api, "delete").json()["excluded"] is False  # idempotent
    assert bet(api, "p-1", {"banker": "10.00"}).status_code == 201
    again = api.post("/api/v1/players/p-1/deposits/", {"amount": "100.00"}, HTTP_IDEMPOTENCY_KEY="dep-x")
    assert again.status_code == 201 and "Idempotent-Replayed" not in again  # the refusal left the key unused


def test_lifting_it_leaves_the_players_own_self_exclusion(api, partner, player, coup):
    protection_break_take(user=player.user, kind="self_exclusion", duration="6m")
    exclusion(api, "post")
    assert exclusion(api, "delete").json()["excluded"] is False
    refused = bet(api, "p-1", {"banker": "10.00"})
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "self_excluded"


def test_a_partner_cannot_read_or_change_another_partners_player(api, partner, player, other_partner, other_api):
    own = player_make(other_partner, "p-1")  # the same id at another partner: another player
    exclusion(api, "post")
    for method in ("get", "post", "delete"):
        response = exclusion(other_api, method, "p-1" if method == "post" else "nobody")
        if method == "post":  # its own p-1
            assert response.status_code == 200
        else:
            assert response.status_code == 404 and response.json()["error"]["code"] == "player_not_found"
    assert PlayerProtection.objects.get(user=player.user).operator_excluded_at is not None
    assert PlayerProtection.objects.get(user=own.user).operator_excluded_at is not None
    assert exclusion(other_api, "delete").json()["excluded"] is False
    assert PlayerProtection.objects.get(user=player.user).operator_excluded_at is not None  # acme's stays


def test_another_partner_gets_404_for_a_player_id_it_does_not_have(api, partner, player, other_api):
    for method in ("get", "post", "delete"):
        response = exclusion(other_api, method)
        assert response.status_code == 404 and response.json()["error"]["code"] == "player_not_found"
    assert not PlayerProtection.objects.filter(user=player.user).exists()


def test_a_revoked_key_a_signed_in_player_and_nobody_are_refused(partner, player):
    issued = partner_services.partner_api_key_create(partner=partner)
    partner_services.partner_api_key_revoke(api_key=issued.api_key, reason="leaked")
    revoked = APIClient()
    revoked.credentials(HTTP_AUTHORIZATION=f"Bearer {issued.key}")
    browser = APIClient()
    browser.force_login(player.user)  # the player's own session cookie: the API takes keys only
    for client in (revoked, browser, APIClient()):
        for method in ("get", "post", "delete"):
            response = exclusion(client, method)
            assert response.status_code == 401, (method, response.json())
    assert not PlayerProtection.objects.filter(operator_excluded_at__isnull=False).exists()
    assert client_for(partner).get("/api/v1/tables/").status_code == 200


@pytest.mark.parametrize("body", [{"reason": "x" * 501}, {"reason": 7}, {"reason": None}])
def test_a_bad_reason_is_400_and_changes_nothing(api, player, body):
    response = api.post("/api/v1/players/p-1/exclusion/", body)
    assert response.status_code == 400 and response.json()["error"]["code"] == "invalid_request"
    assert not PlayerProtection.objects.exists()


# --- Deposits during a break ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "kind, duration, code", [("self_exclusion", "1y", "self_excluded"), ("time_out", "24h", "timed_out")]
)
def test_a_transfer_deposit_during_a_break_is_403_and_moves_nothing(api, partner, player, kind, duration, code):
    protection_break_take(user=player.user, kind=kind, duration=duration)
    float_account = Account.objects.get(kind=Account.Kind.PARTNER_FLOAT, partner_code=partner.code)
    transactions = LedgerTransaction.objects.count()
    response = api.post("/api/v1/players/p-1/deposits/", {"amount": "50.00"}, HTTP_IDEMPOTENCY_KEY="dep-break")
    assert response.status_code == 403 and response.json()["error"]["code"] == code
    assert "until" in response.json()["error"]["details"]
    assert wallet_balance(user=player.user) == D("1000.00") and LedgerTransaction.objects.count() == transactions
    assert Account.objects.get(pk=float_account.pk).balance == float_account.balance
