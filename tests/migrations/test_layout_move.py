"""Issue 28 moved code, not models: a database migrated before the move needs no migration after it. The models'
state as the migrations build it equals the models the code declares, each model's table is the one the
migrations made, and the code's app labels are the migrations' (content types and permissions keep their rows)."""

from __future__ import annotations

import pytest
from django.apps import apps
from django.db import connection
from django.db.migrations.autodetector import MigrationAutodetector
from django.db.migrations.executor import MigrationExecutor
from django.db.migrations.state import ProjectState

pytestmark = pytest.mark.django_db


def test_the_code_s_models_are_the_migrations_models():
    loader = MigrationExecutor(connection).loader
    changes = MigrationAutodetector(loader.project_state(), ProjectState.from_apps(apps)).changes(graph=loader.graph)
    assert changes == {}


def test_every_model_s_table_is_one_the_migrations_made():
    made = set(connection.introspection.table_names())
    models = [model for model in apps.get_models() if model._meta.managed]
    assert models and {model._meta.db_table for model in models} <= made


def test_every_app_with_models_has_its_migrations_under_its_label():
    loader = MigrationExecutor(connection).loader
    labelled = {model._meta.app_label for model in apps.get_models()}
    assert labelled <= {app for app, _ in loader.graph.nodes}
    assert MigrationExecutor(connection).migration_plan(loader.graph.leaf_nodes()) == []  # nothing left to apply
