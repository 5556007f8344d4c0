"""Bets over the table's socket (docs/live.md): a signed-in player places, undoes, removes and rebets with
a request_id; sent again, a request is answered the same and moves nothing twice; everyone else is
refused and nothing changes."""

import uuid
from datetime import datetime, timedelta
from decimal import Decimal

import pytest
from channels.db import database_sync_to_async as in_thread
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client
from django.utils import timezone

from casino import lifecycle
from casino.asgi import application
from partners.services import partner_player_create
from partners.wallet_settings import partner_wallet_set
from tests.factories import CoupFactory, TableFactory, coup_deal_and_resolve, staff_login
from tests.partners.conftest import client_for, launch_open, partner_make
from tests.partners.fake_wallet import SECRET, FakeWallet
from wagering.checks import ledger_check, settlement_check
from wagering.models import Bet, BetBatch, BetRequest, PlayerProtection
from wagering.selectors import wallet_balance
from wagering.wallets import wallet_deposit

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("in_memory_layer_and_fresh_cache")]
D = Decimal


@pytest.fixture
def coup(db):
    return CoupFactory(table=TableFactory(code="ws1"), betting_closes_at=timezone.now() + timedelta(minutes=5))


def player(username: str, funds: str = "100.00", **fields):
    user = get_user_model().objects.create_user(username=username, **fields)
    if D(funds):
        wallet_deposit(user=user, amount=D(funds), idempotency_key=uuid.uuid4().hex)
    client = Client()
    if user.is_staff:
        staff_login(client, user)  # with a verified device: else the socket takes them for anonymous
    else:
        client.force_login(user)
    return user, f"sessionid={client.cookies['sessionid'].value}".encode()


async def join(cookie: bytes | None = None, code: str = "ws1") -> WebsocketCommunicator:
    headers = [(b"origin", b"http://127.0.0.1")] + ([(b"cookie", cookie)] if cookie else [])
    ws = WebsocketCommunicator(application, f"/ws/tables/{code}/", headers=headers)
    connected, _ = await ws.connect()
    assert connected
    assert (await ws.receive_json_from())["type"] == "snapshot"
    return ws


async def ask(ws: WebsocketCommunicator, message: dict) -> dict:
    """Send a request and return its answer (live events in between are skipped)."""
    await ws.send_json_to(message)
    while True:
        reply = await ws.receive_json_from(timeout=5)
        if reply["type"] in ("bet_accepted", "bet_rejected"):
            return reply


def books_checked() -> None:
    assert ledger_check().ok
    assert settlement_check(finished=False).problems == []


async def test_a_bet_is_placed_once_however_often_it_is_sent(coup):
    user, cookie = await in_thread(player)("ann")
    ws = await join(cookie)
    request_id = str(uuid.uuid4())
    bet = {"type": "bet", "request_id": request_id, "round_id": coup.round_id, "bets": {"banker": "25.00", "tie": 5}}
    answer = await ask(ws, bet)
    assert answer == {
        "type": "bet_accepted",
        "request_id": request_id,
        "action": "bet",
        "round_id": coup.round_id,
        "bets": {"banker": "25.00", "tie": "5.00"},
        "balance": "70.00",
        "own_totals": {"banker": "25.00", "tie": "5.00"},
        "currency": "EUR",
    }
    await ws.disconnect()
    again = await join(cookie)  # a reconnect sends it again
    assert await ask(again, bet) == answer
    assert await BetBatch.objects.acount() == 1 and await Bet.objects.acount() == 2
    assert await in_thread(wallet_balance)(user=user) == D("70.00")
    conflict = await ask(again, {**bet, "bets": {"banker": "50.00"}})
    assert (conflict["type"], conflict["error"]["code"]) == ("bet_rejected", "idempotency_conflict")
    await again.disconnect()
    await in_thread(books_checked)()


async def test_a_refusal_is_answered_again_and_changes_nothing(coup):
    user, cookie = await in_thread(player)("ann")
    ws = await join(cookie)
    bet = {"type": "bet", "request_id": "r-1", "round_id": coup.round_id, "bets": {"banker": "5000"}}
    refused = await ask(ws, bet)
    assert (refused["type"], refused["request_id"], refused["error"]["code"]) == (
        "bet_rejected",
        "r-1",
        "above_maximum",
    )
    assert await ask(ws, bet) == refused
    assert await in_thread(wallet_balance)(user=user) == D("100.00") and not await Bet.objects.aexists()
    await ws.disconnect()
    await in_thread(books_checked)()


