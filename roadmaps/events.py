"""Live events to a table's browsers, sent only once the transaction commits (Zulip style).

Every event is JSON: ``{"type": ..., "version": 1, "table": code, "data": {...}}``.
Amounts travel as strings: ``channels_redis`` cannot carry ``Decimal``.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import defaultdict
from collections.abc import Mapping

from asgiref.sync import async_to_sync
from channels.layers import BaseChannelLayer, get_channel_layer
from channels_redis.pubsub import RedisPubSubChannelLayer
from django.db import transaction

EVENT_VERSION = 1
CONCURRENT_SENDS = 32
logger = logging.getLogger(__name__)


def table_group(table_code: str) -> str:
    return f"table.{table_code}"


def user_group(user_id: int) -> str:
    return f"user.{user_id}"


def live_message(event: dict) -> dict:
    """The channel-layer message carrying ``event``: serialised once here, so every socket of the
    group forwards the same text instead of each encoding it again (roadmaps.consumers)."""
    return {"type": "live.event", "text": json.dumps(event)}


def _send_on_commit(messages: list[tuple[str, dict]]) -> None:
    """Send each (group, event) once the transaction commits: one callback and one event loop for all."""
    json.dumps([event for _, event in messages])  # fail now, inside the service, on a payload Redis could not carry

    def send() -> None:
        layer = get_channel_layer()
        if layer is None:
            return
        try:
            async_to_sync(_group_send_all)(layer, messages)
        except Exception:  # the database is the truth: a lost push is caught up from the snapshot
            logger.exception("%d live events not sent", len(messages))

    transaction.on_commit(send)


async def _group_send_all(layer: BaseChannelLayer, messages: list[tuple[str, dict]]) -> None:
    """The sends overlap (each is a Redis round trip or two), at most ``CONCURRENT_SENDS`` at a time."""
    slots = asyncio.Semaphore(CONCURRENT_SENDS)
    messages = await _to_groups_with_members(layer, messages)

    async def group_send(group: str, event: dict) -> None:
        async with slots:
            try:
                await layer.group_send(group, live_message(event))
            except Exception:
                logger.exception("live event %s to %s not sent", event["type"], group)

    await asyncio.gather(*(group_send(group, event) for group, event in messages))


async def _to_groups_with_members(layer: BaseChannelLayer, messages: list[tuple[str, dict]]) -> list[tuple[str, dict]]:
    """The messages whose group has a socket in it. A settlement speaks to thousands of players, most
    of them not watching: on Redis pub/sub one NUMSUB per shard finds the groups some server listens
    to, instead of a PUBLISH round trip for every group, one after another. channels_redis has no
    public call for this, hence its private names here."""
    if not isinstance(layer, RedisPubSubChannelLayer) or len(messages) < 2:
        return messages
    loop_layer = layer._get_layer()
    by_shard: dict[object, list[tuple[str, tuple[str, dict]]]] = defaultdict(list)
    for message in messages:
        channel = loop_layer._get_group_channel_name(message[0])
        by_shard[loop_layer._get_shard(channel)].append((channel, message))
    kept = []
    for shard, entries in by_shard.items():
        shard._ensure_redis()
        counts = await shard._redis.pubsub_numsub(*(channel for channel, _ in entries))
        kept += [message for (_, message), (_, listeners) in zip(entries, counts, strict=True) if listeners]
    return kept


def table_event_send(*, table_code: str, event_type: str, data: dict) -> None:
    _send_on_commit(
        [(table_group(table_code), {"type": event_type, "version": EVENT_VERSION, "table": table_code, "data": data})]
    )


def user_event_send(*, user_id: int, event_type: str, data: dict) -> None:
    user_events_send(event_type=event_type, data_by_user={user_id: data})


def user_events_send(*, event_type: str, data_by_user: Mapping[int, dict]) -> None:
    """One event type to many players at once (a settlement, a refund), each with its own data."""
    _send_on_commit(
        [
            (user_group(user_id), {"type": event_type, "version": EVENT_VERSION, "data": data})
            for user_id, data in data_by_user.items()
        ]
    )
