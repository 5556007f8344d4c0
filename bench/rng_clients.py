"""The load generator of ``bench/rng.py``: one process (no Django: asyncio, uvloop, plain HTTP/1.1 over a kept-alive
connection a player) in which every player deals on a schedule of their own: open loop, every ``interval``
seconds jittered by ±``jitter``, from a random start in the first interval. A player sends their next deal at its
time, or, when the previous answer came later than that, as soon as it comes (a player's page deals from the
shoe the last answer showed). Reads its set-up as JSON on stdin, writes its results as JSON on stdout:
``{"deals": [[scheduled, sent, answered, status], ...], "errors": {...}, "commitments": [...], "cpu": seconds}``,
times by ``time.perf_counter()``, the latency of a deal ``answered - sent`` (the client's, over loopback);
``commitments``: each player's shoe after the run, for the next."""

from __future__ import annotations

import asyncio
import json
import random
import resource
import sys
import time
import uuid
from collections import Counter

CONNECTING_AT_ONCE = 100
TIMEOUT_SECONDS = 30.0


class Player:
    def __init__(self, spec: dict, host: str, port: int) -> None:
        self.spec, self.host, self.port = spec, host, port
        self.commitment = spec["commitment"]
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def connect(self) -> None:
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)

    def _request(self, rebet: bool) -> bytes:
        body = {"commitment": self.commitment, "request_id": uuid.uuid4().hex}
        body.update({"rebet": True} if rebet else {"bets": self.spec["bets"]})
        payload = json.dumps(body).encode()
        head = (
            f"POST {self.spec['path']} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(payload)}\r\n"
            f"Cookie: {self.spec['cookie']}\r\n{self.spec['csrf_header']}: {self.spec['csrf']}\r\n\r\n"
        )
        return head.encode() + payload

    async def deal(self, rebet: bool) -> tuple[int, dict | None]:
        """One deal: the HTTP status and the answer (None unless JSON)."""
        self.writer.write(self._request(rebet))
        status_line = await self.reader.readline()
        status = int(status_line.split()[1])
        length = 0
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode("latin-1").partition(":")
            if name.lower() == "content-length":
                length = int(value)
        body = await self.reader.readexactly(length)
        try:
            return status, json.loads(body)
        except ValueError:
            return status, None


async def player_run(player: Player, *, start: float, until: float, interval: float, jitter: float, out: dict):
    rng = random.Random()
    scheduled, dealt = start + rng.uniform(0, interval), 0
    while scheduled < until:
        await asyncio.sleep(max(0.0, scheduled - time.perf_counter()))
        sent = time.perf_counter()
        try:
            status, answer = await asyncio.wait_for(player.deal(rebet=dealt % 2 == 1), TIMEOUT_SECONDS)
        except (TimeoutError, OSError, asyncio.IncompleteReadError, ValueError, IndexError) as error:
            out["errors"][type(error).__name__] += 1
            return  # the connection is in an unknown state: this player stops
        answered = time.perf_counter()
        out["deals"].append((scheduled, sent, answered, status))
        if status == 200 and answer:
            player.commitment = answer["shoe"]["commitment"]
            dealt += 1
        else:
            out["errors"][f"{status} {(answer or {}).get('code', '')}".strip()] += 1
        scheduled += interval * rng.uniform(1 - jitter, 1 + jitter)


async def main_async(setup: dict) -> dict:
    players = [Player(spec, setup["host"], setup["port"]) for spec in setup["players"]]
    for first in range(0, len(players), CONNECTING_AT_ONCE):
        await asyncio.gather(*(player.connect() for player in players[first : first + CONNECTING_AT_ONCE]))
    out = {"deals": [], "errors": Counter()}
    start = time.perf_counter() + 0.5
    until = start + setup["seconds"]
    await asyncio.gather(
        *(
            player_run(player, start=start, until=until, interval=setup["interval"], jitter=setup["jitter"], out=out)
            for player in players
        )
    )
    for player in players:
        player.writer.close()
    commitments = [player.commitment for player in players]  # the shoes' now, for the next run
    return {
        "deals": out["deals"],
        "errors": dict(out["errors"]),
        "start": start,
        "until": until,
        "commitments": commitments,
    }


def main() -> None:
    setup = json.load(sys.stdin)
    try:
        import uvloop

        uvloop.install()
    except ImportError:
        pass
    result = asyncio.run(main_async(setup))
    usage = resource.getrusage(resource.RUSAGE_SELF)
    result["cpu"] = usage.ru_utime + usage.ru_stime
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main()
