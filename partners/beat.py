"""Celery beat entries of the partners app, merged into ``CELERY_BEAT_SCHEDULE``."""

from celery.schedules import crontab

BEAT_SCHEDULE = {
    # Seamless wallets: what is due and was not sent (a broker down, a worker lost), again.
    "partners-wallet-transactions-resend": {
        "task": "partners.tasks.wallet_transactions_resend",
        "schedule": 60.0,
    },
    # Yesterday's reconciliation report per partner, once its rounds are settled.
    "partners-reconciliation-yesterday": {
        "task": "partners.tasks.reconciliation_report_build",
        "schedule": crontab(hour=0, minute=45),
    },
}
