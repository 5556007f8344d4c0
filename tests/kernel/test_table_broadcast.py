"""A table's live events reach a process through one member of the table's group, which forwards each
event to every socket of the table in the process; the last socket gone, the process leaves the group. The
table's snapshot is read once for the sockets that connect between two of its events, never across one."""

import asyncio
import logging

from channels.layers import InMemoryChannelLayer

from kernel.table_broadcast import table_join, table_leave, table_shared
from tests.loops import in_a_loop_of_its_own


class Socket:
    def __init__(self, fails: type[Exception] | None = None) -> None:
        self.events: list[str] = []
        self.fails = fails

    async def table_event(self, text: str) -> None:
        if self.fails:
            raise self.fails("gone")
        self.events.append(text)


async def until(condition) -> None:
    for _ in range(200):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("not in time")


def test_one_member_of_the_group_forwards_each_event_to_every_socket():
    in_a_loop_of_its_own(one_member_forwards_to_every_socket)


def test_another_table_s_events_do_not_reach_a_socket():
    in_a_loop_of_its_own(another_table_s_events_stay_there)


async def one_member_forwards_to_every_socket():
    layer = InMemoryChannelLayer()
    first, broken, second = Socket(), Socket(fails=ConnectionResetError), Socket()
    for socket in (first, broken, second):
        await table_join(layer=layer, group="table.t1", listener=socket)
    assert len(layer.groups["table.t1"]) == 1  # one channel for the process, however many sockets

    await layer.group_send("table.t1", {"type": "live.event", "text": '{"type": "card"}'})
    await until(lambda: first.events and second.events)  # the broken socket keeps it from neither
    assert first.events == second.events == ['{"type": "card"}']

    await table_leave(layer=layer, group="table.t1", listener=first)
    await layer.group_send("table.t1", {"type": "live.event", "text": '{"type": "result"}'})
    await until(lambda: len(second.events) == 2)
    assert first.events == ['{"type": "card"}'] and second.events[-1] == '{"type": "result"}'

    for socket in (broken, second):
        await table_leave(layer=layer, group="table.t1", listener=socket)
    assert not layer.groups.get("table.t1")  # the last one gone: the process left the group


async def another_table_s_events_stay_there():
    layer = InMemoryChannelLayer()
    here, there = Socket(), Socket()
    await table_join(layer=layer, group="table.a", listener=here)
    await table_join(layer=layer, group="table.b", listener=there)
    await layer.group_send("table.b", {"type": "live.event", "text": "b"})
    await until(lambda: there.events)
    await asyncio.sleep(0.05)
    assert here.events == [] and there.events == ["b"]
    await table_leave(layer=layer, group="table.a", listener=here)
    await table_leave(layer=layer, group="table.b", listener=there)


def test_sockets_connecting_between_two_events_share_one_snapshot_and_an_event_makes_the_next_read_again():
    in_a_loop_of_its_own(snapshots_shared_between_events)


async def snapshots_shared_between_events():
    layer = InMemoryChannelLayer()
    reads: list[int] = []

    async def build() -> dict:
        reads.append(len(reads) + 1)
        await asyncio.sleep(0.05)  # a database read: the sockets coming meanwhile wait for it, not read again
        return {"read": len(reads)}

    async def snapshot() -> dict:
        return await table_shared(group="table-t1", build=build, seconds=60)

    watching = Socket()
    await table_join(layer=layer, group="table-t1", listener=watching)
    crowd = await asyncio.gather(*(snapshot() for _ in range(50)))
    assert crowd == [{"read": 1}] * 50 and reads == [1]
    await layer.group_send("table-t1", {"type": "live.event", "text": "coup dealt"})
    await until(lambda: watching.events == ["coup dealt"])
    assert await snapshot() == {"read": 2}  # built after the event: a socket joining now never misses it
    assert await snapshot() == {"read": 2}
    await table_leave(layer=layer, group="table-t1", listener=watching)
    await table_join(layer=layer, group="table-t1", listener=watching)
    assert await snapshot() == {"read": 3}  # the events while no socket listened went unread: read again
    await table_leave(layer=layer, group="table-t1", listener=watching)


def test_a_shared_snapshot_is_read_again_after_its_seconds():
    in_a_loop_of_its_own(snapshot_read_again_after_its_seconds)


async def snapshot_read_again_after_its_seconds():
    layer = InMemoryChannelLayer()
    reads: list[int] = []

    async def build() -> int:
        reads.append(1)
        return len(reads)

    watching = Socket()
    await table_join(layer=layer, group="table-t2", listener=watching)
    assert await table_shared(group="table-t2", build=build, seconds=0.1) == 1
    assert await table_shared(group="table-t2", build=build, seconds=0.1) == 1
    await asyncio.sleep(0.15)  # a change that sends no event (a table renamed) reaches new sockets this late
    assert await table_shared(group="table-t2", build=build, seconds=0.1) == 2
    await table_leave(layer=layer, group="table-t2", listener=watching)


def test_a_socket_whose_client_is_gone_is_skipped_quietly_and_a_broken_one_logged():
    in_a_loop_of_its_own(gone_quiet_broken_logged)


async def gone_quiet_broken_logged():
    layer = InMemoryChannelLayer()
    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append
    logging.getLogger("kernel.table_broadcast").addHandler(handler)
    try:
        gone, broken, fine = Socket(fails=ConnectionResetError), Socket(fails=ValueError), Socket()
        for socket in (gone, broken, fine):
            await table_join(layer=layer, group="table-t3", listener=socket)
        await layer.group_send("table-t3", {"type": "live.event", "text": "card"})
        await until(lambda: fine.events == ["card"])
        assert [record.exc_info[0] for record in records] == [ValueError]
        for socket in (gone, broken, fine):
            await table_leave(layer=layer, group="table-t3", listener=socket)
    finally:
        logging.getLogger("kernel.table_broadcast").removeHandler(handler)
