"""Requests counted in the shared cache in one round trip: the fixed window of the players' bet requests, the
partner API's sliding window (DRF's semantics) and a window one process takes at a time, on Redis (CI) as on the
embedded default's memory."""

import time
import uuid

import pytest
from rest_framework.throttling import SimpleRateThrottle

from kernel.rate_counts import counts_cache, sliding_window_admit, window_count, window_turn
from kernel.redis_cache import RedisCache


@pytest.fixture
def key():
    """A key of this run's own (Redis keeps an earlier run's for their time)."""
    return uuid.uuid4().hex


def test_a_fixed_window_counts_from_one(key):
    assert [window_count(key=key, timeout=2) for _ in range(3)] == [1, 2, 3]
    assert window_count(key=f"{key}:next", timeout=2) == 1


def test_the_sliding_window_admits_up_to_its_limit_then_frees_a_place_as_the_oldest_leaves(key):
    def admit(now: float):
        return sliding_window_admit(key=key, limit=3, duration=60, now=now)

    assert [(c.allowed, c.count, c.oldest) for c in (admit(100.0), admit(110.5), admit(120.25))] == [
        (True, 1, 100.0),
        (True, 2, 100.0),
        (True, 3, 100.0),
    ]
    refused = admit(130.0)
    assert (refused.allowed, refused.count, refused.oldest) == (False, 3, 100.0)
    assert not admit(159.9).allowed
    again = admit(160.0)  # the oldest is 60 s old: out of the window (as DRF's)
    assert (again.allowed, again.count, again.oldest) == (True, 3, 110.5)


def test_the_sliding_window_answers_as_drfs_own_throttle(key):
    """The same requests at the same moments, allowed and refused alike, the same wait."""
    from partners.api.throttling import PartnerRateThrottle

    class Drf(SimpleRateThrottle):
        rate = "4/min"

        def get_cache_key(self, request, view):
            return f"{key}:drf"

    moments = [0.0, 1.0, 2.5, 3.0, 4.0, 59.0, 60.0, 60.5, 61.0, 62.0, 125.0, 125.1]
    ours, theirs = PartnerRateThrottle(), Drf()
    ours.num_requests, ours.duration = 4, 60
    for moment in moments:
        ours.now = moment
        ours.counted = sliding_window_admit(key=key, limit=4, duration=60, now=moment)
        theirs.timer = lambda moment=moment: moment
        allowed = theirs.allow_request(None, None)
        assert ours.counted.allowed == allowed, moment
        if not allowed:
            assert ours.wait() == theirs.wait(), moment


@pytest.mark.skipif(not isinstance(counts_cache, RedisCache), reason="the shared cache is Redis (REDIS_URL)")
def test_the_redis_client_is_built_once_and_shared():
    assert counts_cache._cache.get_client(write=True) is counts_cache._cache.get_client(write=True)


@pytest.mark.skipif(not isinstance(counts_cache, RedisCache), reason="across processes: Redis")
def test_a_window_is_one_processs_at_a_time_and_what_was_made_before_the_last_sent_is_stale(key):
    assert window_turn(key=key, seconds=0.3, stamp=100) == 0
    left = window_turn(key=key, seconds=0.3, stamp=300)  # another process, meanwhile: told how long it has left
    assert 0 < left <= 0.3
    time.sleep(left + 0.05)
    assert window_turn(key=key, seconds=0.3, stamp=300) == 0  # its turn when the window ends
    time.sleep(0.35)
    assert window_turn(key=key, seconds=0.3, stamp=200) is None  # made before what went out: stale
    assert window_turn(key=key, seconds=0.3, stamp=300) is None  # what went out, again
    assert window_turn(key=key, seconds=0.3, stamp=301) == 0


@pytest.mark.skipif(isinstance(counts_cache, RedisCache), reason="one process: local memory")
def test_in_one_process_the_window_is_always_its_own(key):
    assert [window_turn(key=key, seconds=10, stamp=stamp) for stamp in (3, 2, 1)] == [0, 0, 0]
