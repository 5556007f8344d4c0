"""Hostile input everywhere it enters: the partner API, the bet endpoints, the admin and console forms and
the table's WebSocket. Each gets a 4xx (or the form again, with its error), never a 500, and changes nothing."""

from __future__ import annotations

import json
import uuid

import pytest
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.core.cache import cache
from django.test import Client
from django.urls import reverse
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from casino.asgi import application
from tests.security.conftest import DEALER_ROLE, PIT_BOSS_ROLE, PLAYER, SUPERUSER, database_state

pytestmark = pytest.mark.django_db

HUGE_AND_STRANGE_NUMBERS = [
    "1e400",
    "-1e400",
    "1e-400",
    "NaN",
    "nan",
    "Infinity",
    "-Infinity",
    "-0",
    "-0.00",
    "0",
    "0.00",
    "-5",
    "0.001",
    "10.005",
    "1" + "0" * 30,
    "9" * 5000,
    "0x10",
    "1_000",
    "１０",
    "٣",
    "+10",
    "10.",
    ".5",
    "",
    " ",
]
JSON_NUMBERS = ["1e400", "-1e400", "NaN", "Infinity", "-0", "1" + "0" * 30, "9" * 5000, "10.5", "-5", "0", "1.001"]
HOSTILE_TEXT = [
    "'; DROP TABLE wagering_bet; --",
    '" OR 1=1 --',
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "p-1\u202egnp.exe",  # right-to-left override
    "p\u200b-1",  # zero-width space
    "p-1\x00",  # NUL byte
    "p-1\n",
    "р-1",  # Cyrillic р, a homoglyph of p
    "../../etc/passwd",
    "A" * 10_000,
]
HOMOGLYPH_BET_TYPES = ["bаnker", "PLAYER", "player ", "play\u200ber", "ｐｌａｙｅｒ", "player\x00", "__class__"]
JUNK_BODIES = ["[]", "null", '"x"', "1", "{", '{"bets": {"player": {"$gt": 1}}}', "[" * 5000 + "]" * 5000]


def refused(response, *statuses: int) -> dict:
    assert response.status_code in (statuses or range(400, 500)), (response.status_code, response.content[:300])
    return response.json()["error"]


# --- The partner API --------------------------------------------------------------------------------


@pytest.fixture
def api(floor_state):
    return Client(HTTP_AUTHORIZATION=f"Bearer {floor_state.api_key.key}")


def api_post(api, path: str, body: object, *, raw: str | bytes | None = None):
    data = raw if raw is not None else json.dumps(body)
    return api.post(path, data, content_type="application/json", HTTP_IDEMPOTENCY_KEY=uuid.uuid4().hex)


@pytest.mark.parametrize("text", HOSTILE_TEXT)
def test_api_player_ids_and_table_codes_refuse_hostile_text(api, text):
    before = database_state()
    assert refused(api_post(api, "/api/v1/players/", {"player_id": text}), 400)["code"] in (
        "invalid_request",
        "invalid_player_id",
    )
    body = {"table": text, "bets": {"banker": "5.00"}, "round_id": text}
    refused(api_post(api, "/api/v1/players/p-1/bets/", body), 400, 404)
    assert database_state() == before


@pytest.mark.parametrize("amount", [*HUGE_AND_STRANGE_NUMBERS, *HOSTILE_TEXT])
def test_api_amounts_refuse_anything_but_a_positive_decimal_string(api, amount):
    before = database_state()
    for path in ("/api/v1/players/p-1/deposits/", "/api/v1/players/p-1/withdrawals/"):
        assert refused(api_post(api, path, {"amount": amount}), 400)["code"] == "invalid_request"
    refused(api_post(api, "/api/v1/players/p-1/bets/", {"table": "pb1", "bets": {"banker": amount}}), 400)
    assert database_state() == before


@pytest.mark.parametrize("number", JSON_NUMBERS)
def test_api_json_numbers_are_refused_as_amounts(api, number):
    before = database_state()
    refused(api_post(api, "/api/v1/players/p-1/deposits/", None, raw=f'{{"amount": {number}}}'), 400)
    assert database_state() == before


@pytest.mark.parametrize("raw", [*JUNK_BODIES, b'{"amount": "\xff\xfe"}'])
def test_api_malformed_bodies_are_400(api, raw):
    before = database_state()
    assert refused(api_post(api, "/api/v1/players/p-1/deposits/", None, raw=raw), 400)["message"]
    assert database_state() == before


@pytest.mark.parametrize("bet_type", HOMOGLYPH_BET_TYPES)
def test_api_bet_types_are_exact(api, bet_type):
    before = database_state()
    refused(api_post(api, "/api/v1/players/p-1/bets/", {"table": "pb1", "bets": {bet_type: "5.00"}}), 400)
    assert database_state() == before


