"""Partners with API keys, clients that call the API as them, a table taking bets, funded players."""

from __future__ import annotations

import re
import uuid
from datetime import timedelta
from decimal import Decimal

import pytest
from django.core.cache import cache
from django.http import HttpResponse
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from partners import services as partner_services
from partners.api.throttling import PartnerRateThrottle
from partners.models import Partner, PartnerPlayer
from tests.factories import CoupFactory, TableFactory


def launch_open(browser: Client, url: str) -> HttpResponse:
    """What a browser does with a launch URL: it gets the page, whose script posts back the page's proof (that
    uses the token)."""
    page = browser.get(url)
    assert page.status_code == 200 and b'<form method="post" data-launch>' in page.content, page.status_code
    return browser.post(url, {"launch_proof": launch_proof(page)})


def launch_proof(page: HttpResponse) -> str:
    """The one-time value a launch page gives its form to post back (``casino.players.launch``)."""
    found = re.search(rb'name="launch_proof" value="([^"]+)"', page.content)
    assert found, "the launch page carries no proof"
    return found.group(1).decode()


def partner_make(code: str, **fields) -> Partner:
    partner = partner_services.partner_create(code=code, name=code.capitalize(), **fields)
    # Rate limits count in the shared cache (Redis on CI): forget an earlier run's requests for this id.
    cache.delete(PartnerRateThrottle.cache_format % {"scope": PartnerRateThrottle.scope, "ident": partner.pk})
    return partner


def client_for(partner: Partner) -> APIClient:
    client = APIClient()
    key = partner_services.partner_api_key_create(partner=partner, name="tests").key
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    return client


def player_make(partner: Partner, external_id: str = "p-1", balance: str = "1000.00") -> PartnerPlayer:
    player, _ = partner_services.partner_player_create(partner=partner, external_id=external_id)
    if Decimal(balance):
        partner_services.partner_wallet_deposit(
            partner=partner, player=player, amount=balance, idempotency_key=uuid.uuid4().hex
        )
    return player


def idempotency_key() -> dict:
    return {"HTTP_IDEMPOTENCY_KEY": uuid.uuid4().hex}


@pytest.fixture
def partner(db) -> Partner:
    return partner_make("acme")


@pytest.fixture
def api(partner) -> APIClient:
    return client_for(partner)


@pytest.fixture
def other_partner(db) -> Partner:
    return partner_make("globex")


@pytest.fixture
def other_api(other_partner) -> APIClient:
    return client_for(other_partner)


@pytest.fixture
def player(partner) -> PartnerPlayer:
    return player_make(partner)


@pytest.fixture
def table(db):
    return TableFactory(code="pb1")


@pytest.fixture
def coup(table):
    """The table's coup taking bets for five more minutes."""
    return CoupFactory(table=table, betting_closes_at=timezone.now() + timedelta(minutes=5))
