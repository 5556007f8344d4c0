"""Live events to a table's browsers, sent only once the transaction commits (Zulip style).

Every event is JSON: ``{"type": ..., "version": 1, "table": code, "data": {...}}``.
Amounts travel as strings: ``channels_redis`` cannot carry ``Decimal``.
"""

from __future__ import annotations

import json
import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

EVENT_VERSION = 1
logger = logging.getLogger(__name__)


def table_group(table_code: str) -> str:
    return f"table.{table_code}"


def user_group(user_id: int) -> str:
    return f"user.{user_id}"


def _send_on_commit(group: str, event: dict) -> None:
    json.dumps(event)  # fail now, inside the service, on a payload Redis could not carry

    def send() -> None:
        layer = get_channel_layer()
        if layer is None:
            return
        try:
            async_to_sync(layer.group_send)(group, {"type": "live.event", "event": event})
        except Exception:  # the database is the truth: a lost push is caught up from the snapshot
            logger.exception("live event %s to %s not sent", event["type"], group)

    transaction.on_commit(send)


def table_event_send(*, table_code: str, event_type: str, data: dict) -> None:
    _send_on_commit(
        table_group(table_code), {"type": event_type, "version": EVENT_VERSION, "table": table_code, "data": data}
    )


def user_event_send(*, user_id: int, event_type: str, data: dict) -> None:
    _send_on_commit(user_group(user_id), {"type": event_type, "version": EVENT_VERSION, "data": data})
