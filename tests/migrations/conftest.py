"""Every test here migrates the shared test database back and forth: whatever it leaves, the next test (in this
folder or any other) finds every migration applied, even when it failed half-way or stopped short of a newer leaf.
The runtime role's privileges on the tables made anew follow (tests/conftest.py, pytest_runtest_teardown)."""

from __future__ import annotations

import pytest
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.db.migrations.executor import MigrationExecutor


@pytest.fixture(autouse=True)
def every_migration_applied_afterwards():
    yield
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
    ContentType.objects.clear_cache()
