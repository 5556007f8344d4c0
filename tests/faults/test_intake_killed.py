"""A web process killed in the middle of a burst of socket bets: every bet it acknowledged is in the
books once, and every request sent again to a new process is answered from what was committed (the
first answer for those committed, a fresh placement for those that never were), never placed twice."""

from __future__ import annotations

import json
import socket
import threading
import time
import uuid
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone
from websockets.exceptions import WebSocketException
from websockets.sync.client import connect

from casino.players.intake import BET_REQUESTS_PER_SECOND
from tests.factories import CoupFactory, TableFactory
from tests.processes import python, subprocess_env, wait_until
from wagering.checks import ledger_check, settlement_check
from wagering.models import Bet, BetRequest
from wagering.selectors import wallet_balance
from wagering.wallets import wallet_deposit

pytestmark = pytest.mark.faults
PLAYERS, REQUESTS_EACH = 8, 25


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def web_server(port: int):
    server = python(
        "-m",
        "uvicorn",
        "casino.asgi:application",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--no-access-log",
        # No per-user socket limit: the killed process's sockets keep their slots for a minute, and a run of
        # this test again within it (the same user ids in a new test database) would find them taken.
        env=subprocess_env(BET_INTAKE_GROUP_COMMIT="true", DEBUG="0", WS_MAX_CONNECTIONS_PER_USER="0"),
    )
    server.wait_for_line("Uvicorn running on")  # listening: "Application startup complete" comes before the bind
    return server


def cookies(count: int) -> list[tuple[object, str]]:
    users = []
    for index in range(count):
        user = get_user_model().objects.create_user(username=f"burst{index}")
        wallet_deposit(user=user, amount="1000.00", idempotency_key=uuid.uuid4().hex)
        client = Client()
        client.force_login(user)
        users.append((user, f"sessionid={client.cookies['sessionid'].value}"))
    return users


def burst(port: int, cookie: str, requests: list[dict], answers: dict, stop: threading.Event) -> None:
    """Send the requests one after another on one socket, recording each answer (one refused as too fast, by the
    socket's rate limit, is sent again shortly, as a client does); a dead server ends it."""
    try:
        with connect(
            f"ws://127.0.0.1:{port}/ws/tables/kill1/",
            additional_headers={"Cookie": cookie, "Origin": f"http://127.0.0.1:{port}"},
            open_timeout=10,
        ) as ws:
            json.loads(ws.recv(timeout=10))  # the snapshot
            for request in requests:
                while not stop.is_set():
                    ws.send(json.dumps(request))
                    reply = answer_to(ws, request)
                    if reply.get("error", {}).get("code") != "too_fast":
                        answers[request["request_id"]] = reply
                        break
                    time.sleep(1 / BET_REQUESTS_PER_SECOND)  # a socket's rate limit: as a client does, again shortly
    except (OSError, WebSocketException, TimeoutError):
        return  # the server was killed


def answer_to(ws, request: dict) -> dict:
    while True:
        reply = json.loads(ws.recv(timeout=10))
        if reply.get("request_id") == request["request_id"]:
            return reply


def test_a_web_process_killed_mid_burst_loses_nothing_acknowledged_and_doubles_nothing(transactional_db):
    coup = CoupFactory(table=TableFactory(code="kill1"), betting_closes_at=timezone.now() + timedelta(minutes=5))
    players = cookies(PLAYERS)
    requests = {
        cookie: [
            {"type": "bet", "request_id": f"{user.pk}-{n}", "round_id": coup.round_id, "bets": {"player": "1.00"}}
            for n in range(REQUESTS_EACH)
        ]
        for user, cookie in players
    }
    port = free_port()
    server = web_server(port)
    first_answers: dict[str, dict] = {}
    stop = threading.Event()
    threads = [
        threading.Thread(target=burst, args=(port, cookie, sent, first_answers, stop))
        for cookie, sent in requests.items()
    ]
    for thread in threads:
        thread.start()
    wait_until(lambda: len(first_answers) >= PLAYERS * REQUESTS_EACH // 3, what="a third of the burst answered")
    server.kill()  # SIGKILL, mid-burst
    stop.set()
    for thread in threads:
        thread.join(timeout=30)

    acknowledged = {key for key, answer in first_answers.items() if answer["type"] == "bet_accepted"}
    assert acknowledged and len(acknowledged) < PLAYERS * REQUESTS_EACH
    committed = set(BetRequest.objects.filter(accepted=True).values_list("key", flat=True))
    assert acknowledged <= committed  # nothing acknowledged was lost

    # A new process; every request is sent again: answered from its record, or placed now, never twice.
    server = web_server(port)
    try:
        second_answers: dict[str, dict] = {}
        threads = [
            threading.Thread(target=burst, args=(port, cookie, sent, second_answers, threading.Event()))
            for cookie, sent in requests.items()
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
    finally:
        server.kill()
    assert len(second_answers) == PLAYERS * REQUESTS_EACH
    refused = {key: answer for key, answer in second_answers.items() if answer["type"] != "bet_accepted"}
    assert refused == {}
    for key in acknowledged:  # the first answer, again
        assert second_answers[key] == first_answers[key]
    assert Bet.objects.count() == PLAYERS * REQUESTS_EACH  # one bet per request, none twice
    assert BetRequest.objects.count() == PLAYERS * REQUESTS_EACH
    for user, _ in players:
        assert wallet_balance(user=user) == 1000 - REQUESTS_EACH
    assert ledger_check().ok
    assert settlement_check(finished=False).problems == []
