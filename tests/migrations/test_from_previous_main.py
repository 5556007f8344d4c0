"""A database from the release before the partners app (issue 15) migrates forward with its rows, its
content types and the permissions granted on them, and migrates back again."""

from __future__ import annotations

import uuid

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.db.migrations.recorder import MigrationRecorder

from partners.models import Partner, PartnerApiKey, PartnerIdempotencyKey, PartnerPlayer, WebhookDelivery
from tables.models import Coup

PREVIOUS_MAIN = [
    ("tables", "0010_player_profile"),
    ("wagering", "0011_bet_open_by_user"),
    ("roadmaps", "0001_initial"),
]  # and no partners app: migrating wagering back to 0011 unapplies it
MOVED = {"partner", "partnerapikey", "partnerplayer", "partneridempotencykey", "webhookendpoint", "webhookdelivery"}

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.database_owner]  # migrates: as the owner


def migrate(targets) -> MigrationExecutor:
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    ContentType.objects.clear_cache()
    return executor


def latest() -> list:
    return MigrationExecutor(connection).loader.graph.leaf_nodes()


def moved_content_types() -> dict[str, str]:
    return dict(ContentType.objects.filter(model__in=MOVED).values_list("model", "app_label"))


def previous_main_rows(apps) -> dict:
    """What a partner left in the previous release's tables, written through its models."""
    user = apps.get_model("auth", "User").objects.create(username="p-7@acme")
    table = apps.get_model("tables", "Table").objects.create(code="m1", name="M1")
    shoe = apps.get_model("tables", "Shoe").objects.create(table=table, number=1, decks=8, cut_card_position=60)
    coup = apps.get_model("tables", "Coup").objects.create(
        table=table, shoe=shoe, number=1, round_id="m1-000001", rules={}, state="settled"
    )
    partner = apps.get_model("wagering", "Partner").objects.create(code="acme", name="Acme", rate_limit="20/s")
    apps.get_model("wagering", "PartnerApiKey").objects.create(partner=partner, prefix="abc123", secret_hash="0" * 64)
    apps.get_model("wagering", "PartnerPlayer").objects.create(partner=partner, external_id="p-7", user=user)
    apps.get_model("wagering", "PartnerIdempotencyKey").objects.create(
        partner=partner, key="k-1", request={"operation": "deposit"}
    )
    endpoint = apps.get_model("wagering", "WebhookEndpoint").objects.create(
        partner=partner, url="https://acme.example/hook", secret_encrypted="token"
    )
    event_id = uuid.uuid4()
    apps.get_model("wagering", "WebhookDelivery").objects.create(
        endpoint=endpoint, event_id=event_id, event_type="round.settled", coup=coup, payload={"round_id": "m1-000001"}
    )
    return {"event_id": event_id, "coup_id": coup.pk}


def test_a_database_of_the_previous_release_migrates_forward_and_back():
    migrate(PREVIOUS_MAIN)
    assert not MigrationRecorder(connection).migration_qs.filter(app="partners").exists()
    assert moved_content_types() == dict.fromkeys(MOVED, "wagering")  # as the previous release had them
    partner_type = ContentType.objects.get(app_label="wagering", model="partner")
    auditors = Group.objects.create(name="Partner auditors")
    auditors.permissions.add(Permission.objects.get(content_type=partner_type, codename="view_partner"))
    rows = previous_main_rows(MigrationExecutor(connection).loader.project_state(PREVIOUS_MAIN).apps)

    migrate(latest())
    assert moved_content_types() == dict.fromkeys(MOVED, "partners")
    assert ContentType.objects.get(app_label="partners", model="partner").pk == partner_type.pk  # the same row
    auditor = get_user_model().objects.create(username="auditor", is_staff=True)
    auditor.groups.add(auditors)
    assert auditor.has_perm("partners.view_partner") and not auditor.has_perm("wagering.view_partner")
    partner = Partner.objects.get(code="acme")
    assert (partner.name, partner.rate_limit) == ("Acme", "20/s")
    assert PartnerApiKey.objects.get(partner=partner).prefix == "abc123"
    assert PartnerPlayer.objects.get(partner=partner).user.username == "p-7@acme"
    assert PartnerIdempotencyKey.objects.get(partner=partner).request == {"operation": "deposit"}
    delivery = WebhookDelivery.objects.select_related("endpoint").get(event_id=rows["event_id"])
    assert delivery.endpoint.url == "https://acme.example/hook" and delivery.coup == Coup.objects.get(pk=rows["coup_id"])

    migrate(PREVIOUS_MAIN)
    assert moved_content_types() == dict.fromkeys(MOVED, "wagering")
    old = MigrationExecutor(connection).loader.project_state(PREVIOUS_MAIN).apps
    assert old.get_model("wagering", "Partner").objects.get(code="acme").name == "Acme"
    migrate(latest())
