"""The error envelope, rate limits per partner, unknown paths, the schema and its docs page."""

import pytest
import yaml
from rest_framework.test import APIClient

from tests.partners.conftest import client_for, partner_make
from wagering import placement


@pytest.fixture
def limited(db):
    """A partner allowed 3 requests a minute."""
    partner = partner_make("tiny", rate_limit="3/min")
    return partner, client_for(partner)


def test_a_partner_over_its_rate_limit_gets_429_with_retry_after(limited, api):
    _, client = limited
    assert [client.get("/api/v1/tables/").status_code for _ in range(3)] == [200, 200, 200]
    response = client.get("/api/v1/tables/")
    assert response.status_code == 429
    assert 0 < int(response["Retry-After"]) <= 60
    error = response.json()["error"]
    assert error["code"] == "rate_limited" and error["details"]["retry_after"] == response["Retry-After"]
    assert api.get("/api/v1/tables/").status_code == 200  # counted per partner


def test_all_the_keys_of_a_partner_share_its_limit(limited):
    partner, client = limited
    another_key = client_for(partner)
    assert [c.get("/api/v1/tables/").status_code for c in (client, another_key, client, another_key)] == [
        200,
        200,
        200,
        429,
    ]


def test_the_default_rate_comes_from_the_settings(db, settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"partner": "2/min"}}
    client = client_for(partner_make("defaulted"))
    assert [client.get("/api/v1/tables/").status_code for _ in range(3)] == [200, 200, 429]


def test_a_malformed_rate_limit_is_refused(db):
    from partners.identifiers import PartnerRejected
    from partners.services import partner_create

    with pytest.raises(PartnerRejected, match="rate"):
        partner_create(code="bad", name="Bad", rate_limit="fast")


def test_an_unknown_path_under_the_api_is_a_json_404(api):
    for path in ("/api/v1/nothing/", "/api/v2/tables/", "/api/"):
        response = api.get(path)
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "not_found"


def test_a_method_not_allowed_is_405_in_the_envelope(api):
    response = api.delete("/api/v1/tables/")
    assert response.status_code == 405
    assert response.json()["error"]["code"] == "method_not_allowed"


def test_an_unexpected_error_is_a_500_and_nothing_is_half_done(api, player, coup, monkeypatch):
    from partners.models import PartnerIdempotencyKey
    from wagering.checks import ledger_check
    from wagering.models import Bet, LedgerTransaction
    from wagering.selectors import wallet_balance

    def explode(**kwargs):  # after the bets and the ledger are written, before the commit
        raise RuntimeError("the database went away")

    monkeypatch.setattr(placement, "bets_changed_events", explode)
    transactions = LedgerTransaction.objects.count()
    api.raise_request_exception = False
    response = api.post(
        "/api/v1/players/p-1/bets/", {"table": "pb1", "bets": {"banker": "5"}}, HTTP_IDEMPOTENCY_KEY="k"
    )
    assert response.status_code == 500
    assert not Bet.objects.exists() and not PartnerIdempotencyKey.objects.filter(key="k").exists()
    assert LedgerTransaction.objects.count() == transactions and wallet_balance(user=player.user) == 1000
    assert ledger_check().ok


def test_the_schema_and_its_docs_page_are_public(db):
    schema = APIClient().get("/api/schema/")
    assert schema.status_code == 200
    document = yaml.safe_load(schema.content)
    assert document["openapi"].startswith("3.")
    assert document["components"]["securitySchemes"]["PartnerApiKey"] == {
        "type": "http",
        "scheme": "bearer",
        "description": document["components"]["securitySchemes"]["PartnerApiKey"]["description"],
    }
    assert {
        "/api/v1/tables/",
        "/api/v1/tables/{code}/",
        "/api/v1/tables/{code}/shoes/{number}/",
        "/api/v1/players/",
        "/api/v1/players/{player_id}/",
        "/api/v1/players/{player_id}/deposits/",
        "/api/v1/players/{player_id}/withdrawals/",
        "/api/v1/players/{player_id}/exclusion/",
        "/api/v1/players/{player_id}/bets/",
        "/api/v1/players/{player_id}/rounds/",
        "/api/v1/rounds/{round_id}/",
        "/api/v1/sessions/",
        "/api/v1/reconciliation/",
        "/api/v1/float/",
        "/api/v1/float/statement/",
        "/api/v1/tables/{code}/rounds/",
        "/api/v1/tables/{code}/deal/",
        "/api/v1/webhooks/",
        "/api/v1/webhooks/{webhook_id}/",
    } == set(document["paths"])
    docs = APIClient().get("/api/docs/")
    assert docs.status_code == 200 and b"swagger" in docs.content.lower()


def test_a_partner_key_is_not_a_session(api, client):
    """The API never reads cookies: a signed-in staff session is not a partner."""
    from tests.factories import UserFactory, staff_login

    staff_login(client, UserFactory(is_staff=True, is_superuser=True))
    assert client.get("/api/v1/tables/").status_code == 401


def test_a_body_that_is_not_json_is_415(api):
    response = api.post("/api/v1/players/", "player_id=p-1", content_type="application/x-www-form-urlencoded")
    assert response.status_code == 415 and response.json()["error"]["code"] == "unsupported_media_type"


def test_an_unknown_query_parameter_is_400_so_a_typo_is_no_silent_filter(api):
    response = api.get("/api/v1/tables/?tabel=pb1")
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {"tabel": ["unknown query parameter"]}
    assert api.get("/api/v1/tables/?page=0").status_code == 400
    assert api.get("/api/v1/tables/?page_size=201").status_code == 400


def test_a_database_error_mid_request_is_a_json_503_and_changes_nothing(api, player, coup, monkeypatch):
    from django.db import OperationalError

    from tests.partners.test_bets_rounds import place
    from wagering.models import Bet, LedgerTransaction
    from wagering.selectors import wallet_balance

    def connection_lost(**kwargs):
        raise OperationalError("server closed the connection unexpectedly")

    transactions, balance = LedgerTransaction.objects.count(), wallet_balance(user=player.user)
    monkeypatch.setattr("wagering.placement.placement_standing", connection_lost)  # inside the placement
    response = place(api, {"player": "10"})
    assert response.status_code == 503
    assert response.json()["error"]["code"] == "database_unavailable"
    assert (LedgerTransaction.objects.count(), Bet.objects.count()) == (transactions, 0)
    assert wallet_balance(user=player.user) == balance
    monkeypatch.undo()
    assert place(api, {"player": "10"}).status_code == 201
