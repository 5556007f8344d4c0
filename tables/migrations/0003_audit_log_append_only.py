"""PostgreSQL refuses any UPDATE or DELETE of an audit row, whoever asks (the ORM refuses too).

SQLite has no such trigger; there the model and its queryset refuse updates and deletes.
"""

from django.db import migrations

CREATE = """
CREATE OR REPLACE FUNCTION tables_auditlog_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'the audit log is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER tables_auditlog_append_only
    BEFORE UPDATE OR DELETE ON tables_auditlog
    FOR EACH ROW EXECUTE FUNCTION tables_auditlog_append_only();
"""

DROP = """
DROP TRIGGER IF EXISTS tables_auditlog_append_only ON tables_auditlog;
DROP FUNCTION IF EXISTS tables_auditlog_append_only();
"""


def _on_postgresql(sql):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(sql, params=None)

    return run


class Migration(migrations.Migration):
    dependencies = [("tables", "0002_shoe_commitment")]

    operations = [migrations.RunPython(_on_postgresql(CREATE), _on_postgresql(DROP))]