def test_api_an_oversize_body_is_413_and_not_read_whole(api):
    before = database_state()
    padding = "x" * settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    error = refused(api_post(api, "/api/v1/players/", {"player_id": "p-9", "padding": padding}), 413)
    assert error["code"] == "body_too_large" and str(settings.DATA_UPLOAD_MAX_MEMORY_SIZE) in error["message"]
    assert database_state() == before


# --- The players' bet endpoints -----------------------------------------------------------------------


@pytest.fixture
def player(client_as):
    return client_as(PLAYER)


def bet(player, raw: str | bytes):
    return player.post("/tables/pb1/bets/", raw, content_type="application/json")


@pytest.mark.parametrize("amount", HUGE_AND_STRANGE_NUMBERS + HOSTILE_TEXT)
def test_bet_endpoint_amounts_as_strings(player, amount):
    before = database_state()
    error = refused(bet(player, json.dumps({"bets": {"banker": amount}})), 400)
    assert error["code"] in ("invalid_amount", "bad_request"), error  # bad_request: a body over 4 kB
    assert database_state() == before


@pytest.mark.parametrize("number", JSON_NUMBERS)
def test_bet_endpoint_amounts_as_json_numbers(player, number):
    before = database_state()
    error = refused(bet(player, f'{{"bets": {{"banker": {number}}}}}'), 400)
    assert error["code"] in ("invalid_amount", "bad_json", "bad_request", "below_minimum"), error
    assert database_state() == before


@pytest.mark.parametrize("bet_type", HOMOGLYPH_BET_TYPES + HOSTILE_TEXT)
def test_bet_endpoint_bet_types_are_exact(player, bet_type):
    before = database_state()
    refused(bet(player, json.dumps({"bets": {bet_type: "50.00"}})), 400)
    assert database_state() == before


@pytest.mark.parametrize("round_id", [*HOSTILE_TEXT, 12, None, [], {"$ne": ""}])
def test_bet_endpoint_round_ids(player, round_id):
    before = database_state()
    response = bet(player, json.dumps({"bets": {"banker": "50.00"}, "round_id": round_id}))
    if round_id is None:  # no round named: the live one
        assert response.status_code == 200
        return
    refused(response, 400, 409)
    assert database_state() == before


@pytest.mark.parametrize("raw", [*JUNK_BODIES, "x" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1)])
def test_bet_endpoint_malformed_and_oversize_bodies(player, raw):
    before = database_state()
    refused(bet(player, raw), 400)
    if not raw.startswith('{"'):  # a JSON object is a body the other actions take (they read no bets)
        for action in ("undo", "remove", "rebet"):
            refused(player.post(f"/tables/pb1/bets/{action}/", raw, content_type="application/json"), 400)
    assert database_state() == before


@given(
    bets=st.dictionaries(
        st.one_of(st.sampled_from(["player", "banker", "tie"]), st.text(max_size=8)),
        st.one_of(st.text(max_size=12), st.integers(), st.floats(), st.none(), st.booleans(), st.lists(st.integers())),
        max_size=4,
    )
)
@hypothesis_settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_bet_endpoint_never_fails_with_a_500_and_a_refusal_changes_nothing(player, bets):
    before = database_state()
    response = bet(player, json.dumps({"bets": bets}))
    assert response.status_code in (200, 400, 409), response.content
    if response.status_code != 200:
        assert response.json()["error"]["message"]
        assert database_state() == before


# --- Admin and console forms ----------------------------------------------------------------------------


def form_errors(response) -> str:
    assert response.status_code == 200, response.status_code  # the form again, with what is wrong
    return response.content.decode()


@pytest.mark.parametrize("amount", HUGE_AND_STRANGE_NUMBERS)
def test_admin_money_move_refuses_strange_amounts(floor_state, client_as, amount):
    root = client_as(SUPERUSER)
    url = reverse("admin:wagering_account_move_money", args=[floor_state.users[PLAYER].wallet.pk])
    before = database_state()
    form = {"operation": "deposit", "amount": amount, "reason": "cage", "idempotency_key": uuid.uuid4().hex}
    assert "errorlist" in form_errors(root.post(url, form))
    assert database_state() == before


@pytest.mark.parametrize(
    "form",
    [
        {"count": "9" * 5000, "reason": "x"},
        {"count": "-1", "reason": "x"},
        {"count": "1e3", "reason": "x"},
        {"count": "NaN", "reason": "x"},
        {"count": "1", "reason": "\x00"},
        {"count": "1", "reason": "   "},
    ],
)
def test_admin_action_forms_refuse_strange_input(floor_state, client_as, form):
    boss = client_as(PIT_BOSS_ROLE)
    before = database_state()
    data = {"action": "order_no_bet_coups", "_selected_action": [floor_state.open_table.pk], "confirmed": "yes"}
    assert "errorlist" in form_errors(boss.post(reverse("admin:tables_table_changelist"), {**data, **form}))
    assert database_state() == before


