"""Celery beat entries of the composition layer, merged into ``CELERY_BEAT_SCHEDULE``."""

from celery.schedules import crontab

BEAT_SCHEDULE = {
    # The ledger's hourly roots (wagering.ledger_roots): an hour is due 5 minutes after it ends; each run
    # seals every hour due (after a worker was down, in order) and sends the roots to the partners.
    "casino-ledger-roots-seal": {
        "task": "casino.tasks.ledger_roots_seal",
        "schedule": crontab(minute=6),
    },
    # Play sessions whose limit passed (wagering.protection): ended on the players' pages, told to the
    # partners of theirs once (partners.player_events).
    "casino-play-sessions-ended-tell": {
        "task": "casino.tasks.play_sessions_ended_tell",
        "schedule": 60.0,
    },
    # The private shoes of tables dealt on demand (issue 30) left idle: finished, so their order is revealed.
    "casino-rng-idle-shoes-close": {
        "task": "casino.tasks.rng_idle_shoes_close",
        "schedule": 300.0,
    },
}
