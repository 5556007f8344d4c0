"""The bed's database side, from the client host: the tables and the players it sets up, which loop holds
which table, the partner's server (HTTPS through the balancer), and the books checked at the end."""

from __future__ import annotations

import http.client
import json
import ssl
import threading
import time
import uuid
from collections import Counter
from decimal import Decimal

from bench.cluster.hosts import CERTIFICATE, LB
from bench.cluster.network import HOSTS

FUNDS = Decimal("100000.00")
TABLES = ("cluster1", "cluster2")  # two tables, so that each loop has one to stand by for
PARTNER_STAKE = "2.00"


def bed_setup(*, players: int, partner_players: int, betting_seconds: int) -> dict:
    """The tables (open, automatic), the socket players signed in and funded, the partner's key and players."""
    from django.conf import settings
    from django.contrib.auth import get_user_model

    from bench.load_harness import signed_in_session_key
    from partners import services as partner_services
    from tables.services import table_create, table_open
    from wagering.wallets import wallet_deposit

    boss = get_user_model().objects.create_user(username="bed-boss")
    for code in TABLES:
        table = table_create(code=code, name=code.title(), actor=boss, betting_seconds=betting_seconds)
        table_open(table=table, actor=boss)
    sockets = []
    for number in range(players):
        user = get_user_model().objects.create_user(username=f"bed-{number}")
        wallet_deposit(user=user, amount=FUNDS, idempotency_key=uuid.uuid4().hex, reason="bed")
        sockets.append(
            (f"{settings.SESSION_COOKIE_NAME}={signed_in_session_key(user)}", ("player", "banker")[number % 2])
        )
    partner = partner_services.partner_create(code="bed", name="Bed")
    key = partner_services.partner_api_key_create(partner=partner, name="bed").key
    for number in range(partner_players):
        player, _ = partner_services.partner_player_create(partner=partner, external_id=f"p-{number}")
        partner_services.partner_wallet_deposit(
            partner=partner, player=player, amount=FUNDS, idempotency_key=uuid.uuid4().hex
        )
    return {"sockets": sockets, "partner_key": key, "partner_players": partner_players}


def lock_holders() -> dict[str, int]:
    """How many tables each loop host deals (its advisory locks granted), by host name."""
    from django.db import connection

    names = {address: host for host, address in HOSTS.items()}
    connection.close()  # a connection of a PostgreSQL since restarted would fail
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT host(a.client_addr), count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
            "WHERE l.locktype = 'advisory' AND l.granted GROUP BY 1"
        )
        rows = cursor.fetchall()
    connection.close()
    return {names.get(address, address): count for address, count in rows}


class PartnerServer(threading.Thread):
    """A partner's server placing bets for its players through the balancer, one every ``interval`` seconds,
    each sent again with its Idempotency-Key until it has an answer (a 201 or a refusal)."""

    def __init__(self, *, key: str, players: int, interval: float) -> None:
        super().__init__(daemon=True)
        self.key, self.players, self.interval = key, players, interval
        self.stop = threading.Event()
        self.acked: set[str] = set()
        self.refused: Counter = Counter()
        self.retries = 0
        self.unanswered: set[str] = set()

    def _send(self, context: ssl.SSLContext, player: int, body: bytes, idempotency_key: str) -> dict | None:
        connection = http.client.HTTPSConnection(LB, 443, context=context, timeout=30)
        headers = {"Authorization": f"Bearer {self.key}", "Idempotency-Key": idempotency_key}
        try:
            connection.request(
                "POST", f"/api/v1/players/p-{player}/bets/", body, headers | {"Content-Type": "application/json"}
            )
            response = connection.getresponse()
            answer = json.loads(response.read() or b"{}")
        except (OSError, http.client.HTTPException, ValueError):
            return None
        finally:
            connection.close()
        if response.status >= 500 and response.status != 503:
            return None
        return {"status": response.status, **answer}

    def run(self) -> None:
        context = ssl.create_default_context(cafile=str(CERTIFICATE))
        number = 0
        while not self.stop.wait(self.interval):
            number += 1
            player, idempotency_key = number % self.players, uuid.uuid4().hex
            body = json.dumps({"table": TABLES[1], "bets": {("player", "banker")[number % 2]: PARTNER_STAKE}}).encode()
            deadline = time.monotonic() + 60
            while (answer := self._send(context, player, body, idempotency_key)) is None or answer["status"] == 503:
                self.retries += 1
                if time.monotonic() > deadline or self.stop.is_set():
                    self.unanswered.add(idempotency_key)
                    break
                time.sleep(0.5)
            else:
                if answer["status"] == 201:
                    self.acked.add(idempotency_key)
                else:
                    self.refused[str(answer.get("error", {}).get("code", answer["status"]))] += 1


