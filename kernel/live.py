"""Live events to a table's browsers, sent only once the transaction commits (Zulip style).

Every event is JSON: ``{"type": ..., "version": 1, "table": code, "data": {...}}``.
Amounts travel as strings: ``channels_redis`` cannot carry ``Decimal``.

A player's event whose news the answer to their socket's own request already carries (a bet's new balance)
skips that socket (``answered_on_sockets``): it goes to the player's other sockets, and with none, it is not
sent at all. At the close of betting, every socket's bet would otherwise come back to it through Redis, read
and parsed on the event loop, to repeat the balance of the ack before it.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from contextlib import contextmanager
from functools import partial

from asgiref.sync import async_to_sync
from channels.layers import BaseChannelLayer, InMemoryChannelLayer, get_channel_layer
from channels_redis.pubsub import RedisPubSubChannelLayer
from django.db import transaction

from kernel.rate_counts import window_turn
from kernel.redis_watch import redis_lost

EVENT_VERSION = 1
CONCURRENT_SENDS = 32
PUBLISH_TIMEOUT_SECONDS = 5.0
PUBLISH_WAIT_STEP_SECONDS = 0.25  # how often a send waited on asks whether Redis was found lost meanwhile
_publisher: tuple[int, asyncio.AbstractEventLoop] | None = None  # (process id, its loop)
_publisher_lock = threading.Lock()
logger = logging.getLogger(__name__)
Event = dict | Callable[[], dict]  # an event, or what builds it when it is sent
Message = dict | Callable[[], dict]  # a channel-layer message, or what builds it when it is sent
# What is sent on commit: (group, event or message, the channel of a socket of the group to skip, or None).
Outgoing = tuple[str, Event | Message, str | None]
_answering = threading.local()  # the sockets answered meanwhile in this thread (``answered_on_sockets``)


def table_group(table_code: str) -> str:
    return f"table.{table_code}"


def user_group(user_id: int) -> str:
    return f"user.{user_id}"


def event_envelope(*, event_type: str, data: dict, table_code: str | None = None) -> dict:
    """Every live event as the browsers receive it: ``{"type", "version", "table", "data"}``, its type first
    (``casino.players.lobby_socket`` reads it from the text); a player's own events (their wallet, their
    bets) name no table."""
    if table_code is None:
        return {"type": event_type, "version": EVENT_VERSION, "data": data}
    return {"type": event_type, "version": EVENT_VERSION, "table": table_code, "data": data}


EVENT_TYPE_START = '{"type": "'  # how ``live_message`` serialises every event: its type first


def event_type_read(text: str) -> str | None:
    """An event's type from its text as sent, without parsing the rest (a socket choosing what to forward)."""
    if not text.startswith(EVENT_TYPE_START):
        return None
    end = text.find('"', len(EVENT_TYPE_START))
    return text[len(EVENT_TYPE_START) : end] if end > 0 else None


def live_message(event: dict) -> dict:
    """The channel-layer message carrying ``event``: serialised once here, so every socket of the
    group forwards the same text instead of each encoding it again (``kernel.sockets``)."""
    return {"type": "live.event", "text": json.dumps(event)}


def _send_on_commit(messages: list[Outgoing]) -> None:
    """Send each (group, event, socket to skip) once the transaction commits: one callback for all of them.
    An event is serialised now, once: a payload Redis could not carry fails inside the service. One still to
    be built (``EventsBuiltOnDemand``) is built and serialised only if its group has a socket in it."""
    prepared: list[Outgoing] = [
        (group, partial(_built_message, event) if callable(event) else live_message(event), skip)
        for group, event, skip in messages
    ]
    transaction.on_commit(lambda: _send_now(prepared))


def _built_message(build: Callable[[], dict]) -> dict:
    return live_message(build())


def _send_now(prepared: list[Outgoing]) -> None:
    """Publish, waiting at most ``PUBLISH_TIMEOUT_SECONDS``, and neither sending nor waiting while this process
    finds Redis lost (``kernel.redis_watch``): a batch's commit would wait that long for a send that cannot
    arrive, holding up the table's next batch (its players resending through another host meanwhile, as this
    one lets their sockets go), for events whose sockets are being let go anyway."""
    layer = get_channel_layer()
    if layer is None or redis_lost():
        return
    try:
        if isinstance(layer, InMemoryChannelLayer):  # the embedded default: the consumers' own loop
            async_to_sync(_group_send_all)(layer, prepared)
            return
        sending = asyncio.run_coroutine_threadsafe(_group_send_all(layer, prepared), _publisher_loop())
        deadline = time.monotonic() + PUBLISH_TIMEOUT_SECONDS
        while True:
            try:
                sending.result(timeout=PUBLISH_WAIT_STEP_SECONDS)
                return
            except TimeoutError:
                if sending.done() or redis_lost() or time.monotonic() >= deadline:
                    sending.cancel()
                    raise
    except Exception:  # the database is the truth: a lost push is caught up from the snapshot
        logger.exception("%d live events not sent", len(prepared))


