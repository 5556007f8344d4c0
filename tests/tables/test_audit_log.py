"""The audit log is append-only: not through the ORM, and on PostgreSQL not even in SQL."""

import pytest
from django.core.exceptions import PermissionDenied
from django.db import DatabaseError, connection, transaction

from tables.audit import audit_record
from tables.models import AuditLog

pytestmark = pytest.mark.django_db


@pytest.fixture
def entry():
    return audit_record(action="table_opened", actor_label="test", reason="opening")


def test_the_orm_refuses_to_change_or_delete_an_entry(entry):
    entry.reason = "rewritten"
    with pytest.raises(PermissionDenied):
        entry.save()
    with pytest.raises(PermissionDenied):
        entry.delete()
    with pytest.raises(PermissionDenied):
        AuditLog.objects.filter(pk=entry.pk).update(reason="rewritten")
    with pytest.raises(PermissionDenied):
        AuditLog.objects.all().delete()
    assert AuditLog.objects.get(pk=entry.pk).reason == "opening"


@pytest.mark.postgres
@pytest.mark.skipif(connection.vendor != "postgresql", reason="the trigger exists on PostgreSQL only")
@pytest.mark.database_owner  # the trigger; the runtime role is refused sooner (tests/kernel/test_database_roles.py)
@pytest.mark.parametrize(
    "sql",
    ["UPDATE tables_auditlog SET reason = 'rewritten' WHERE id = %s", "DELETE FROM tables_auditlog WHERE id = %s"],
)
def test_postgresql_refuses_raw_sql_too(entry, sql):
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(sql, [entry.pk])
    assert AuditLog.objects.get(pk=entry.pk).reason == "opening"


@pytest.mark.postgres
@pytest.mark.skipif(connection.vendor != "postgresql", reason="the trigger exists on PostgreSQL only")
@pytest.mark.django_db(transaction=True)  # committed: PostgreSQL refuses TRUNCATE with checks pending anyway
@pytest.mark.database_owner
def test_postgresql_refuses_to_truncate_the_log():
    entry = audit_record(action="table_opened", actor_label="test", reason="opening")
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("TRUNCATE tables_auditlog CASCADE")
    assert AuditLog.objects.get(pk=entry.pk).reason == "opening"
