"""The Celery application: settlement, webhook deliveries and game-history reports, a queue each (settings)."""

import os

from celery import Celery
from celery.signals import beat_init, worker_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")

app = Celery("casino")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_init.connect
@beat_init.connect
def _migrate_url_warn(sender, **kwargs) -> None:
    from casino.database_roles import migrate_url_warn  # late: casino/__init__.py imports this module first

    migrate_url_warn("Celery worker or beat")