# The table's bet totals change with every bet: at the last seconds of a window, hundreds of times a
# second. A table's totals in a currency go out at most every TOTALS_INTERVAL_SECONDS: the first at once,
# then only the latest of those made meanwhile, when the interval has passed. The interval is the table's,
# across the web processes (``window_turn``): a process that finds it taken by another sends its latest when
# it ends, unless totals made later (stamped under the coup's lock, which orders them, as far as the hosts'
# clocks agree) went out meanwhile. Each event is written to every socket of the table, so N processes each
# sending at that pace made N times the writes (at the close of betting, a fifth of a web process's CPU with two).
TOTALS_INTERVAL_SECONDS = 0.25
_totals_lock = threading.Lock()
# The latest totals not sent yet, and when they were made (µs), by (table, currency).
_totals_waiting: dict[tuple[str, str], tuple[Outgoing, int]] = {}
_totals_sent_at: dict[tuple[str, str], float] = {}


def table_totals_send(*, table_code: str, currency: str, data: dict) -> None:
    """A table's ``bet_totals`` in one currency, on commit, throttled (see above). Called where the totals are
    read, under the coup's lock: the stamp orders them as the lock does."""
    key = (table_code, currency)
    message = (
        (
            table_group(table_code),
            live_message(event_envelope(event_type="bet_totals", data=data, table_code=table_code)),
            None,
        ),
        time.time_ns() // 1000,
    )

    def queue() -> None:
        with _totals_lock:
            already_waiting = key in _totals_waiting
            _totals_waiting[key] = message
            if already_waiting:
                return  # a send is due: it will carry these totals
            delay = _totals_sent_at.get(key, 0.0) + TOTALS_INTERVAL_SECONDS - time.monotonic()
        if delay <= 0:
            _totals_flush(key)
        else:
            _totals_flush_later(delay, key)

    transaction.on_commit(queue)


def _totals_flush(key: tuple[str, str]) -> None:
    with _totals_lock:
        waiting = _totals_waiting.get(key)
    if waiting is None:
        return
    message, stamp = waiting
    turn = _totals_turn(key, stamp)
    if turn is not None and turn > 0:  # another process's interval: ours, still waiting, goes when it ends
        _totals_flush_later(turn, key)
        return
    with _totals_lock:
        newer = _totals_waiting.get(key) is not waiting  # made meanwhile, here: its own turn comes next
        if not newer:
            del _totals_waiting[key]
        _totals_sent_at[key] = time.monotonic()
    if turn == 0:
        _send_now([message])
    if newer:
        _totals_flush_later(TOTALS_INTERVAL_SECONDS, key)


def _totals_flush_later(delay: float, key: tuple[str, str]) -> None:
    timer = threading.Timer(delay, _totals_flush, args=(key,))
    timer.daemon = True
    timer.start()


def _totals_turn(key: tuple[str, str], stamp: int) -> float | None:
    """``window_turn`` of the table's totals made at ``stamp``: 0 send now, >0 wait, None stale (totals made
    later went out). Redis lost: now (the send itself is skipped then)."""
    table_code, currency = key
    if redis_lost():
        return 0.0
    try:
        return window_turn(key=f"live:totals:{table_code}:{currency}", seconds=TOTALS_INTERVAL_SECONDS, stamp=stamp)
    except Exception:
        logger.warning("the totals' window of %s %s not asked: sent anyway", table_code, currency, exc_info=True)
        return 0.0


def _publisher_loop() -> asyncio.AbstractEventLoop:
    """The process's event loop for publishing, in a daemon thread kept for the process's life, so the
    channel layer keeps its Redis connection open across commits instead of a new loop and connection
    for each. A forked child (Celery's pool) starts its own."""
    global _publisher
    with _publisher_lock:
        if _publisher is None or _publisher[0] != os.getpid():
            loop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, name="live-events", daemon=True).start()
            _publisher = (os.getpid(), loop)
        return _publisher[1]


async def _group_send_all(layer: BaseChannelLayer, messages: list[Outgoing]) -> None:
    """The sends overlap (each is a Redis round trip or two), at most ``CONCURRENT_SENDS`` at a time. A
    message still to be built is built only for a group with a socket in it."""
    slots = asyncio.Semaphore(CONCURRENT_SENDS)
    messages = await _to_groups_with_members(layer, messages)

    async def group_send(group: str, message: Message) -> None:
        async with slots:
            try:
                await layer.group_send(group, message() if callable(message) else message)
            except Exception:
                logger.exception("live event to %s not sent", group)

    await asyncio.gather(*(group_send(group, message) for group, message, _ in messages))