async def test_undo_remove_and_rebet_over_the_socket(coup):
    _, cookie = await in_thread(player)("ann", "500.00")
    ws = await join(cookie)
    place = {"type": "bet", "round_id": coup.round_id}
    await ask(ws, {**place, "request_id": "b-1", "bets": {"player": "10"}})
    await ask(ws, {**place, "request_id": "b-2", "bets": {"player": "20", "player_pair": "5"}})
    undone = await ask(ws, {"type": "undo", "request_id": "u-1", "round_id": coup.round_id})
    assert (undone["action"], undone["bets"], undone["own_totals"], undone["balance"]) == (
        "undo",
        {"player": "20.00", "player_pair": "5.00"},
        {"player": "10.00"},
        "490.00",
    )
    removed = await ask(ws, {"type": "remove", "request_id": "x-1"})
    assert (removed["bets"], removed["own_totals"], removed["balance"]) == ({"player": "10.00"}, {}, "500.00")
    nothing = await ask(ws, {"type": "remove", "request_id": "x-2"})
    assert nothing["error"]["code"] == "no_bets"
    await ask(ws, {**place, "request_id": "b-3", "bets": {"banker": "30"}})
    await in_thread(coup_deal_and_resolve)(coup, "9S 2H KD 3C")
    next_coup = await in_thread(CoupFactory)(table=coup.table, betting_closes_at=timezone.now() + timedelta(minutes=5))
    rebet = await ask(ws, {"type": "rebet", "request_id": "r-1", "multiplier": 2, "round_id": next_coup.round_id})
    assert (rebet["round_id"], rebet["bets"], rebet["balance"]) == (next_coup.round_id, {"banker": "60.00"}, "410.00")
    await ws.disconnect()


@pytest.mark.parametrize(
    ("who", "message", "code"),
    [
        ("anonymous", {"bets": {"banker": "10"}}, "not_signed_in"),
        ("staff", {"bets": {"banker": "10"}}, "staff_account"),
        ("player", {"bets": {"banker": "10"}, "request_id": None}, "invalid_request_id"),
        ("player", {"bets": {"banker": "10"}, "request_id": "x" * 65}, "invalid_request_id"),
        ("player", {"bets": {"banker": "10"}, "round_id": "WS1-OLD"}, "round_changed"),
        ("player", {"bets": ["banker", "10"]}, "bad_bets"),
        ("player", {"bets": {"banker": "NaN"}}, "invalid_amount"),
        ("player", {"bets": {"banker": 12.345}}, "invalid_amount"),
        ("player", {"bets": {"dragon": "10"}}, "unknown_bet_type"),
        ("broke", {"bets": {"banker": "10"}}, "insufficient_funds"),
    ],
)
async def test_every_bad_request_is_refused_and_changes_nothing(coup, who, message, code):
    signed_in = {"staff": ("pit", "0", True), "player": ("ann", "100.00", False), "broke": ("bob", "0", False)}
    cookie = None
    if who in signed_in:
        username, funds, is_staff = signed_in[who]
        _, cookie = await in_thread(player)(username, funds, is_staff=is_staff)
    ws = await join(cookie)
    answer = await ask(ws, {"type": "bet", "request_id": "q-1", **message})
    assert (answer["type"], answer["error"]["code"]) == ("bet_rejected", code), answer
    assert answer["error"]["message"]
    assert not await Bet.objects.aexists()
    await ws.disconnect()
    await in_thread(books_checked)()


async def test_a_request_id_is_the_players_own(coup):
    """Another player sending the same request_id places their own bet: nobody learns another's answer."""
    _, ann = await in_thread(player)("ann")
    bob_user, bob = await in_thread(player)("bob")
    first, second = await join(ann), await join(bob)
    bet = {"type": "bet", "request_id": "same", "round_id": coup.round_id}
    await ask(first, {**bet, "bets": {"banker": "40"}})
    answer = await ask(second, {**bet, "bets": {"player": "15"}})
    assert (answer["bets"], answer["balance"]) == ({"player": "15.00"}, "85.00")
    assert await BetRequest.objects.filter(key="same").acount() == 2
    assert await in_thread(wallet_balance)(user=bob_user) == D("85.00")
    for ws in (first, second):
        await ws.disconnect()


async def events_of(ws: WebsocketCommunicator, event_type: str) -> list[dict]:
    """The ``event_type`` events the socket receives within half a second (others skipped)."""
    events = []
    while not await ws.receive_nothing(timeout=0.5):
        event = await ws.receive_json_from()
        if event["type"] == event_type:
            events.append(event["data"])
    return events


