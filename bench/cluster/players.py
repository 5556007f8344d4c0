"""The bed's socket players: one process (no Django: asyncio, uvloop, websockets) holding every player's socket
to the balancer (``wss://`` with the bed's certificate), driven over a pipe by the bed.

Each player follows the table's coups from its socket (the snapshot, ``betting_open``, ``no_more_bets``...)
and, while a coup takes bets, confirms a 1.00 bet with a new ``request_id``, waits for its answer, thinks
(``think`` seconds, at random) and bets again. A socket that closes (its web host killed, stopped,
taken out) is opened again through the balancer as the page does (``retry_delay``, the policy of
``static/js/live.js``'s ``retryDelayMs``: at random within 2 s, the window doubling with each failure), and
a bet not yet answered is sent again with the same ``request_id`` and round: the first answer must come back.

Commands: ``"go"`` lets them bet (each waits for it once its socket is open); ``"report"`` (and ``"go"``)
answers the figures since the last report (acks, refusals by code, reconnects and how long each took,
unanswered bets, players that could not reconnect); ``"stop"`` closes every socket and answers every
``request_id`` acknowledged, refused and still unanswered, for the books.
"""

from __future__ import annotations

import asyncio
import json
import random
import resource
import ssl
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field

STAKE = "1.00"
ANSWER_TIMEOUT = 15.0
RECONNECT_GIVE_UP = 60.0
FIRST_RETRY, LONGEST_RETRY = 2.0, 8.0  # static/js/live.js's FIRST_RETRY_MS and LONGEST_RETRY_MS
CONNECTING_AT_ONCE = 50
CLOSED = {"type": "closed"}  # the answer of a bet whose socket closed before its answer came


@dataclass
class Figures:
    acks: int = 0
    resent: int = 0
    refusals: Counter = field(default_factory=Counter)
    reconnects: list[float] = field(default_factory=list)
    timeouts: int = 0
    gave_up: int = 0

    def as_dict(self) -> dict:
        return {**self.__dict__, "refusals": dict(self.refusals)}


@dataclass
class Books:
    acked: set[str] = field(default_factory=set)
    refused: dict[str, str] = field(default_factory=dict)
    unanswered: set[str] = field(default_factory=set)


@dataclass
class Run:
    """The figures of the current report window (swapped at each report) and the whole run's books."""

    figures: Figures = field(default_factory=Figures)
    books: Books = field(default_factory=Books)


def retry_delay(retries: int) -> float:
    """Seconds before the ``retries``-th attempt again (0: the first since the close): full jitter, exactly as
    the page (``static/js/live.js``, ``retryDelayMs``): change both together."""
    return random.uniform(0, min(LONGEST_RETRY, FIRST_RETRY * 2**retries))