async def _to_groups_with_members(layer: BaseChannelLayer, messages: list[Outgoing]) -> list[Outgoing]:
    """The messages whose group has a socket in it, other than the one to skip. A settlement speaks to
    thousands of players, most of them not watching: on Redis pub/sub one NUMSUB per shard finds the groups
    some server listens to, instead of a PUBLISH round trip for every group, one after another. A message
    with a socket to skip is dropped when NUMSUB finds one server listening and that socket is, then, the
    group's only member in this process: any socket that joins later reads the state after this commit.
    channels_redis has no public call for this, hence its private names here."""
    if isinstance(layer, InMemoryChannelLayer):  # one process: its groups are all the members there are
        return [message for message in messages if not _only_member(layer.groups.get(message[0], ()), message[2])]
    if not isinstance(layer, RedisPubSubChannelLayer) or (
        len(messages) < 2 and all(skip is None for *_, skip in messages)
    ):
        return messages
    loop_layer = layer._get_layer()
    by_shard: dict[object, list[tuple[str, Outgoing]]] = defaultdict(list)
    for message in messages:
        channel = loop_layer._get_group_channel_name(message[0])
        by_shard[loop_layer._get_shard(channel)].append((channel, message))
    kept = []
    for shard, entries in by_shard.items():
        shard._ensure_redis()
        counts = await shard._redis.pubsub_numsub(*(channel for channel, _ in entries))
        kept += [
            message
            for (channel, message), (_, listeners) in zip(entries, counts, strict=True)
            if _listened(layer, channel, message[2], listeners)
        ]
    return kept


def _listened(layer: RedisPubSubChannelLayer, group_channel: str, skip: str | None, listeners: int) -> bool:
    """Whether a socket other than ``skip`` listens to the group, ``listeners`` servers subscribing to it."""
    if listeners != 1:
        return listeners > 1
    return not _only_member(_local_members(layer, group_channel, skip), skip)


def _only_member(members: Collection[str], channel: str | None) -> bool:
    return channel is not None and channel in members and len(members) == 1


def _local_members(layer: RedisPubSubChannelLayer, group_channel: str, channel: str | None) -> Collection[str]:
    """The members in this process of the group (its pub/sub channel) that ``channel`` is in: each event
    loop of the process has a layer of its own."""
    if channel is None:
        return ()
    try:
        for loop_layer in list(layer._layers.values()):
            members = loop_layer.groups.get(group_channel, ())
            if channel in members:
                return tuple(members)
    except RuntimeError:  # a loop's layer added meanwhile: then send
        pass
    return ()


def table_event_send(*, table_code: str, event_type: str, data: dict) -> None:
    _send_on_commit(
        [(table_group(table_code), event_envelope(event_type=event_type, data=data, table_code=table_code), None)]
    )


def user_event_send(*, user_id: int, event_type: str, data: dict) -> None:
    user_events_send(event_type=event_type, data_by_user={user_id: data})


def user_events_send(*, event_type: str, data_by_user: Mapping[int, dict]) -> None:
    """One event type to many players at once (a settlement, a refund), each with its own data. With an
    ``EventsBuiltOnDemand``, each player's is built only when it is sent, and on Redis only if they have
    a socket open: a settlement speaks to thousands of players, most of them not watching."""

    def event(user_id: int) -> dict:
        return event_envelope(event_type=event_type, data=data_by_user[user_id])

    later = isinstance(data_by_user, EventsBuiltOnDemand)
    answered_type, answered_on = getattr(_answering, "sockets", None) or (None, {})
    skip = answered_on if answered_type == event_type else {}
    _send_on_commit(
        [
            (user_group(user_id), partial(event, user_id) if later else event(user_id), skip.get(user_id))
            for user_id in data_by_user
        ]
    )


@contextmanager
def answered_on_sockets(*, event_type: str, channels: Mapping[int, str]) -> Iterator[None]:
    """Within it (in this thread), the ``event_type`` events of the players in ``channels`` (user id: the
    channel name of the socket their answer goes to) skip that socket. For work whose answer carries the
    news of those events, a player's one request each: their latest state."""
    _answering.sockets = (event_type, channels)
    try:
        yield
    finally:
        _answering.sockets = None


class EventsBuiltOnDemand(Mapping[int, dict]):
    """The players' data for ``user_events_send``, each built by ``build(user_id)`` when its event is sent."""

    def __init__(self, user_ids: Iterable[int], build: Callable[[int], dict]) -> None:
        self._user_ids = dict.fromkeys(user_ids)
        self._build = build

    def __getitem__(self, user_id: int) -> dict:
        if user_id not in self._user_ids:
            raise KeyError(user_id)
        return self._build(user_id)

    def __contains__(self, user_id: object) -> bool:  # Mapping's own would build the event to answer
        return user_id in self._user_ids

    def __iter__(self) -> Iterator[int]:
        return iter(self._user_ids)

    def __len__(self) -> int:
        return len(self._user_ids)