@pytest.mark.parametrize("group_commit", [False, True])
async def test_the_new_balance_and_bets_go_to_the_players_other_sockets_not_back_to_the_answered_one(
    coup, settings, group_commit
):
    """The answer carries the balance and the player's bets: no wallet event repeats them to the socket that
    asked, while the player's other tab (another device) learns both from its wallet event."""
    settings.BET_INTAKE_GROUP_COMMIT = group_commit
    _, cookie = await in_thread(player)("ann")
    alone = await join(cookie)
    bet = {"type": "bet", "round_id": coup.round_id, "bets": {"banker": "10"}}
    assert (await ask(alone, {**bet, "request_id": "w-1"}))["balance"] == "90.00"
    assert await events_of(alone, "wallet") == []
    other_tab = await join(cookie)
    assert (await ask(alone, {**bet, "request_id": "w-2", "bets": {"tie": "10"}}))["balance"] == "80.00"
    both = {"banker": "10.00", "tie": "10.00"}
    assert await events_of(other_tab, "wallet") == [{"balance": "80.00", "round_id": coup.round_id, "bets": both}]
    undone = await ask(other_tab, {"type": "undo", "request_id": "w-3", "round_id": coup.round_id})
    assert (undone.get("balance"), undone.get("own_totals")) == ("90.00", {"banker": "10.00"}), undone
    # with another socket open, the group's event reaches the answered one too: the same as its answer
    assert await events_of(alone, "wallet") == [
        {"balance": "80.00", "round_id": coup.round_id, "bets": both},
        {"balance": "90.00", "round_id": coup.round_id, "bets": {"banker": "10.00"}},
    ]
    for ws in (alone, other_tab):
        await ws.disconnect()


async def test_a_flood_of_bet_requests_is_refused_past_the_sockets_allowance(coup, monkeypatch):
    from casino.players import player_socket
    from casino.players.intake import BET_REQUEST_BURST

    monkeypatch.setattr(player_socket, "BET_REQUESTS_PER_SECOND", 0.001)  # no refill while the test runs
    user, cookie = await in_thread(player)("ann", "1000.00")
    ws = await join(cookie)
    answers = [
        await ask(ws, {"type": "bet", "request_id": f"f-{n}", "round_id": coup.round_id, "bets": {"player": "1"}})
        for n in range(BET_REQUEST_BURST + 5)
    ]
    codes = [answer["error"]["code"] if answer["type"] == "bet_rejected" else "ok" for answer in answers]
    assert codes == ["ok"] * BET_REQUEST_BURST + ["too_fast"] * 5
    assert await in_thread(wallet_balance)(user=user) == D("1000.00") - codes.count("ok")
    await ws.disconnect()


async def test_bet_requests_are_forgotten_after_their_retention(coup, settings):
    from datetime import timedelta as hours_ago

    from wagering import tasks

    settings.BET_REQUEST_RETENTION_HOURS = 48
    _, cookie = await in_thread(player)("ann")
    ws = await join(cookie)
    for key in ("old", "recent"):
        await ask(ws, {"type": "bet", "request_id": key, "round_id": coup.round_id, "bets": {"player": "1"}})
    await BetRequest.objects.filter(key="old").aupdate(created_at=timezone.now() - hours_ago(hours=49))
    assert await in_thread(tasks.bet_requests_prune)() == 1
    assert [key async for key in BetRequest.objects.values_list("key", flat=True)] == ["recent"]
    assert await Bet.objects.acount() == 2  # the bets stay: only the requests' answers are forgotten
    again = await ask(ws, {"type": "bet", "request_id": "old", "round_id": coup.round_id, "bets": {"player": "1"}})
    assert again["type"] == "bet_accepted" and again["balance"] == "97.00"  # a new request now
    await ws.disconnect()


async def snapshot_of(cookie: bytes | None = None, code: str = "ws1") -> dict:
    headers = [(b"origin", b"http://127.0.0.1")] + ([(b"cookie", cookie)] if cookie else [])
    ws = WebsocketCommunicator(application, f"/ws/tables/{code}/", headers=headers)
    assert (await ws.connect())[0]
    snapshot = await ws.receive_json_from()
    await ws.disconnect()
    return snapshot["data"]


async def test_a_socket_opened_mid_window_gets_the_tables_stakes_so_far_in_its_snapshot(coup):
    _, ann = await in_thread(player)("ann")
    _, bob = await in_thread(player)("bob")
    ws = await join(ann)
    bet = {"type": "bet", "request_id": str(uuid.uuid4()), "round_id": coup.round_id}
    assert (await ask(ws, {**bet, "bets": {"banker": "25.00", "tie": "5.00"}}))["type"] == "bet_accepted"
    await ws.disconnect()
    expected = {
        "round_id": coup.round_id,
        "currency": "EUR",
        "totals": {"banker": "25.00", "tie": "5.00"},
        "bettors": {"banker": 1, "tie": 1},
    }
    assert (await snapshot_of(bob))["bet_totals"] == expected
    assert (await snapshot_of())["bet_totals"] == expected  # anonymous viewers: the house's currency
    await in_thread(TableFactory)(code="ws2")
    assert "bet_totals" not in await snapshot_of(bob, code="ws2")  # no coup, no totals