class Player:
    def __init__(self, cookie: str, side: str, url: str, context: ssl.SSLContext, gate: asyncio.Semaphore) -> None:
        self.cookie, self.side, self.url, self.context, self.gate = cookie, side, url, context, gate
        self.ws = None
        self.round_id: str | None = None
        self.betting = asyncio.Event()
        self.answer: asyncio.Future | None = None
        self.request: tuple[str, str] | None = None  # (request_id, round_id) sent, not yet answered
        self.closed_at: float | None = None  # when the socket was found closed
        self.reader: asyncio.Task | None = None

    async def connect(self, run: Run, retries: int) -> bool:
        """Open the socket, attempting again after ``retry_delay(retries)``, then ``retries + 1``..."""
        from websockets.asyncio.client import connect

        closed_at = time.monotonic()
        while time.monotonic() - closed_at < RECONNECT_GIVE_UP:
            try:
                async with self.gate:
                    self.ws = await connect(
                        self.url,
                        ssl=self.context,
                        origin=f"https://{self.url.split('/')[2]}",
                        additional_headers={"Cookie": self.cookie},
                        open_timeout=30,
                        ping_interval=None,
                        max_size=None,
                        proxy=None,
                    )
                self._follow(json.loads(await asyncio.wait_for(self.ws.recv(), 10)))
                return True
            except Exception:  # refused, reset, timed out: try again, as the page does
                self.ws = None
                await asyncio.sleep(retry_delay(retries))
                retries += 1
        run.figures.gave_up += 1
        return False

    def _follow(self, event: dict) -> None:
        kind, data = event.get("type"), event.get("data") or {}
        if kind == "snapshot":
            coup = data.get("coup") or {}
            self.round_id = coup.get("round_id") if coup.get("state") == "betting" else None
        elif kind == "betting_open":
            self.round_id = data.get("round_id")
        elif kind in ("no_more_bets", "coup_void", "coup_held", "result"):
            self.round_id = None
        elif kind in ("bet_accepted", "bet_rejected") and self._awaited(event.get("request_id")):
            self.answer.set_result(event)
        (self.betting.set if self.round_id else self.betting.clear)()

    def _awaited(self, request_id: object) -> bool:
        pending = self.answer is not None and not self.answer.done()
        return pending and self.request is not None and request_id == self.request[0]

    async def read(self) -> None:
        try:
            async for frame in self.ws:
                self._follow(json.loads(frame))
        except Exception:
            pass
        self.closed_at = self.closed_at or time.monotonic()
        self.betting.set()  # wakes a player waiting for a coup
        if self.answer is not None and not self.answer.done():
            self.answer.set_result(CLOSED)

    async def _reopen(self, run: Run) -> bool:
        """The socket again (the first time: opened), the time it took from its close counted."""
        first = self.reader is None
        if self.reader is not None:
            self.reader.cancel()
        if self.ws is not None:
            await self.ws.close()
            self.ws = None
        closed_at = self.closed_at or time.monotonic()
        if not first:
            await asyncio.sleep(retry_delay(0))
        if not await self.connect(run, retries=0 if first else 1):
            return False
        if not first:
            run.figures.reconnects.append(time.monotonic() - closed_at)
        self.closed_at = None
        self.reader = asyncio.create_task(self.read())
        return True

    async def play(self, stop: asyncio.Event, go: asyncio.Event, think: tuple[float, float], run: Run) -> None:
        if not await self._reopen(run):
            return
        await go.wait()  # every player's socket open before the first bet
        while not stop.is_set():
            if (self.ws is None or self.closed_at is not None) and not await self._reopen(run):
                break
            if self.request is None:
                try:
                    await asyncio.wait_for(self.betting.wait(), 1.0)
                except TimeoutError:
                    continue
                if self.closed_at is not None or self.round_id is None:
                    continue
                self.request = (str(uuid.uuid4()), self.round_id)
            else:
                run.figures.resent += 1
            request_id, round_id = self.request
            self.answer = asyncio.get_running_loop().create_future()
            message = {"type": "bet", "request_id": request_id, "round_id": round_id, "bets": {self.side: STAKE}}
            try:
                await self.ws.send(json.dumps(message))
                answer = await asyncio.wait_for(self.answer, ANSWER_TIMEOUT)
            except Exception as error:  # closed or silent: open the socket again and send the same request
                run.figures.timeouts += isinstance(error, TimeoutError)
                answer = CLOSED
            if answer is CLOSED:
                self.closed_at = self.closed_at or time.monotonic()
                continue
            self.request = None
            if answer["type"] == "bet_accepted":
                run.figures.acks += 1
                run.books.acked.add(request_id)
            else:
                code = answer["error"]["code"]
                run.figures.refusals[code] += 1
                run.books.refused[request_id] = code
            await asyncio.sleep(random.uniform(*think))
        if self.request is not None:
            run.books.unanswered.add(self.request[0])
        if self.ws is not None:
            await self.ws.close()


async def _main(url: str, cafile: str, players: list[tuple[str, str]], think: tuple[float, float], pipe) -> None:
    context = ssl.create_default_context(cafile=cafile)
    gate, stop, go, run = asyncio.Semaphore(CONNECTING_AT_ONCE), asyncio.Event(), asyncio.Event(), Run()
    everyone = [Player(cookie, side, url, context, gate) for cookie, side in players]
    tasks = [asyncio.create_task(player.play(stop, go, think, run)) for player in everyone]
    loop = asyncio.get_running_loop()
    while (command := await loop.run_in_executor(None, pipe.recv)) != "stop":
        if command == "go":
            go.set()
        window, run.figures = run.figures, Figures()
        pipe.send({**window.as_dict(), "connected": sum(1 for player in everyone if player.ws is not None)})
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    books = run.books
    pipe.send({"acked": books.acked, "refused": books.refused, "unanswered": books.unanswered, **run.figures.as_dict()})


def players_run(url: str, cafile: str, players: list[tuple[str, str]], think: tuple[float, float], pipe) -> None:
    """Entry point of the players' process."""
    import uvloop

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(max(soft, len(players) + 200), hard), hard))
    uvloop.run(_main(url, cafile, players, think, pipe))