@pytest.mark.parametrize("reason", [text for text in HOSTILE_TEXT if "\x00" not in text])
def test_admin_reasons_are_kept_as_text_and_shown_escaped(floor_state, client_as, reason):
    boss = client_as(PIT_BOSS_ROLE)
    data = {"action": "close_tables", "_selected_action": [floor_state.open_table.pk], "confirmed": "yes"}
    assert boss.post(reverse("admin:tables_table_changelist"), {**data, "reason": reason}).status_code == 302
    log = boss.get(reverse("admin:tables_auditlog_changelist")).content.decode()
    assert "<script>alert(1)</script>" not in log and "<img src=x" not in log


@pytest.mark.parametrize(
    ("step", "form"),
    [
        ("shoe_start", {"shuffle_method": "'; DROP TABLE tables_shoe; --", "seal_number": "", "burn_card": ""}),
        ("shoe_start", {"shuffle_method": "table", "seal_number": "A" * 5000, "burn_card": ""}),
        ("shoe_start", {"shuffle_method": "table", "seal_number": "", "burn_card": "ＱＳ"}),
        ("coup_card", {"round_id": "x\x00", "card": "QS", "hand": "player"}),
        ("coup_card", {"round_id": "A" * 5000, "card": "<b>", "hand": "banker"}),
        ("coup_close_betting", {"round_id": "' OR 1=1 --"}),
        ("coup_resolve", {"round_id": "\u202e"}),
        ("patron_seat", {"seat": "11", "guest_name": "x"}),
        ("patron_seat", {"seat": "2", "guest_name": "A" * 5000}),
        ("patron_seat", {"seat": "2", "player": "' OR 1=1 --"}),
        ("patron_move", {"session": "<b>", "seat": "3"}),
        ("patron_unseat", {"session": "-1"}),
        ("seat_bet", {"session": "1", "round_id": "x", "bet_type": "banker", "stake": "1e3"}),
        ("seat_bet", {"session": "1", "round_id": "x", "bet_type": "<b>", "stake": "NaN"}),
        ("seat_buy_in", {"session": "999999", "amount": "-5"}),
        ("seat_bets_reduce", {"session": "1", "round_id": "\x00", "bet_type": "banker", "stake": "10"}),
        ("hand_shown_by_dealer", {"round_id": "x", "hand": "tie"}),
    ],
)
def test_console_forms_refuse_hostile_input(floor_state, client_as, step, form):
    dealer = client_as(DEALER_ROLE)
    before = database_state()
    response = dealer.post(reverse(f"console:{step}", kwargs={"code": "d1"}), form)
    assert response.status_code == 302
    page = dealer.get(response["Location"]).content.decode()
    assert 'class="error"' in page or "error" in page
    assert "<b>" not in page.split("<main", 1)[-1].replace("<b>Dealt", "")
    assert database_state() == before


# --- The table's WebSocket --------------------------------------------------------------------------------


@pytest.fixture
def fresh_cache():
    cache.clear()


async def connected(code: str, cookie: str | None = None) -> WebsocketCommunicator:
    headers = [(b"origin", b"http://127.0.0.1")] + ([(b"cookie", cookie.encode())] if cookie else [])
    ws = WebsocketCommunicator(application, f"/ws/tables/{code}/", headers=headers)
    assert (await ws.connect())[0]
    assert (await ws.receive_json_from())["type"] == "snapshot"
    return ws


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    "message",
    [
        "x" * 5000,
        "{" * 3000,
        "[]",
        '{"type": 1}',
        '{"type": "chat", "text": 1e400}',
        '{"type": "chat", "text": NaN}',
        '{"type": "chat", "text": "\\u202e\\u200b\\u0000"}',
        '{"type": "chat", "text": ["<script>"]}',
        '{"type": "__init__"}',
        '{"type": "' + "9" * 5000 + '"}',
    ],
)
async def test_websocket_messages_are_refused_one_by_one(settings, floor_state, fresh_cache, message):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    client = Client()
    await client.aforce_login(floor_state.users[PLAYER])
    ws = await connected("pb1", f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}")
    await ws.send_to(text_data=message)
    reply = await ws.receive_json_from()
    assert reply["type"] == "error" and reply["data"]["message"]
    await ws.send_json_to({"type": "ping"})
    assert (await ws.receive_json_from())["type"] == "pong"  # the connection lives on
    await ws.disconnect()
