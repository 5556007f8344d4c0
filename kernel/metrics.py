"""Production metrics in Prometheus's format (prometheus-client), served at ``/metrics`` to staff or to a
scraper with ``METRICS_TOKEN``.

Each web process and Celery worker counts its own; with ``PROMETHEUS_MULTIPROC_DIR`` set (the
``Procfile`` sets it) they write to files there and ``/metrics`` adds them up, as prometheus-client's
multiprocess mode does. Celery's queue depths are read from Redis when scraped.
"""

from __future__ import annotations

import hmac
import os

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import GaugeMetricFamily

BETS_ACCEPTED = Counter("punto_bets_accepted", "Bet requests accepted (batches, undos, removes, rebets)", ["table"])
BETS_REFUSED = Counter("punto_bets_refused", "Bet requests refused, by error code", ["table", "code"])
INTAKE_BATCH_SIZE = Histogram(
    "punto_intake_batch_size", "Bet requests committed together", buckets=(1, 2, 5, 10, 20, 50, 100, 200)
)
INTAKE_COMMIT_SECONDS = Histogram(
    "punto_intake_commit_seconds",
    "Time to carry out and commit a batch of bet requests",
    buckets=(0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5),
)
SETTLEMENT_LAG_SECONDS = Histogram(
    "punto_settlement_lag_seconds",
    "From a coup's result to its bets paid",
    buckets=(0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60),
)
OPEN_SOCKETS = Gauge("punto_open_sockets", "Open table WebSockets", multiprocess_mode="livesum")
WEBHOOK_FAILURES = Counter("punto_webhook_failures", "Webhook delivery attempts that failed", ["partner"])
CELERY_QUEUES = ("settlement", "webhooks", "wallet", "reports", "celery")


def bet_request_count(*, table: str, code: str | None) -> None:
    """One bet request answered: accepted (``code`` None) or refused with ``code``."""
    if code is None:
        BETS_ACCEPTED.labels(table=table).inc()
    else:
        BETS_REFUSED.labels(table=table, code=code).inc()


def webhook_failure_count(*, partner: str) -> None:
    WEBHOOK_FAILURES.labels(partner=partner).inc()


def settlement_lag_observe(seconds: float) -> None:
    SETTLEMENT_LAG_SECONDS.observe(seconds)


def open_sockets_change(change: int) -> None:
    OPEN_SOCKETS.inc(change)


def intake_batch_observe(*, table: str, size: int, seconds: float) -> None:
    INTAKE_BATCH_SIZE.observe(size)
    INTAKE_COMMIT_SECONDS.observe(seconds)


class _QueueDepths:
    """Celery's queues as Redis holds them, read at each scrape (none without Redis)."""

    def collect(self):
        depths = GaugeMetricFamily("punto_celery_queue_depth", "Tasks waiting in a Celery queue", labels=["queue"])
        if settings.REDIS_URL:
            import redis  # only with Redis configured

            client = redis.Redis.from_url(settings.CELERY_BROKER_URL, socket_timeout=1)
            try:
                for name in CELERY_QUEUES:
                    depths.add_metric([name], client.llen(name))
            except redis.RedisError:
                pass  # the scrape goes on without them
            finally:
                client.close()
        yield depths


def metrics_text() -> bytes:
    """Every process's metrics (the multiprocess files, else this process's), then the queue depths."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
    else:
        registry = REGISTRY
    queues = CollectorRegistry()
    queues.register(_QueueDepths())
    return generate_latest(registry) + generate_latest(queues)


def metrics_allowed(request: HttpRequest) -> bool:
    """Staff signed in, or the scraper's ``Authorization: Bearer <METRICS_TOKEN>``."""
    token = settings.METRICS_TOKEN
    given = request.headers.get("Authorization", "")
    if token and hmac.compare_digest(given.encode(), f"Bearer {token}".encode()):
        return True
    return bool(request.user.is_authenticated and request.user.is_staff)


def metrics_response() -> HttpResponse:
    return HttpResponse(metrics_text(), content_type=CONTENT_TYPE_LATEST)
