"""/metrics: Prometheus's scrape, for staff and the scraper's token only; bet requests counted."""

import json

import pytest
from django.test import Client
from prometheus_client import REGISTRY

from tests.factories import UserFactory, staff_login

pytestmark = pytest.mark.django_db


def accepted(table: str) -> float:
    return REGISTRY.get_sample_value("punto_bets_accepted_total", {"table": table}) or 0.0


def refused(table: str, code: str) -> float:
    return REGISTRY.get_sample_value("punto_bets_refused_total", {"table": table, "code": code}) or 0.0


def test_only_staff_and_the_token_read_the_metrics(client, player_client, settings):
    settings.METRICS_TOKEN = "s3cret-scraper-token"
    assert client.get("/metrics").status_code == 404
    assert player_client.get("/metrics").status_code == 404
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer wrong").status_code == 404
    assert client.get("/metrics", HTTP_AUTHORIZATION="s3cret-scraper-token").status_code == 404
    scraped = client.get("/metrics", HTTP_AUTHORIZATION="Bearer s3cret-scraper-token")
    assert scraped.status_code == 200 and scraped["Content-Type"].startswith("text/plain")
    staff = staff_login(Client(), UserFactory(username="pit", is_staff=True))
    text = staff.get("/metrics").content.decode()
    for name in ("punto_bets_accepted_total", "punto_intake_commit_seconds", "punto_open_sockets"):
        assert name in text
    settings.METRICS_TOKEN = ""
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer ").status_code == 404  # no token set: none works


def test_bet_requests_are_counted_per_table_and_code(player_client, coup):
    before_accepted, before_refused = accepted("pb1"), refused("pb1", "above_maximum")
    bet = {"bets": {"banker": "10"}, "round_id": coup.round_id}
    for body in (bet, {**bet, "bets": {"banker": "99999"}}, bet):
        player_client.post("/tables/pb1/bets/", data=json.dumps(body), content_type="application/json")
    assert accepted("pb1") - before_accepted == 2
    assert refused("pb1", "above_maximum") - before_refused == 1
