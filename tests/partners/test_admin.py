"""Partners in the admin: created and changed through the services, keys shown once, revoked; secrets never shown."""

import re

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from partners import webhooks
from partners.models import Partner, PartnerApiKey
from tables.models import AuditLog
from tests.factories import UserFactory, staff_login
from wagering.models import Account


@pytest.fixture
def admin_client(client, db):
    return staff_login(client, UserFactory(is_staff=True, is_superuser=True))


def test_a_partner_added_in_the_admin_gets_its_float_and_an_audit_row(admin_client):
    response = admin_client.post(
        reverse("admin:partners_partner_add"), {"code": "initech", "name": "Initech", "is_active": "on"}
    )
    assert response.status_code == 302
    partner = Partner.objects.get(code="initech")
    assert Account.objects.filter(kind=Account.Kind.PARTNER_FLOAT, partner_code="initech").exists()
    assert AuditLog.objects.filter(action="partner_created", object_id=str(partner.pk)).exists()
    change = reverse("admin:partners_partner_change", args=[partner.pk])
    admin_client.post(change, {"name": "Initech Ltd", "rate_limit": "1200/min"})
    partner.refresh_from_db()
    assert (partner.code, partner.name, partner.rate_limit, partner.is_active) == (
        "initech",
        "Initech Ltd",
        "1200/min",
        False,
    )
    audit = AuditLog.objects.get(action="partner_updated", object_id=str(partner.pk))
    assert audit.before["name"] == "Initech" and audit.after["is_active"] is False


def test_a_bad_rate_limit_is_a_form_error(admin_client):
    response = admin_client.post(
        reverse("admin:partners_partner_add"), {"code": "x1", "name": "X", "rate_limit": "lots"}
    )
    assert response.status_code == 200 and "a rate is requests per period" in response.content.decode()
    assert not Partner.objects.filter(code="x1").exists()


def test_an_api_key_created_in_the_admin_is_shown_once_and_works_until_revoked(admin_client, partner):
    page = admin_client.post(
        reverse("admin:partners_partner_changelist"), {"action": "api_key_create", "_selected_action": [partner.pk]}
    ).content.decode()
    (key,) = re.findall(r"punto_[0-9a-f]{12}_[\w-]+", page)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    assert client.get("/api/v1/tables/").status_code == 200
    api_key = PartnerApiKey.objects.get(prefix=key.split("_")[1])
    listing = admin_client.get(reverse("admin:partners_partnerapikey_change", args=[api_key.pk])).content.decode()
    assert key.split("_", 2)[2] not in listing and api_key.secret_hash not in listing
    admin_client.post(
        reverse("admin:partners_partnerapikey_changelist"), {"action": "revoke", "_selected_action": [api_key.pk]}
    )
    assert client.get("/api/v1/tables/").status_code == 401


def test_a_staff_member_without_the_permission_cannot_create_keys(client, partner):
    staff_login(client, UserFactory(is_staff=True))
    response = client.post(
        reverse("admin:partners_partner_changelist"), {"action": "api_key_create", "_selected_action": [partner.pk]}
    )
    assert response.status_code == 403
    assert not PartnerApiKey.objects.exists()


def test_the_webhook_secret_is_never_shown_in_the_admin(admin_client, partner):
    created = webhooks.webhook_endpoint_create(partner=partner, url="https://partner.example/hooks")
    endpoint = created.endpoint
    page = admin_client.get(reverse("admin:partners_webhookendpoint_change", args=[endpoint.pk])).content.decode()
    assert "https://partner.example/hooks" in page
    assert created.secret not in page and endpoint.secret_encrypted not in page


def test_the_wallet_is_set_in_the_admin_with_a_write_only_secret(admin_client):
    from kernel.encryption import decrypt

    partner = Partner.objects.create(code="umbrella", name="Umbrella")
    change = reverse("admin:partners_partner_change", args=[partner.pk])
    form = {"name": "Umbrella", "is_active": "on", "currency": "EUR", "wallet_mode": "seamless"}
    refused = admin_client.post(change, {**form, "wallet_url": "https://wallet.umbrella.example/punto"})
    assert refused.status_code == 200 and b"needs its URL and its secret" in refused.content
    short = admin_client.post(change, {**form, "wallet_url": "https://w.example/p", "new_wallet_secret": "short"})
    assert short.status_code == 200
    partner.refresh_from_db()
    assert (partner.wallet_mode, partner.wallet_secret_encrypted) == ("transfer", "")
    secret = "a-long-enough-wallet-secret-42"
    saved = admin_client.post(
        change, {**form, "wallet_url": "https://wallet.umbrella.example/punto", "new_wallet_secret": secret}
    )
    assert saved.status_code == 302
    partner.refresh_from_db()
    assert partner.wallet_mode == "seamless" and decrypt(partner.wallet_secret_encrypted) == secret
    audit = AuditLog.objects.get(action="partner_wallet_set", object_id=str(partner.pk))
    assert audit.after["secret_changed"] is True and secret not in str(audit.after)
    assert secret.encode() not in admin_client.get(change).content


def test_a_partners_currency_changes_in_the_admin_only_until_money_has_moved(admin_client):
    from tests.partners.conftest import partner_make, player_make

    partner = partner_make("wayne")
    change = reverse("admin:partners_partner_change", args=[partner.pk])
    form = {"name": "Wayne", "is_active": "on", "wallet_mode": "transfer"}
    assert admin_client.post(change, {**form, "currency": "USD"}).status_code == 302
    partner.refresh_from_db()
    assert partner.currency == "USD"
    player_make(partner, "w-1", "10.00")  # money moves in USD
    refused = admin_client.post(change, {**form, "currency": "GBP"})
    assert refused.status_code == 200 and b"can no longer change" in refused.content
    partner.refresh_from_db()
    assert partner.currency == "USD"
    assert admin_client.post(change, {**form, "currency": "JPY"}).status_code == 200  # no cents: refused
