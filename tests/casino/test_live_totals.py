"""A table's bet totals go out at most every TOTALS_INTERVAL_SECONDS per process and currency: the first at
once, the latest of those made meanwhile when the interval has passed, none lost."""

import json
import time

import pytest

from kernel import live
from tests.conftest import totals_throttle_forget


@pytest.fixture
def published(monkeypatch):
    sent = []
    monkeypatch.setattr(live, "_send_now", lambda messages: sent.extend(json.loads(m["text"]) for _, m, _ in messages))
    monkeypatch.setattr(live, "TOTALS_INTERVAL_SECONDS", 0.2)
    totals_throttle_forget()
    return sent


def totals(sent, currency="EUR"):
    return [event["data"]["totals"]["banker"] for event in sent if event["data"]["currency"] == currency]


@pytest.mark.django_db
def test_a_burst_of_totals_sends_the_first_and_the_last(published, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        for amount in range(1, 51):
            data = {"round_id": "R-1", "currency": "EUR", "totals": {"banker": f"{amount}.00"}}
            live.table_totals_send(table_code="t1", currency="EUR", data=data)
        live.table_totals_send(
            table_code="t1", currency="USD", data={"round_id": "R-1", "currency": "USD", "totals": {"banker": "7.00"}}
        )
    assert totals(published) == ["1.00"]  # at once; the rest within the interval wait
    assert totals(published, "USD") == ["7.00"]  # another currency has its own interval
    deadline = time.monotonic() + 2
    while len(totals(published)) < 2 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert totals(published) == ["1.00", "50.00"]  # then the latest, and only it
    time.sleep(0.3)
    assert totals(published) == ["1.00", "50.00"]
    assert all(event["type"] == "bet_totals" and event["table"] == "t1" for event in published)
