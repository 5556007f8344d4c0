"""``ledger_check`` warns when the application connects to PostgreSQL as a role that could disable the ledger's
guards (a superuser or the tables' owner); not on the embedded default, and not as the runtime role."""

import pytest
from django.db import connection

from kernel.database_roles import owner_credentials
from tests.kernel.test_database_roles import ONE_ROLE
from wagering.checks import ledger_check

pytestmark = pytest.mark.django_db
on_postgresql = pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's roles")


@pytest.mark.skipif(connection.vendor == "postgresql", reason="the embedded default's check")
def test_the_embedded_default_has_no_roles_to_warn_about():
    assert ledger_check().warnings == [] and ledger_check().ok


@on_postgresql
@pytest.mark.postgres
@pytest.mark.database_owner
def test_connected_as_the_owner_or_a_superuser_the_check_warns_and_the_books_are_still_sound():
    check = ledger_check()
    (warning,) = check.warnings
    assert warning.startswith(f"the application connects to the database as {owner_credentials()['USER']}, ")
    assert "can disable the ledger's guards" in warning and check.ok


@on_postgresql
@pytest.mark.postgres
@pytest.mark.skipif(ONE_ROLE, reason="the suite connects as the owner: no runtime role apart")
def test_connected_as_the_runtime_role_the_check_does_not_warn():
    assert ledger_check().warnings == []
