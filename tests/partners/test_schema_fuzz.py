"""Property-based fuzzing of the OpenAPI schema with schemathesis, in process through Django's WSGI handler.

Every operation gets valid and invalid requests (bodies, parameters, headers, other methods) as a
partner with a valid key, mostly naming its real player, table, shoe and rounds: no answer may be a
5xx, every answer must match the schema (status code, content type, headers, body), and invalid
input must be refused. Bounded (examples per operation, a fixed seed) to run in CI in well under a minute.
"""

from __future__ import annotations

import zlib

import pytest
import schemathesis
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.core.parameters import ParameterLocation
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from casino.lifecycle.settlement import coup_settle
from partners import services as partner_services
from partners import webhooks
from tests.factories import CoupFactory, TableFactory, coup_deal_and_resolve
from tests.partners.conftest import partner_make, player_make

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    negative_data_rejection,
]
EXAMPLES_PER_OPERATION = 40
CONFIG = schemathesis.Config.from_dict(
    {
        "seed": 20261121,
        "generation": {
            "max-examples": EXAMPLES_PER_OPERATION,
            "with-security-parameters": False,
            "exclude-header-characters": "\r\n",
        },
    }
)
# What exists while the operations are fuzzed (made by the `api_key` fixture): constants, as the
# explicit examples are drawn at collection, before any fixture runs.
PLAYED_ROUND, OPEN_ROUND = "PB1-FUZZ000001", "PB1-FUZZ000002"
KNOWN = {
    "path": {"player_id": "p-1", "code": "pb1", "number": 1, "round_id": PLAYED_ROUND},
    "body": {"player_id": "p-1", "table": "pb1", "round_id": OPEN_ROUND},
}

schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", WSGIHandler(), config=CONFIG)


@pytest.fixture
def same_connection():
    """Django's WSGI handler closes old connections around each request: not the test's (and its transaction)."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def api_key(db, same_connection) -> str:
    """A partner's key, and its world: a funded player, a table taking bets, a played round, a webhook."""
    partner = partner_make("fuzz", rate_limit="100000/min")
    player_make(partner, KNOWN["path"]["player_id"])
    table = TableFactory(code=KNOWN["path"]["code"])
    played = coup_deal_and_resolve(CoupFactory(table=table, round_id=PLAYED_ROUND), "9S 2H KD 3C")
    coup_settle(coup_id=played.pk)
    CoupFactory(table=table, round_id=OPEN_ROUND)
    webhooks.webhook_endpoint_create(partner=partner, url="https://partner.example/hooks")
    return partner_services.partner_api_key_create(partner=partner).key


def with_known_ids(case) -> None:
    """Two cases in three name things that exist, so the code past the lookups runs. Never in a part
    generated invalid on purpose (negative mode): it must stay invalid."""
    for location, container in ((ParameterLocation.PATH, "path_parameters"), (ParameterLocation.BODY, "body")):
        generated = getattr(case, container)
        if not isinstance(generated, dict) or case.meta.is_negative_at(location):
            continue
        if zlib.crc32(repr(sorted(generated.items(), key=str)).encode()) % 3:
            known = KNOWN[location.value]
            setattr(case, container, {**generated, **{name: known[name] for name in generated if name in known}})


@schema.parametrize()
@settings(deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
def test_no_5xx_and_every_answer_matches_the_schema(case, api_key):
    with_known_ids(case)
    case.call_and_validate(checks=CHECKS, headers={"Authorization": f"Bearer {api_key}"})
