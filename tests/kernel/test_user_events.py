"""Events to many players at once (a settlement): each reaches its own player's sockets and no one else's."""

import asyncio
import json

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer

from kernel.live import user_events_send, user_group

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