async def test_the_snapshot_tells_only_the_player_who_shows_a_hand_that_they_do(coup):
    _, ann = await in_thread(player)("ann")
    _, bob = await in_thread(player)("bob")
    ws = await join(ann)
    bet = {"type": "bet", "request_id": str(uuid.uuid4()), "round_id": coup.round_id, "bets": {"banker": "25.00"}}
    assert (await ask(ws, bet))["type"] == "bet_accepted"
    await ws.disconnect()
    assert (await snapshot_of(ann))["you_show"] == []  # betting: nobody shows yet
    await in_thread(lifecycle.coup_close_betting)(coup=coup)
    assert (await snapshot_of(ann))["you_show"] == ["banker"]
    assert (await snapshot_of(bob))["you_show"] == []
    assert (await snapshot_of())["you_show"] == []
    assert (await snapshot_of())["coup"]["shown_by"] == {"player": "dealer", "banker": "an***"}


async def test_the_snapshot_carries_the_players_own_protection_only(coup):
    ann_user, ann = await in_thread(player)("ann")  # signed in: a session with the market's reality checks
    _, bob = await in_thread(player)("bob")
    until = timezone.now() + timedelta(hours=24)
    await PlayerProtection.objects.filter(user=ann_user).aupdate(timed_out_until=until)
    mine = (await snapshot_of(ann))["protection"]
    assert mine["timed_out_until"] == until.isoformat() and mine["reality_check_every"] == 60
    assert (await snapshot_of(bob))["protection"]["timed_out_until"] is None
    assert "protection" not in await snapshot_of()  # anonymous viewers
    _, staff = await in_thread(player)("pit", funds="0", is_staff=True)
    assert "protection" not in await snapshot_of(staff)


async def test_the_snapshot_carries_the_servers_time_as_it_is_sent_not_as_the_table_was_read(coup):
    """The page's betting timer sets its clock by it (countdown.js): a time from the shared read, seconds old
    between events, would put the deadline that much later for a page opened then."""
    before = timezone.now()
    first = (await snapshot_of())["server_now"]
    between = timezone.now()
    second = (await snapshot_of())["server_now"]
    assert before <= datetime.fromisoformat(first) <= between <= datetime.fromisoformat(second) <= timezone.now()


async def test_sockets_connecting_between_events_share_the_table_its_live_coup_and_its_stakes(coup):
    """A reconnect storm's cost: the table (found by its code), its snapshot, its live coup and the stakes on it
    are read once for the process's sockets (until the table's next event), each socket reading only its
    viewer's part."""
    _, ann = await in_thread(player)("ann")
    _, bob = await in_thread(player)("bob")
    _, cid = await in_thread(player)("cid")
    ws = await join(ann)  # reads the table for the process's sockets
    coup_reads: list[str] = []

    def counted(execute, sql, params, many, context):
        if any(f'FROM "{table}"' in sql for table in ("tables_table", "tables_coup", "wagering_coupstaketotal")):
            coup_reads.append(sql)
        return execute(sql, params, many, context)

    # The sockets' database work runs in the one thread that ``in_thread`` runs in, on its connection.
    await in_thread(lambda: connection.execute_wrappers.append(counted))()
    try:
        for cookie in (bob, cid):
            snapshot = await snapshot_of(cookie)
            assert snapshot["coup"]["round_id"] == snapshot["bet_totals"]["round_id"] == coup.round_id
    finally:
        await in_thread(lambda: connection.execute_wrappers.remove(counted))()
    await ws.disconnect()
    assert coup_reads == []


def seamless_player_launched(wallet_url: str) -> bytes:
    """A partner's player whose money the partner's seamless wallet holds, their session opened by a launch."""
    partner = partner_wallet_set(
        partner=partner_make("acme"), mode="seamless", wallet_url=wallet_url, wallet_secret=SECRET
    )
    partner_player_create(partner=partner, external_id="p-1")
    launch = client_for(partner).post("/api/v1/sessions/", {"player_id": "p-1", "currency": "EUR", "table": "ws1"})
    assert launch.status_code == 201, launch.content
    browser = Client()
    launch_open(browser, launch.json()["launch_url"])
    return f"sessionid={browser.cookies['sessionid'].value}".encode()


async def test_a_launched_seamless_players_socket_bet_is_debited_from_the_partners_wallet(coup):
    with FakeWallet({"p-1": "100.00"}) as wallet:
        cookie = await in_thread(seamless_player_launched)(wallet.url)
        ws = await join(cookie)
        bet = {"type": "bet", "request_id": str(uuid.uuid4()), "round_id": coup.round_id, "bets": {"player": "30"}}
        answer = await ask(ws, bet)
        await ws.disconnect()
        assert (answer["type"], answer["balance"]) == ("bet_accepted", "70.00")
        assert wallet.balances["p-1"] == D("70.00")  # the partner's wallet debited, not a house wallet
