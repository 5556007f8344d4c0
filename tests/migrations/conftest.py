"""Every test here migrates the shared test database back and forth: whatever it leaves, the next test (in this
folder or any other) finds every migration applied, even when it failed half-way or stopped short of a newer leaf,
and the runtime role's privileges on the tables made anew."""

from __future__ import annotations

import pytest
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from kernel import database_roles


@pytest.fixture(autouse=True)
def every_migration_applied_afterwards():
    yield
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
    ContentType.objects.clear_cache()
    database_roles.runtime_role_grant()
