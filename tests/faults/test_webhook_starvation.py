"""A partner's receiver that trickles a header byte every few tenths of a second (never a whole answer) holds
a webhook worker for the attempt's deadline, and no longer; settlement, on its own queue and workers, goes on.

Real workers, one per queue as in the Procfile, on the test database and Redis.
"""

from __future__ import annotations

import time

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from casino.lifecycle import loop
from partners import webhook_http, webhooks
from partners.models import WebhookDelivery
from tables.models import Coup
from tables.services import table_create, table_open
from tests.partners.conftest import partner_make, player_make
from tests.partners.test_webhook_attempts import RawReceiver, trickle
from tests.processes import wait_until
from wagering.placement import bet_batch_place

pytestmark = [pytest.mark.faults, pytest.mark.postgres, pytest.mark.redis, pytest.mark.django_db(transaction=True)]

WORKER_ENV = {"WEBHOOK_ALLOW_PRIVATE_TARGETS": "true"}  # the receiver listens on 127.0.0.1


def open_table(code: str):
    boss, _ = get_user_model().objects.get_or_create(username="boss")
    table = table_create(code=code, name=code, actor=boss, betting_seconds=2)
    return table_open(table=table, actor=boss)


def resolved_coup(table, bets: dict) -> Coup:
    """Step the table (in this process) to a coup taking bets, place ``bets`` (user: bets) and step it to
    resolved: its settlement task goes to the broker when the resolution commits."""
    while not Coup.objects.filter(table=table, state=Coup.State.BETTING).exists():
        loop.table_step(table_id=table.pk)
    coup = Coup.objects.get(table=table, state=Coup.State.BETTING)
    for user, placed in bets.items():
        bet_batch_place(user=user, coup=coup, bets=placed)
    Coup.objects.filter(pk=coup.pk).update(betting_closes_at=timezone.now())  # the betting seconds have passed
    while loop.table_step(table_id=table.pk).kind is not loop.StepKind.RESOLVED:
        pass
    return coup


def settled(coup: Coup) -> bool:
    return Coup.objects.get(pk=coup.pk).state == Coup.State.SETTLED


def test_a_trickling_receiver_holds_no_settlement_and_its_attempt_ends_at_the_deadline(
    processes, real_worker_tasks, players
):
    processes.worker(queues="settlement", **WORKER_ENV)
    processes.worker(queues="webhooks", pool="prefork", **WORKER_ENV)
    partner = partner_make("acme")
    partner_player = player_make(partner, "p-1")
    with RawReceiver(trickle) as receiver:
        webhooks.webhook_endpoint_create(partner=partner, url=f"http://127.0.0.1:{receiver.port}/hooks")
        with_partner = resolved_coup(open_table("webhooked"), {partner_player.user: {"player": "10.00"}})
        wait_until(lambda: receiver.connections == 1, what="the webhook worker connected to the slow receiver")
        held_since = time.monotonic()

        elsewhere = resolved_coup(open_table("elsewhere"), {players[0]: {"banker": "20.00"}})
        wait_until(lambda: settled(elsewhere), what="the other table's coup settled", timeout=8)
        delivery = WebhookDelivery.objects.get(coup=with_partner)
        assert delivery.attempts == 0  # settled while the webhook worker was still held by the receiver

        wait_until(lambda: WebhookDelivery.objects.get(pk=delivery.pk).attempts == 1, what="the attempt recorded")
        held = time.monotonic() - held_since
    delivery.refresh_from_db()
    deadline = webhook_http.ATTEMPT_DEADLINE_SECONDS
    assert deadline - 1 <= held <= deadline + 3
    assert (delivery.status, delivery.last_status_code) == ("pending", None)  # retried later, per its schedule
    assert delivery.last_error == f"TimeoutError: no complete answer within the attempt's {deadline:g} s"
    assert settled(with_partner)
