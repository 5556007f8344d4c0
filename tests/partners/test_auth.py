"""API keys: Bearer authentication, hashed storage, revocation, disabled partners, the key command."""

from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from rest_framework.test import APIClient

from partners import services as partner_services
from partners.identifiers import api_key_secret_hash
from partners.models import Partner, PartnerApiKey
from tables.models import AuditLog
from tests.partners.conftest import client_for


def error_code(response) -> str:
    return response.json()["error"]["code"]


def test_a_request_without_a_key_is_401_with_the_scheme_to_use(db):
    response = APIClient().get("/api/v1/tables/")
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == 'Bearer realm="api"'
    assert response.json() == {
        "error": {
            "code": "not_authenticated",
            "message": "Authentication credentials were not provided.",
            "details": {},
        }
    }


@pytest.mark.parametrize(
    "authorization",
    [
        "Bearer punto_000000000000_nothing",  # no such prefix
        "Bearer not-a-key",
        "Bearer",
        "Bearer two words",
        "Bearer caf\u00e9",
    ],
)
def test_an_unknown_or_malformed_key_is_401(partner, authorization):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=authorization.encode().decode("latin-1"))
    response = client.get("/api/v1/tables/")
    assert response.status_code == 401
    assert error_code(response) == "invalid_api_key"


def test_the_right_prefix_with_a_wrong_secret_is_401(partner):
    issued = partner_services.partner_api_key_create(partner=partner)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {issued.key[:-1]}{'A' if issued.key[-1] != 'A' else 'B'}")
    assert client.get("/api/v1/tables/").status_code == 401


def test_only_the_prefix_and_the_hash_of_the_secret_are_stored(partner):
    issued = partner_services.partner_api_key_create(partner=partner, name="production")
    scheme, prefix, secret = issued.key.split("_", 2)
    stored = PartnerApiKey.objects.get(pk=issued.api_key.pk)
    assert (scheme, stored.prefix, stored.secret_hash) == ("punto", prefix, api_key_secret_hash(secret))
    assert secret not in str(PartnerApiKey.objects.filter(pk=stored.pk).values().get())
    assert AuditLog.objects.filter(action="partner_api_key_created", object_id=str(stored.pk)).exists()


def test_a_revoked_key_is_401_and_the_partners_other_keys_still_work(partner):
    first = partner_services.partner_api_key_create(partner=partner)
    second = client_for(partner)
    partner_services.partner_api_key_revoke(api_key=first.api_key, reason="leaked")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {first.key}")
    assert client.get("/api/v1/tables/").status_code == 401
    assert second.get("/api/v1/tables/").status_code == 200
    assert AuditLog.objects.filter(action="partner_api_key_revoked", reason="leaked").exists()


def test_a_disabled_partner_is_403(partner, api):
    partner_services.partner_update(partner=partner, changes={"is_active": False})
    response = api.get("/api/v1/tables/")
    assert response.status_code == 403
    assert error_code(response) == "partner_disabled"


def test_the_command_prints_a_working_key_once(partner):
    out, err = StringIO(), StringIO()
    call_command("partner_key_create", "acme", "--name", "staging", stdout=out, stderr=err)
    key = out.getvalue().strip()
    assert key.startswith("punto_") and "shown only once" in err.getvalue() and key not in err.getvalue()
    assert PartnerApiKey.objects.get(partner=partner, name="staging").prefix == key.split("_")[1]
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    assert client.get("/api/v1/tables/").status_code == 200


def test_the_command_refuses_an_unknown_partner_unless_asked_to_create_it(db):
    with pytest.raises(CommandError, match="no partner 'initech'"):
        call_command("partner_key_create", "initech", stdout=StringIO(), stderr=StringIO())
    out = StringIO()
    call_command("partner_key_create", "initech", "--create", "Initech", stdout=out, stderr=StringIO())
    assert Partner.objects.get(code="initech").name == "Initech"
    with pytest.raises(CommandError, match="code"):
        call_command("partner_key_create", "not a slug", "--create", "X", stdout=StringIO(), stderr=StringIO())
