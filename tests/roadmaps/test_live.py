"""The roads live: in the table socket's snapshot on connect and among the events of a whole coup; the
``roadmap`` command on a shoe of the database."""

import json

import pytest
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model
from django.utils import timezone

from casino.asgi import application
from casino.lifecycle.loop import table_step
from tables.models import Coup
from tables.services import table_create, table_open

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def in_memory_layer(settings):
    """Consumer tests run on the in-memory layer; the cross-process test uses Redis."""
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


@pytest.fixture
def table(db):
    boss = get_user_model().objects.create_user(username="boss")
    table = table_create(code="live1", name="Live 1", actor=boss, betting_seconds=5)
    return table_open(table=table, actor=boss)


def connect(code):
    return WebsocketCommunicator(application, f"/ws/tables/{code}/", headers=[(b"origin", b"http://127.0.0.1")])


async def test_snapshot_on_connect(table):
    ws = connect(table.code)
    connected, _ = await ws.connect()
    assert connected
    message = await ws.receive_json_from()
    assert (message["type"], message["version"]) == ("snapshot", 1)
    snapshot = message["data"]
    assert snapshot["table"]["code"] == "live1" and snapshot["table"]["is_open"] is True
    assert snapshot["table"]["payouts"]["banker"] == "0.95:1"
    assert snapshot["roads"]["stats"]["coups"] == 0 and snapshot["coup"] is None
    assert "card_order" not in json.dumps(snapshot)
    await ws.disconnect()


def play_one_coup(table):
    """Drive the loop (synchronously, committing each step) until one coup is settled."""
    for _ in range(50):
        Coup.objects.filter(table=table, state="betting").update(betting_closes_at=timezone.now())
        table_step(table_id=table.pk)
        if Coup.objects.filter(table=table, state="settled").exists():
            return Coup.objects.get(table=table, state="settled")
    raise AssertionError("no coup settled")


async def test_the_events_of_a_whole_coup(table):
    from channels.db import database_sync_to_async

    ws = connect(table.code)
    await ws.connect()
    await ws.receive_json_from()
    coup = await database_sync_to_async(play_one_coup)(table)
    events = []
    while not await ws.receive_nothing(timeout=0.2):
        events.append(await ws.receive_json_from())
    types = [e["type"] for e in events]
    assert types[:2] == ["shoe_change", "betting_open"]
    assert types[2] == "no_more_bets"
    cards = [e for e in events if e["type"] == "card"]
    assert [c["data"]["card"] for c in cards] == await database_sync_to_async(
        lambda: list(coup.cards.order_by("position").values_list("card", flat=True))
    )()
    assert cards[-1]["data"]["next"] is None
    assert types[-2:] == ["result", "roads"] or types[-3:-1] == ["result", "roads"]
    result = next(e for e in events if e["type"] == "result")["data"]
    assert (result["round_id"], result["winner"]) == (coup.round_id, coup.winner)
    roads = next(e for e in events if e["type"] == "roads")["data"]
    assert roads["stats"]["coups"] == 1 and len(roads["bead_plate"]) == 1
    assert all(e["version"] == 1 and e["table"] == "live1" for e in events)
    # A late joiner catches up from the snapshot.
    late = connect(table.code)
    await late.connect()
    snapshot = (await late.receive_json_from())["data"]
    assert snapshot["coup"]["round_id"] == coup.round_id and snapshot["roads"] == {
        k: v for k, v in roads.items() if k != "shoe"
    }
    await ws.disconnect()
    await late.disconnect()


def test_roadmap_command_reads_a_shoe_from_the_database(table, capsys):
    from django.core.management import call_command

    coup = play_one_coup(table)
    call_command("roadmap", shoe=coup.shoe_id, json=True)
    roadmap = json.loads(capsys.readouterr().out)
    letter = {"banker": "B", "player": "P", "tie": "T"}[coup.winner]
    assert roadmap["bead_plate"] == [
        {"col": 0, "row": 0, "result": letter, "banker_pair": coup.banker_pair, "player_pair": coup.player_pair}
    ]
    assert roadmap["stats"]["natural"] == int(coup.natural)


def test_roadmap_command_refuses_an_unknown_shoe():
    from django.core.management import call_command
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="no shoe with id 999"):
        call_command("roadmap", shoe=999, json=True)
