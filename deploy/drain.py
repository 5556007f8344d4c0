#!/usr/bin/env python3
"""Drain a web host at HAProxy and let its players go a few at a time, before the host is stopped.

``python3 deploy/drain.py web2 --over 10`` (on the balancer's host; the Python standard library alone): the
server is set to ``drain`` (no new connection, its own kept), then its sessions are shut down a random slice
every half second over ``--over`` seconds (requests in flight are left to finish); then stop the host.

Why not just stop the host: uvicorn closes every socket at SIGTERM in the same instant, so all of a host's
players (after a first host's release, every player) reconnect to the other host at once, each connect
waiting behind the rest (docs/deployment.md, "Releases"). Let go over 10 s, a thousand players arrive at a
hundred a second, which one web host takes as they come. Each player's page reconnects by itself
(``static/js/live.js``) and resends its unanswered bets with their ``request_id``: nothing is placed twice.
"""

import argparse
import math
import random
import re
import socket
import sys
import time

ADMIN_SOCKET = "/run/haproxy/admin.sock"
SLICE_SECONDS = 0.5
NAME = re.compile(r"[A-Za-z0-9_.-]+")  # HAProxy's proxy and server names
SOCKET_SECONDS = 10  # a session this old is a socket, not a request in flight (HAProxy: timeout http-request)
COMMANDS_PER_LINE = 100
AGE = re.compile(r" age=((?:\d+[dhms])+) ")
UNITS = {"d": 86400, "h": 3600, "m": 60, "s": 1}


def admin_command(line: str, *, path: str = ADMIN_SOCKET) -> str:
    """One line to HAProxy's runtime API (several commands may be joined by ``;``), and its answer."""
    with socket.socket(socket.AF_UNIX) as sock:
        sock.settimeout(5)
        sock.connect(path)
        sock.sendall(line.encode() + b"\n")
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks).decode()


def server_sessions(*, backend: str, server: str, path: str = ADMIN_SOCKET) -> dict[str, int]:
    """The sessions the balancer holds open to ``backend/server``: their ages in seconds by id (``show sess``,
    a line each)."""
    wanted = (f" be={backend} ", f" srv={server} ")
    lines = admin_command("show sess", path=path).splitlines()
    return {line.split(":", 1)[0]: _age(line) for line in lines if all(field in line for field in wanted)}


def _age(line: str) -> int:
    """``age=1h2m``, ``age=3m5s``, ``age=0s``... in seconds."""
    found = AGE.search(line)
    return sum(int(count) * UNITS[unit] for count, unit in re.findall(r"(\d+)([dhms])", found[1])) if found else 0


def server_drain(*, backend: str, server: str, over: float, path: str = ADMIN_SOCKET, sleep=time.sleep) -> int:
    """Set ``backend/server`` to drain and shut its sockets down in random slices over ``over`` seconds.
    Returns how many it let go.

    Only sessions older than ``SOCKET_SECONDS`` are shut (a table socket lives for minutes): a request in
    flight finishes, and what is left when the slices are done (a socket opened just before the drain) is
    closed by the host's SIGTERM, after which uvicorn lets requests finish. Before each slice the sessions are
    read again: an id HAProxy has freed meanwhile (a socket closed by its player) may already be another
    stream's, which is never shut."""
    for name in (backend, server):
        if not NAME.fullmatch(name):  # one command a line, joined by ";": a name is never more than a name
            raise SystemExit(f"drain: {name!r} is not a backend or server name")
    answer = admin_command(f"set server {backend}/{server} state drain", path=path).strip()
    if answer:  # silence is success; anything else is HAProxy saying why not (no such server, ...)
        raise SystemExit(f"drain: {backend}/{server}: {answer}")
    open_now = server_sessions(backend=backend, server=server, path=path)
    sockets = [id_ for id_, age in open_now.items() if age >= SOCKET_SECONDS]
    random.shuffle(sockets)
    slices = max(1, round(over / SLICE_SECONDS)) if over > 0 else 1
    per_slice = math.ceil(len(sockets) / slices)
    for start in range(0, len(sockets), per_slice or 1):
        if start:
            open_now = server_sessions(backend=backend, server=server, path=path)
        still = [id_ for id_ in sockets[start : start + per_slice] if id_ in open_now]
        for first in range(0, len(still), COMMANDS_PER_LINE):  # a line of HAProxy's CLI holds about 500
            chunk = still[first : first + COMMANDS_PER_LINE]
            admin_command("; ".join(f"shutdown session {id_}" for id_ in chunk), path=path)
        sleep(SLICE_SECONDS)
    return len(sockets)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("server", help="the web server's name in the balancer (web1, web2, ...)")
    parser.add_argument("--backend", default="web")
    parser.add_argument("--over", type=float, default=10.0, help="seconds over which its players are let go")
    parser.add_argument("--socket", default=ADMIN_SOCKET, help="HAProxy's runtime API socket")
    args = parser.parse_args(argv)
    began = time.monotonic()
    count = server_drain(backend=args.backend, server=args.server, over=args.over, path=args.socket)
    print(f"drain: {args.backend}/{args.server}: {count} sockets let go in {time.monotonic() - began:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
