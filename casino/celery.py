"""The Celery application: settlement, webhook deliveries and game-history reports, a queue each (settings)."""

import os

from celery import Celery
from celery.signals import beat_init, worker_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")

app = Celery("casino")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()  # every app's tasks module
app.autodiscover_tasks(["casino.lifecycle"])  # the lifecycle's: settlement, the hourly roots


@worker_init.connect
@beat_init.connect
def _migrate_url_warn(sender, **kwargs) -> None:
    from kernel.database_roles import migrate_url_warn  # late: casino/__init__.py imports this module first

    migrate_url_warn("Celery worker or beat")
