"""The contract, whole: the float and its statement, a table's rounds, OPTIONS, and every answer in the schema."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import yaml
from django.utils import timezone
from rest_framework import serializers as drf
from rest_framework.test import APIClient

from casino.lifecycle.settlement import coup_settle
from partners.api.serializers import BetBatchResultSerializer
from tests.factories import coup_deal_and_resolve
from tests.partners.conftest import idempotency_key
from wagering.models import Bet

PLAYER_NATURAL_9 = "9S 2H KD 3C"


def test_the_float_and_its_statement_are_the_partners_own(api, other_api, partner, player, coup):
    api.post("/api/v1/players/p-1/deposits/", {"amount": "50.00"}, **idempotency_key())
    assert api.get("/api/v1/float/").json() == {"partner": "acme", "currency": "EUR", "balance": "-1050.00"}
    statement = api.get("/api/v1/float/statement/").json()
    assert statement["count"] == 2
    newest = statement["results"][0]
    assert (newest["kind"], newest["amount"], newest["balance_after"]) == ("deposit", "-50.00", "-1050.00")
    assert other_api.get("/api/v1/float/").json()["balance"] == "0.00"
    assert other_api.get("/api/v1/float/statement/").json()["count"] == 0
    tomorrow = (timezone.now() + timedelta(days=1)).date().isoformat()
    assert api.get(f"/api/v1/float/statement/?date_from={tomorrow}").json()["count"] == 0
    assert api.get("/api/v1/float/statement/?date_from=soon").status_code == 400
    assert api.get("/api/v1/float/statement/?player_id=p-1").status_code == 400


def test_a_tables_rounds_are_listed_newest_first_without_bets(api, partner, player, coup):
    api.post("/api/v1/players/p-1/bets/", {"table": "pb1", "bets": {"player": "10"}}, **idempotency_key())
    coup_deal_and_resolve(coup, PLAYER_NATURAL_9)
    coup_settle(coup_id=coup.pk)
    body = api.get("/api/v1/tables/pb1/rounds/").json()
    assert body["count"] == 1
    [round_] = body["results"]
    assert (round_["round_id"], round_["winner"], round_["state"], round_["table"]) == (
        coup.round_id,
        "player",
        "settled",
        "pb1",
    )
    assert "bets" not in round_ and len(round_["cards"]) == 4
    assert api.get("/api/v1/tables/nope/rounds/").status_code == 404
    assert api.get("/api/v1/tables/pb1/rounds/?date_to=2000-01-01").json()["count"] == 0
    assert APIClient().get("/api/v1/tables/pb1/rounds/").status_code == 401


def test_options_is_405_and_allow_says_so(api, partner):
    response = api.options("/api/v1/players/")
    assert response.status_code == 405
    assert "OPTIONS" not in response["Allow"] and "POST" in response["Allow"]


def test_the_schema_lists_every_answer_a_body_can_get(db, api, partner):
    document = yaml.safe_load(APIClient().get("/api/schema/").content)
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            answers = set(operation["responses"])
            assert {"401", "403", "429"} <= answers, (method, path)
            if method == "post":
                assert {"413", "415"} <= answers, (method, path)
    too_large = api.post("/api/v1/players/", {"player_id": "x" * 70_000})
    assert too_large.status_code == 413 and too_large.json()["error"]["code"] == "body_too_large"
    form = api.post("/api/v1/players/", "player_id=p-1", content_type="application/x-www-form-urlencoded")
    assert form.status_code == 415


def test_a_bets_answer_built_directly_is_what_its_schemas_fields_give(db):
    """The bet's answer is built by hand (``BetBatchResultSerializer.to_representation``): the same as DRF's fields
    give it, for a partner's wallet and a seamless one (no balance), amounts and the time as the schema says."""
    placed_at = timezone.now().replace(microsecond=123456)
    bets = [Bet(pk=7, bet_type="banker", stake=Decimal("25")), Bet(pk=8, bet_type="tie", stake=Decimal("2.5"))]
    for balance in (Decimal("972.5"), None):
        record = {
            "batch_id": 3,
            "round_id": "T1-0042",
            "table": "t1",
            "player_id": "p-1",
            "bets": bets,
            "currency": "EUR",
            "total": Decimal("27.50"),
            "balance": balance,
            "placed_at": placed_at,
        }
        serializer = BetBatchResultSerializer(record)
        built = serializer.data
        assert built == drf.Serializer.to_representation(serializer, record)
        assert built["bets"][1] == {"id": 8, "bet_type": "tie", "stake": "2.50"}
        assert built["balance"] == (None if balance is None else "972.50")
        assert list(built) == list(serializer.fields)
