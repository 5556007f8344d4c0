"""A table's bet totals go out at most every TOTALS_INTERVAL_SECONDS per currency, across the web processes: the
first at once, the latest of those made meanwhile when the interval has passed, none lost."""

import json
import time

import pytest

from kernel import live
from kernel.rate_counts import counts_cache, window_claim
from kernel.redis_cache import RedisCache
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


@pytest.mark.skipif(not isinstance(counts_cache, RedisCache), reason="across processes: Redis")
@pytest.mark.django_db
def test_totals_wait_for_the_interval_another_process_took_then_the_latest_goes(
    published, django_capture_on_commit_callbacks
):
    """Each web process sent a table's totals every interval: N processes, N times the writes to every socket."""
    assert window_claim(key="live:totals:t2:EUR", seconds=0.4) == 0  # another process has just sent t2's totals
    with django_capture_on_commit_callbacks(execute=True):
        for amount in (3, 4):
            data = {"round_id": "R-2", "currency": "EUR", "totals": {"banker": f"{amount}.00"}}
            live.table_totals_send(table_code="t2", currency="EUR", data=data)
    assert totals(published) == []  # not at once: the other's interval
    deadline = time.monotonic() + 2
    while not published and time.monotonic() < deadline:
        time.sleep(0.02)
    assert totals(published) == ["4.00"]  # when it ends, the latest; none lost
    time.sleep(0.5)
    assert totals(published) == ["4.00"]
