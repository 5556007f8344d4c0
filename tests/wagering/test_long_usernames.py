"""Any username bets, and the audit row keeps it whole: Django usernames hold 150 characters, partner
players' ``<external id>@<partner code>`` up to 141 (PostgreSQL refused labels over 80 characters)."""

import json
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from tables.audit import audit_record
from tables.models import AuditLog
from tests.factories import CoupFactory, TableFactory, UserFactory
from tests.partners.conftest import client_for, partner_make, player_make
from tests.wagering.conftest import fund
from wagering.checks import ledger_check
from wagering.models import Bet, BetBatch

LONGEST_USERNAME = "u" * 150
LONGEST_PLAYER_ID = "p" + "x" * 99  # 100 characters, the partner API's longest
LONGEST_PARTNER_CODE = "acme-" + "g" * 35  # 40 characters


@pytest.fixture
def coup(db):
    return CoupFactory(table=TableFactory(code="pb1"), betting_closes_at=timezone.now() + timedelta(minutes=5))


def placement_audit(user) -> AuditLog:
    batch = BetBatch.objects.get(user=user)
    return AuditLog.objects.get(action="bet_batch_placed", object_type="BetBatch", object_id=str(batch.pk))


def test_a_150_character_username_bets_through_the_table_page(coup):
    user = UserFactory(username=LONGEST_USERNAME)
    fund(user, "100.00")
    client = Client()
    client.force_login(user)
    body = json.dumps({"bets": {"player": "10"}, "round_id": coup.round_id})
    response = client.post("/tables/pb1/bets/", body, content_type="application/json")
    assert response.status_code == 200, response.content
    audit = placement_audit(user)
    assert (audit.actor_id, audit.actor_label) == (user.pk, LONGEST_USERNAME)
    assert ledger_check().ok


def test_a_partner_player_with_a_100_character_id_bets_through_the_api(coup):
    partner = partner_make(LONGEST_PARTNER_CODE)
    player = player_make(partner, external_id=LONGEST_PLAYER_ID)
    username = f"{LONGEST_PLAYER_ID}@{LONGEST_PARTNER_CODE}"
    assert player.user.username == username and len(username) == 141
    response = client_for(partner).post(
        f"/api/v1/players/{LONGEST_PLAYER_ID}/bets/",
        {"table": "pb1", "bets": {"banker": "10"}},
        format="json",
        HTTP_IDEMPOTENCY_KEY="long-id-bet",
    )
    assert response.status_code == 201, response.content
    assert Bet.objects.get(user=player.user).stake == 10
    audit = placement_audit(player.user)
    assert (audit.actor_id, audit.actor_label) == (player.user.pk, username)


def test_an_audit_row_by_any_service_keeps_a_long_label_whole(db):
    user = UserFactory(username=LONGEST_USERNAME)
    row = audit_record(action="test", actor=user)
    row.refresh_from_db()
    assert row.actor_label == LONGEST_USERNAME
