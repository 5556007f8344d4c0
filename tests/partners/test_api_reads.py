"""The partner API reads a key, its partner and a player once every PARTNER_API_CACHE_SECONDS in each process:
a key revoked or a partner disabled by another process is refused within those seconds, never later; one
partner's players are never another's; the process that revokes or disables refuses at once."""

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from kernel import ttl_cache
from partners import services as partner_services
from partners.models import Partner, PartnerApiKey, PartnerPlayer
from tests.partners.conftest import client_for, partner_make, player_make

pytestmark = pytest.mark.django_db
SECONDS = 5.0


@pytest.fixture
def clock(monkeypatch, settings):
    """The cache's clock, moved by hand."""
    settings.PARTNER_API_CACHE_SECONDS = SECONDS
    now = [1000.0]
    monkeypatch.setattr(ttl_cache, "monotonic", lambda: now[0])
    return now


def keyed(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    return client


def test_a_key_revoked_elsewhere_is_refused_once_its_seconds_are_over(clock):
    partner = partner_make("acme")
    issued = partner_services.partner_api_key_create(partner=partner)
    api = keyed(issued.key)
    assert api.get("/api/v1/tables/").status_code == 200
    PartnerApiKey.objects.filter(pk=issued.api_key.pk).update(revoked_at=timezone.now())  # another process
    clock[0] += SECONDS - 0.1
    assert api.get("/api/v1/tables/").status_code == 200  # read less than the seconds ago: as documented
    clock[0] += 0.2
    assert api.get("/api/v1/tables/").status_code == 401
    clock[0] += 3600
    assert api.get("/api/v1/tables/").status_code == 401  # a refusal is never kept: read again, refused again


def test_a_partner_disabled_elsewhere_is_refused_once_its_seconds_are_over(clock):
    partner = partner_make("acme")
    api = client_for(partner)
    assert api.get("/api/v1/tables/").status_code == 200
    Partner.objects.filter(pk=partner.pk).update(is_active=False)
    clock[0] += SECONDS + 0.01
    response = api.get("/api/v1/tables/")
    assert response.status_code == 403 and response.json()["error"]["code"] == "partner_disabled"


def test_revoked_or_disabled_here_is_refused_at_once(clock):
    partner = partner_make("acme")
    issued = partner_services.partner_api_key_create(partner=partner)
    other = client_for(partner)
    assert keyed(issued.key).get("/api/v1/tables/").status_code == 200
    assert other.get("/api/v1/tables/").status_code == 200
    partner_services.partner_api_key_revoke(api_key=issued.api_key)
    assert keyed(issued.key).get("/api/v1/tables/").status_code == 401
    partner_services.partner_update(partner=partner, changes={"is_active": False})
    assert other.get("/api/v1/tables/").status_code == 403


def test_a_partner_never_reaches_another_partners_player_read_before(clock):
    acme, globex = partner_make("acme"), partner_make("globex")
    player_make(acme, "p-1")
    assert client_for(acme).get("/api/v1/players/p-1/").status_code == 200  # read and kept for acme
    theirs = client_for(globex)
    response = theirs.get("/api/v1/players/p-1/")
    assert response.status_code == 404 and response.json()["error"]["code"] == "player_not_found"
    own = player_make(globex, "p-1", balance="7.00")
    assert theirs.get("/api/v1/players/p-1/").json()["balance"] == "7.00"  # a 404 is not kept: created, found
    assert PartnerPlayer.objects.get(partner=globex, external_id="p-1") == own


def test_a_wrong_secret_with_a_known_prefix_is_refused_even_when_the_key_was_read(clock):
    partner = partner_make("acme")
    issued = partner_services.partner_api_key_create(partner=partner)
    assert keyed(issued.key).get("/api/v1/tables/").status_code == 200
    forged = issued.key[:-4] + ("aaaa" if not issued.key.endswith("aaaa") else "bbbb")
    assert keyed(forged).get("/api/v1/tables/").status_code == 401


def test_each_request_builds_its_own_instances(clock):
    """What one request changes on its key, partner or player never reaches another's."""
    from partners.selectors.accounts import partner_api_key_find, partner_player_find

    partner = partner_make("acme")
    issued = partner_services.partner_api_key_create(partner=partner)
    player_make(partner, "p-1")
    first = partner_api_key_find(key=issued.key)
    first.partner.is_active = False
    second = partner_api_key_find(key=issued.key)
    assert second.partner.is_active and second is not first and second.partner is not first.partner
    found = partner_player_find(partner=second.partner, external_id="p-1")
    found.user.is_staff = True
    assert not partner_player_find(partner=second.partner, external_id="p-1").user.is_staff