def coups_finished(*, timeout: float) -> bool:
    """The tables closed and every coup settled or void (the loops and the worker finish them)."""
    from django.contrib.auth import get_user_model
    from django.db import connection

    from tables.models import Coup, Table
    from tables.services import table_close

    connection.close()
    boss = get_user_model().objects.get(username="bed-boss")
    for table in Table.objects.filter(code__in=TABLES, is_open=True):
        table_close(table=table, actor=boss, reason="end of the bed's run")
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not Coup.objects.exclude(state__in=[Coup.State.SETTLED, Coup.State.VOID]).exists():
            return True
        connection.close()
        time.sleep(1)
    return False


def books_problems(*, players: dict, partner: PartnerServer) -> list[str]:
    """``ledger_check`` and ``settlement_check`` (every coup settled or void, each card once, each bet settled
    once, each wallet right), every acknowledged bet present once, none refused to a player but accepted, no
    request placed twice."""
    from partners.models import PartnerPlayer
    from wagering.checks import ledger_check, settlement_check
    from wagering.models import BetBatch, BetRequest

    settlement, ledger = settlement_check(), ledger_check()
    problems = settlement.problems + ledger.problems
    print(f"books: coups {settlement.coups}; bets {settlement.bets}; ledger {ledger.transactions} transactions")
    partner_users = PartnerPlayer.objects.values_list("user_id", flat=True)
    requests = BetRequest.objects.filter(kind="bet", accepted=True).exclude(user_id__in=partner_users)
    accepted = set(requests.values_list("key", flat=True))
    if lost := players["acked"] - accepted:
        problems.append(f"{len(lost)} bets acknowledged to socket players not in the books")
    if wrong := {key for key in players["refused"] if key in accepted}:
        codes = dict(Counter(players["refused"][key] for key in wrong))
        problems.append(
            f"{len(wrong)} bets refused to socket players ({codes}) but accepted in the books: {sorted(wrong)[:3]}"
        )
    socket_batches = BetBatch.objects.filter(user__isnull=False).exclude(user_id__in=partner_users).count()
    if socket_batches != len(accepted):
        problems.append(f"socket players: {socket_batches} bet batches for {len(accepted)} accepted requests")
    partner_batches = BetBatch.objects.filter(user_id__in=partner_users).count()
    if not len(partner.acked) <= partner_batches <= len(partner.acked) + len(partner.unanswered):
        problems.append(f"partner: {partner_batches} bet batches for {len(partner.acked)} acknowledged bets")
    unknown = len(accepted) - len(players["acked"] & accepted)
    print(
        f"socket bets: {len(players['acked'])} acknowledged, {len(players['refused'])} refused, "
        f"{len(players['unanswered'])} unanswered at the stop; {len(accepted)} accepted in the books "
        f"({unknown} of them unacknowledged, each once); partner: {len(partner.acked)} acknowledged, refused "
        f"{dict(partner.refused) or 'none'}, {partner.retries} resends, {partner_batches} batches in the books"
    )
    return problems
