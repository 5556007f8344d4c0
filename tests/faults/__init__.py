"""Faults survived, with real processes killed: table loop, Celery worker, Redis, a database connection."""
