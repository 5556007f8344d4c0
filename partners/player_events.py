"""A partner told of its players' play sessions: ``player.reality_check`` (the player's answer to a reality
check, with the session so far) and ``player.session_limit_reached`` (once per session, when its limit
passes: the Celery beat task every minute). Written in the transaction that records what happened, one
delivery per subscribed active endpoint of the player's partner, sent on commit and signed like every event
(``partners.webhooks``)."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable
from dataclasses import replace
from datetime import datetime

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from partners.models import PartnerPlayer, WebhookDelivery, WebhookEndpoint
from partners.webhooks import deliveries_send_on_commit, subscribed
from wagering.protection.services import session_summary, sessions_ended_mark
from wagering.protection.standing import Protection, players_protection

User = AbstractBaseUser
REALITY_CHECK = WebhookDelivery.EventType.PLAYER_REALITY_CHECK
SESSION_LIMIT_REACHED = WebhookDelivery.EventType.PLAYER_SESSION_LIMIT_REACHED


def player_reality_check_tell(*, user: User, answer: str, summary: dict) -> None:
    """The player's answer to a reality check (continue, leave or history) and the session's ``summary``
    (``reality_check_answer``'s) to their partner; nothing for a player of no partner. Call it in the
    transaction that records the answer."""
    players = list(PartnerPlayer.objects.filter(user_id=user.pk).select_related("partner"))
    _deliveries_write(
        players,
        event_type=REALITY_CHECK,
        data=lambda player: {"player_id": player.external_id, "answer": answer, "session": summary},
    )


def player_sessions_ended_tell(*, now: datetime | None = None) -> int:
    """Every play session whose limit passed, marked told (``sessions_ended_mark``: the player's pages end it)
    and, for a partner's player, its ``player.session_limit_reached`` written in the same transaction, a batch
    at a time. How many sessions."""
    now = now or timezone.now()
    told = 0
    while batch := _sessions_ended_batch(now):
        told += batch
    return told


@transaction.atomic
def _sessions_ended_batch(now: datetime) -> int:
    user_ids = sessions_ended_mark(now=now)
    players = list(PartnerPlayer.objects.filter(user_id__in=user_ids).select_related("partner"))
    protections = players_protection(user_ids=[player.user_id for player in players], at=now)
    _deliveries_write(
        players,
        event_type=SESSION_LIMIT_REACHED,
        data=lambda player: _session_ended(player, protections[player.user_id]),
    )
    return len(user_ids)


def _session_ended(player: PartnerPlayer, protection: Protection) -> dict:
    """The session as it ended: when it started and ended, its minutes, stakes, returns and net result."""
    ended = replace(protection, at=protection.session_ends_at)
    return {
        "player_id": player.external_id,
        "session": {
            "started_at": protection.session_started_at.isoformat(),
            "ended_at": protection.session_ends_at.isoformat(),
            **session_summary(protection=ended),
        },
    }


def _deliveries_write(
    players: Iterable[PartnerPlayer], *, event_type: str, data: Callable[[PartnerPlayer], dict]
) -> list[WebhookDelivery]:
    """One delivery of the event per player and subscribed active endpoint of their partner; sent on commit."""
    players = list(players)
    endpoints = WebhookEndpoint.objects.filter(
        partner__in={player.partner_id for player in players}, is_active=True
    ).order_by("pk")
    by_partner: dict[int, list[WebhookEndpoint]] = {}
    for endpoint in subscribed(endpoints, event_type):
        by_partner.setdefault(endpoint.partner_id, []).append(endpoint)
    deliveries = []
    for player in players:
        if not by_partner.get(player.partner_id):
            continue
        event_data = {**data(player), "currency": player.partner.currency}
        for endpoint in by_partner[player.partner_id]:
            event_id = uuid.uuid4()
            payload = {
                "id": str(event_id),
                "type": event_type,
                "created_at": timezone.now().isoformat(),
                "data": event_data,
            }
            deliveries.append(
                WebhookDelivery(
                    endpoint=endpoint, event_id=event_id, event_type=event_type, player=player, payload=payload
                )
            )
    if deliveries:
        WebhookDelivery.objects.bulk_create(deliveries)
        deliveries_send_on_commit([delivery.pk for delivery in deliveries])
    return deliveries
