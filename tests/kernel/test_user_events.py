"""Events to many players at once (a settlement): each reaches its own player's sockets and no one else's. An
event whose news a socket's answer carries skips that socket, and only that one."""

import asyncio
import contextlib
import json

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from channels_redis.pubsub import RedisPubSubChannelLayer
from django.conf import settings

from kernel.live import answered_on_sockets, user_events_send, user_group

pytestmark = pytest.mark.django_db(transaction=True)  # outside a transaction, events go at once


async def test_each_players_event_reaches_that_players_sockets_only():
    layer = get_channel_layer()
    watching, other = await layer.new_channel(), await layer.new_channel()
    await layer.group_add(user_group(7), watching)
    await layer.group_add(user_group(8), other)
    await sync_to_async(user_events_send)(
        event_type="settlement", data_by_user={user_id: {"balance": f"{user_id}.00"} for user_id in range(1, 500)}
    )
    for channel, balance in ((watching, "7.00"), (other, "8.00")):
        message = await asyncio.wait_for(layer.receive(channel), timeout=5)
        event = json.loads(message["text"])
        assert (event["type"], event["data"]) == ("settlement", {"balance": balance})
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(layer.receive(channel), timeout=0.3)
    await layer.group_discard(user_group(7), watching)
    await layer.group_discard(user_group(8), other)


async def received(layer, channel: str, timeout: float = 0.5) -> list[dict]:
    """The events the channel receives within ``timeout``."""
    events = []
    with contextlib.suppress(asyncio.TimeoutError):
        while True:
            events.append(json.loads((await asyncio.wait_for(layer.receive(channel), timeout=timeout))["text"]))
    return events


def wallet_answered(user_id: int, answered: str) -> None:
    with answered_on_sockets(event_type="wallet", channels={user_id: answered}):
        user_events_send(event_type="wallet", data_by_user={user_id: {"balance": "70.00"}})
        user_events_send(event_type="settlement", data_by_user={user_id: {"balance": "70.00"}})


async def test_an_event_the_answer_carries_is_not_sent_to_the_answered_socket_alone():
    layer = get_channel_layer()
    answered = await layer.new_channel()
    await layer.group_add(user_group(9), answered)
    await sync_to_async(wallet_answered)(9, answered)
    assert [event["type"] for event in await received(layer, answered)] == ["settlement"]  # not what it knows
    await layer.group_discard(user_group(9), answered)


async def test_the_players_other_socket_in_the_process_gets_it():
    layer = get_channel_layer()
    answered, other = await layer.new_channel(), await layer.new_channel()
    for channel in (answered, other):
        await layer.group_add(user_group(10), channel)
    await sync_to_async(wallet_answered)(10, answered)
    assert {event["type"] for event in await received(layer, other)} == {"wallet", "settlement"}
    for channel in (answered, other):
        await layer.group_discard(user_group(10), channel)


@pytest.mark.skipif(not settings.REDIS_URL, reason="needs REDIS_URL (the channels_redis layer)")
async def test_the_players_socket_in_another_process_gets_it():
    layer = get_channel_layer()
    elsewhere = RedisPubSubChannelLayer(**settings.CHANNEL_LAYERS["default"]["CONFIG"])  # another server's
    answered, other = await layer.new_channel(), await elsewhere.new_channel()
    await layer.group_add(user_group(11), answered)
    await elsewhere.group_add(user_group(11), other)
    await sync_to_async(wallet_answered)(11, answered)
    assert [event["type"] for event in await received(elsewhere, other)] == ["wallet", "settlement"]
    await layer.group_discard(user_group(11), answered)
    await elsewhere.group_discard(user_group(11), other)
    await elsewhere.flush()


async def test_no_players_no_event_and_no_error(caplog):
    await sync_to_async(user_events_send)(event_type="settlement", data_by_user={})
    assert not [record for record in caplog.records if record.levelname == "ERROR"]
