"""A table's bet totals go out at most every TOTALS_INTERVAL_SECONDS per currency, across the web processes: the
first at once, the latest of those made meanwhile when the interval has passed, none lost."""

import json
import time

import pytest

from kernel import live
from kernel.rate_counts import counts_cache, window_turn
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


across_processes = pytest.mark.skipif(not isinstance(counts_cache, RedisCache), reason="across processes: Redis")


def another_process_sends(table_code: str, *, seconds: float, later: bool) -> None:
    """Another process takes the table's window for totals it made before (or after) any of this test's."""
    stamp = time.time_ns() // 1000 + (10**9 if later else -(10**9))
    assert window_turn(key=f"live:totals:{table_code}:EUR", seconds=seconds, stamp=stamp) == 0


def send(table_code: str, *amounts: int) -> None:
    for amount in amounts:
        data = {"round_id": "R-2", "currency": "EUR", "totals": {"banker": f"{amount}.00"}}
        live.table_totals_send(table_code=table_code, currency="EUR", data=data)


def waited(published, seconds: float = 2) -> None:
    deadline = time.monotonic() + seconds
    while not published and time.monotonic() < deadline:
        time.sleep(0.02)


@across_processes
@pytest.mark.django_db
def test_totals_wait_for_the_interval_another_process_took_then_the_latest_goes(
    published, django_capture_on_commit_callbacks
):
    """Each web process sent a table's totals every interval: N processes, N times the writes to every socket."""
    another_process_sends("t2", seconds=0.4, later=False)
    with django_capture_on_commit_callbacks(execute=True):
        send("t2", 3, 4)
    assert totals(published) == []  # not at once: the other's interval
    waited(published)
    assert totals(published) == ["4.00"]  # when it ends, the latest; none lost
    time.sleep(0.5)
    assert totals(published) == ["4.00"]


@across_processes
@pytest.mark.django_db
def test_totals_made_before_those_another_process_sent_are_not_sent_after_them(
    published, django_capture_on_commit_callbacks
):
    """Sent when the other's interval ends, they would stay on every screen, older than the ones before them."""
    another_process_sends("t3", seconds=0.3, later=True)
    with django_capture_on_commit_callbacks(execute=True):
        send("t3", 5)
    time.sleep(0.8)
    assert totals(published) == []
    with django_capture_on_commit_callbacks(execute=True):
        send("t3", 6)  # made now: still before the other's (1,000 s ahead here)
    time.sleep(0.5)
    assert totals(published) == []
