"""PostgreSQL refuses TRUNCATE of the audit log too (0003 refuses UPDATE and DELETE of its rows).

A TRUNCATE fires no row trigger: it takes a statement trigger of its own.
"""

from django.db import migrations

CREATE = """
CREATE TRIGGER tables_auditlog_no_truncate
    BEFORE TRUNCATE ON tables_auditlog
    FOR EACH STATEMENT EXECUTE FUNCTION tables_auditlog_append_only();
"""

DROP = "DROP TRIGGER IF EXISTS tables_auditlog_no_truncate ON tables_auditlog;"


def _on_postgresql(sql):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(sql, params=None)

    return run


class Migration(migrations.Migration):
    dependencies = [("tables", "0007_result_correction")]

    operations = [migrations.RunPython(_on_postgresql(CREATE), _on_postgresql(DROP))]
