"""The load generator of ``bench/intake.py``: one process (no Django: asyncio, uvloop and websockets) holding
every player's socket on the table, driven phase by phase over a pipe by the bench process:

- ``("burst", bets)``: closed loop, every player confirms ``bets`` bets one after another, each as soon as
  the previous one is answered (the close of betting at its worst: everyone at once);
- ``("open", schedule)``: open loop, each bet of ``schedule`` (seconds from the start, player's index) sent at
  its time whatever the answers before it (arrivals that do not wait for the server);
- ``("close", start, end)``: every player confirms one bet at a random wall-clock time between ``start`` and
  ``end`` (the last second before the page sends unconfirmed chips by itself).

Each phase answers ``{"acks": [(sent, answered, request_id)], "refusals", "errors", "cpu"}``, times by
``time.time()`` (the bench compares them with the coup's deadline), ``cpu`` the process's own seconds.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import resource
import time
import uuid
from collections import Counter

CONNECTING_AT_ONCE = 100
STAKE = "1.00"


class _Player:
    """A player's socket, its reader answering each request's future by its request_id."""

    def __init__(self, ws, side: str, round_id: str) -> None:
        self.ws, self.side, self.round_id = ws, side, round_id
        self.pending: dict[str, asyncio.Future] = {}
        self.reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async for frame in self.ws:
            answer = json.loads(frame)
            future = self.pending.pop(answer.get("request_id"), None)
            if future is not None and not future.done():
                future.set_result((time.time(), answer))

    async def bet(self, phase: dict) -> None:
        """Confirm one bet and wait for its answer; noted in ``phase``."""
        request_id = str(uuid.uuid4())
        future = self.pending[request_id] = asyncio.get_running_loop().create_future()
        sent = time.time()
        try:
            await self.ws.send(
                json.dumps(
                    {"type": "bet", "request_id": request_id, "round_id": self.round_id, "bets": {self.side: STAKE}}
                )
            )
            answered, answer = await asyncio.wait_for(future, timeout=60)
        except Exception as error:  # counted and reported: a bet unanswered is a miss, not a crash
            phase["errors"][repr(error)[:100]] += 1
            return
        if answer["type"] == "bet_accepted":
            phase["acks"].append((sent, answered, request_id))
        else:
            phase["refusals"][answer["error"]["code"]] += 1


async def _connected(url: str, cookie: str, side: str, round_id: str, gate) -> _Player:
    from websockets.asyncio.client import connect

    async with gate:
        ws = await connect(
            url, origin="http://127.0.0.1", additional_headers={"Cookie": cookie}, ping_interval=None, max_size=None
        )
    json.loads(await ws.recv())  # the snapshot
    return _Player(ws, side, round_id)


async def _burst(players: list[_Player], phase: dict, bets: int) -> None:
    async def confirm(player: _Player) -> None:
        for _ in range(bets):
            await player.bet(phase)

    await asyncio.gather(*(confirm(player) for player in players))


async def _open(players: list[_Player], phase: dict, schedule: list[tuple[float, int]]) -> None:
    loop = asyncio.get_running_loop()
    start, sends = loop.time(), []
    for offset, index in sorted(schedule):
        await asyncio.sleep(max(0.0, start + offset - loop.time()))
        sends.append(asyncio.create_task(players[index].bet(phase)))
    await asyncio.gather(*sends)


async def _close(players: list[_Player], phase: dict, start: float, end: float) -> None:
    async def confirm(player: _Player, at: float) -> None:
        await asyncio.sleep(max(0.0, at - time.time()))
        await player.bet(phase)

    await asyncio.gather(*(confirm(player, random.uniform(start, end)) for player in players))


async def _main(url: str, players: list[tuple[str, str]], round_id: str, pipe) -> None:
    gate = asyncio.Semaphore(CONNECTING_AT_ONCE)
    outcomes = await asyncio.gather(
        *(_connected(url, cookie, side, round_id, gate) for cookie, side in players), return_exceptions=True
    )
    ready = [outcome for outcome in outcomes if isinstance(outcome, _Player)]
    failed = Counter(repr(outcome)[:100] for outcome in outcomes if isinstance(outcome, BaseException))
    pipe.send({"ready": len(ready), "failed": dict(failed)})
    loop = asyncio.get_running_loop()
    while (command := await loop.run_in_executor(None, pipe.recv)) is not None:
        phase = {"acks": [], "refusals": Counter(), "errors": Counter()}
        cpu = time.process_time()
        if command[0] == "burst":
            await _burst(ready, phase, command[1])
        elif command[0] == "open":
            await _open(ready, phase, command[1])
        else:
            await _close(ready, phase, command[1], command[2])
        phase.update(refusals=dict(phase["refusals"]), errors=dict(phase["errors"]), cpu=time.process_time() - cpu)
        pipe.send(phase)
    for player in ready:
        player.reader.cancel()
        await player.ws.close()


def clients_run(url: str, players: list[tuple[str, str]], round_id: str, cores: str | None, pipe) -> None:
    """Entry point of the client process, on ``cores`` when given (``taskset``'s list: ``"1"``)."""
    import uvloop

    if cores:
        os.sched_setaffinity(0, {int(core) for core in cores.split(",")})
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(max(soft, len(players) + 200), hard), hard))
    uvloop.run(_main(url, players, round_id, pipe))
