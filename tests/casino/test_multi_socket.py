"""The multi-table socket (``/ws/multi/?tables=a,b``, docs/live.md): a signed-in player follows up to four tables'
every event on one socket (a closed one too: it says when it reopens) and bets at each through the table socket's
intake; anyone else, and any other choice of tables, is refused with a reason, and a player hears only their own
events."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from decimal import Decimal

import pytest
from channels.db import database_sync_to_async as in_thread
from channels.testing import WebsocketCommunicator
from django.utils import timezone

from casino.asgi import application
from kernel.live import table_event_send, user_event_send
from kernel.sockets import REFUSED
from tables.models import Table
from tests.casino.test_table_socket import books_checked, player
from tests.factories import CoupFactory, TableFactory
from wagering.models import Bet
from wagering.selectors import wallet_balance

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("in_memory_layer_and_fresh_cache")]


@pytest.fixture
def coups(db):
    """Two open tables betting, a third open one, a closed one and one dealt on demand."""
    closes = timezone.now() + timedelta(minutes=5)
    betting = [CoupFactory(table=TableFactory(code=code), betting_closes_at=closes) for code in ("ma", "mb")]
    TableFactory(code="mc")
    TableFactory(code="shut", is_open=False)
    TableFactory(code="solo", dealing_mode=Table.DealingMode.RNG)
    return betting


def socket(tables: str, cookie: bytes | None = None) -> WebsocketCommunicator:
    headers = [(b"origin", b"http://127.0.0.1")] + ([(b"cookie", cookie)] if cookie else [])
    return WebsocketCommunicator(application, f"/ws/multi/?tables={tables}", headers=headers)


async def join(tables: str, cookie: bytes) -> tuple[WebsocketCommunicator, dict[str, dict]]:
    ws = socket(tables, cookie)
    assert (await ws.connect())[0]
    snapshots = {}
    for _ in tables.split(","):
        message = await ws.receive_json_from()
        assert message["type"] == "snapshot"
        snapshots[message["table"]] = message["data"]
    return ws, snapshots


async def refused(tables: str, cookie: bytes | None) -> dict:
    """The one error a refused socket hears before it is closed with 4403."""
    ws = socket(tables, cookie)
    assert (await ws.connect())[0]
    error = await ws.receive_json_from()
    assert (await ws.receive_output())["code"] == REFUSED
    return error["data"]


async def ask(ws: WebsocketCommunicator, message: dict) -> dict:
    await ws.send_json_to(message)
    while True:
        reply = await ws.receive_json_from(timeout=5)
        if reply["type"] in ("bet_accepted", "bet_rejected"):
            return reply


async def test_a_player_follows_their_tables_every_event_and_no_other_tables(coups):
    _, cookie = await in_thread(player)("ann")
    ws, snapshots = await join("ma,mb", cookie)
    assert list(snapshots) == ["ma", "mb"]
    assert snapshots["ma"]["coup"]["round_id"] == coups[0].round_id
    assert snapshots["ma"]["bet_totals"]["totals"] == {} and "session_started_at" in snapshots["ma"]["protection"]
    await asyncio.to_thread(table_event_send, table_code="mc", event_type="chat", data={"text": "not followed"})
    await asyncio.to_thread(table_event_send, table_code="mb", event_type="chat", data={"text": "hi"})
    event = await ws.receive_json_from()  # a table page's event the lobby never forwards, and not mc's
    assert (event["type"], event["table"], event["data"]) == ("chat", "mb", {"text": "hi"})
    await ws.send_json_to({"type": "snapshot", "table": "ma"})
    again = await ws.receive_json_from()
    assert (again["type"], again["table"]) == ("snapshot", "ma")
    for message in ({"type": "snapshot", "table": "mc"}, {"type": "chat", "table": "ma", "text": "hi"}):
        await ws.send_json_to(message)
        assert (await ws.receive_json_from())["data"]["code"] in ("no_such_table", "unknown_message")
    await ws.disconnect()


async def test_bets_at_two_tables_are_accepted_through_the_intake(coups):
    user, cookie = await in_thread(player)("ann")
    ws, _ = await join("ma,mb", cookie)
    first = await ask(
        ws, {"type": "bet", "table": "ma", "request_id": "m-1", "round_id": coups[0].round_id, "bets": {"banker": "10"}}
    )
    second = await ask(
        ws, {"type": "bet", "table": "mb", "request_id": "m-2", "round_id": coups[1].round_id, "bets": {"player": "5"}}
    )
    assert (first["type"], first["table"], first["balance"], first["own_totals"]) == (
        "bet_accepted",
        "ma",
        "90.00",
        {"banker": "10.00"},
    )
    assert (second["type"], second["table"], second["balance"]) == ("bet_accepted", "mb", "85.00")
    resent = await ask(
        ws, {"type": "bet", "table": "ma", "request_id": "m-1", "round_id": coups[0].round_id, "bets": {"banker": "10"}}
    )
    assert resent == first  # idempotent by request_id, as on the table socket
    stakes = {bet.coup_id: bet.stake async for bet in Bet.objects.all()}
    assert stakes == {coups[0].pk: Decimal("10.00"), coups[1].pk: Decimal("5.00")}
    assert await in_thread(wallet_balance)(user=user) == Decimal("85.00")
    await ws.disconnect()
    await in_thread(books_checked)()


async def test_a_refused_bet_says_why_and_changes_nothing(coups):
    user, cookie = await in_thread(player)("ann")
    ws, _ = await join("ma,mb", cookie)
    bet = {"type": "bet", "request_id": "r-1", "bets": {"banker": "10"}}
    over = await ask(ws, {**bet, "table": "ma", "round_id": coups[0].round_id, "bets": {"banker": "5000"}})
    other_round = await ask(ws, {**bet, "request_id": "r-2", "table": "mb", "round_id": coups[0].round_id})
    not_followed = await ask(ws, {**bet, "request_id": "r-3", "table": "mc"})
    no_table = await ask(ws, {**bet, "request_id": "r-4"})
    answers = [(a["type"], a["table"], a["error"]["code"]) for a in (over, other_round, not_followed, no_table)]
    assert answers == [
        ("bet_rejected", "ma", "above_maximum"),
        ("bet_rejected", "mb", "round_changed"),
        ("bet_rejected", "mc", "no_such_table"),
        ("bet_rejected", None, "no_such_table"),
    ]
    assert not await Bet.objects.aexists() and await in_thread(wallet_balance)(user=user) == Decimal("100.00")
    await ws.disconnect()


@pytest.mark.parametrize(
    ("tables", "code", "table"),
    [
        ("ma,mb,mc,shut,solo", "too_many_tables", None),
        ("ma,nope", "no_such_table", "nope"),
        ("solo", "dealt_on_demand", "Table solo"),
        ("", "bad_request", None),
    ],
)
async def test_tables_it_cannot_show_are_refused_with_a_reason(coups, tables, code, table):
    _, cookie = await in_thread(player)("ann")
    error = await refused(tables, cookie)
    assert (error["code"], error["details"].get("table")) == (code, table)


async def test_a_closed_table_is_followed_and_heard_reopening(coups):
    _, cookie = await in_thread(player)("ann")
    ws, snapshots = await join("ma,shut", cookie)
    assert snapshots["shut"]["table"]["is_open"] is False and snapshots["shut"]["coup"] is None
    assert snapshots["ma"]["coup"]["round_id"] == coups[0].round_id
    await asyncio.to_thread(table_event_send, table_code="shut", event_type="table_opened", data={})
    event = await ws.receive_json_from()
    assert (event["type"], event["table"]) == ("table_opened", "shut")
    await ws.send_json_to({"type": "snapshot", "table": "shut"})
    assert (await ws.receive_json_from())["table"] == "shut"
    await ws.disconnect()


async def test_five_tables_are_refused_even_when_four_would_do(coups):
    await in_thread(lambda: [TableFactory(code=f"x{n}") for n in range(3)])()
    _, cookie = await in_thread(player)("ann")
    ws, snapshots = await join("ma,mb,mc,x0", cookie)  # four: fine
    assert len(snapshots) == 4
    await ws.disconnect()
    assert (await refused("ma,mb,mc,x0,x1", cookie))["code"] == "too_many_tables"


async def test_an_anonymous_viewer_is_refused(coups):
    assert (await refused("ma", None))["code"] == "not_signed_in"


async def test_staff_may_watch_but_not_bet(coups):
    _, cookie = await in_thread(player)("pit", is_staff=True)
    ws, _ = await join("ma", cookie)
    bet = {"type": "bet", "table": "ma", "request_id": "s-1", "round_id": coups[0].round_id, "bets": {"banker": "10"}}
    answer = await ask(ws, bet)
    assert (answer["type"], answer["error"]["code"]) == ("bet_rejected", "staff_account")
    assert not await Bet.objects.aexists()
    await ws.disconnect()


async def test_a_player_hears_their_own_events_and_never_another_players(coups):
    ann, ann_cookie = await in_thread(player)("ann")
    bob, bob_cookie = await in_thread(player)("bob")
    ann_ws, _ = await join("ma,mb", ann_cookie)
    bob_ws, _ = await join("ma,mb", bob_cookie)
    await asyncio.to_thread(user_event_send, user_id=bob.pk, event_type="wallet", data={"balance": "1.00"})
    await asyncio.to_thread(user_event_send, user_id=ann.pk, event_type="wallet", data={"balance": "2.00"})
    heard = await ann_ws.receive_json_from()
    assert (heard["type"], heard["data"], "table" in heard) == ("wallet", {"balance": "2.00"}, False)
    assert (await bob_ws.receive_json_from())["data"] == {"balance": "1.00"}
    assert await ann_ws.receive_nothing(timeout=0.2)
    assert await bob_ws.receive_nothing(timeout=0.2)
    for ws in (ann_ws, bob_ws):
        await ws.disconnect()
