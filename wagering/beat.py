"""Celery beat entries for the game-history reports and the bet requests' retention, to merge into
``CELERY_BEAT_SCHEDULE``."""

from celery.schedules import crontab

BEAT_SCHEDULE = {
    # Today's table and shoe reports, kept fresh through the day.
    "wagering-day-reports-today": {
        "task": "wagering.tasks.day_reports_build",
        "schedule": crontab(minute="*/15"),
    },
    # Yesterday's, once its last coups are settled: the final figures of the day.
    "wagering-day-reports-yesterday": {
        "task": "wagering.tasks.day_reports_build",
        "schedule": crontab(hour=0, minute=30),
        "kwargs": {"days_ago": 1},
    },
    # The players' bet requests (their request_ids' answers), past their retention.
    "wagering-bet-requests-prune": {
        "task": "wagering.tasks.bet_requests_prune",
        "schedule": crontab(hour=1, minute=15),
    },
}
