"""The ledger's hourly roots (``wagering.ledger_roots``), append-only on PostgreSQL: UPDATE, DELETE and
TRUNCATE refused by a trigger, as migration 0010 does for the ledger. SQLite has none."""

from django.db import migrations, models

CREATE = """
CREATE OR REPLACE FUNCTION wagering_ledgerroot_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'the ledger roots are append-only: % of % refused', TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'insufficient_privilege';
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER wagering_ledgerroot_append_only
    BEFORE UPDATE OR DELETE ON wagering_ledgerroot
    FOR EACH ROW EXECUTE FUNCTION wagering_ledgerroot_append_only();
CREATE TRIGGER wagering_ledgerroot_no_truncate
    BEFORE TRUNCATE ON wagering_ledgerroot
    FOR EACH STATEMENT EXECUTE FUNCTION wagering_ledgerroot_append_only();
"""

DROP = """
DROP TRIGGER IF EXISTS wagering_ledgerroot_no_truncate ON wagering_ledgerroot;
DROP TRIGGER IF EXISTS wagering_ledgerroot_append_only ON wagering_ledgerroot;
DROP FUNCTION IF EXISTS wagering_ledgerroot_append_only();
"""


def _on_postgresql(sql):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(sql, params=None)

    return run


class Migration(migrations.Migration):
    dependencies = [("wagering", "0019_ledger_guards_unforgeable")]

    operations = [
        migrations.CreateModel(
            name="LedgerRoot",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("hour", models.DateTimeField(help_text="the hour's start (UTC)", unique=True)),
                ("transactions_after_id", models.BigIntegerField()),
                ("transactions_last_id", models.BigIntegerField()),
                ("audit_after_id", models.BigIntegerField()),
                ("audit_last_id", models.BigIntegerField()),
                ("leaf_count", models.PositiveIntegerField()),
                ("merkle_root", models.CharField(help_text="SHA-256, hex: the hour's rows", max_length=64)),
                (
                    "previous_root",
                    models.CharField(help_text="the hour before's root (zeros for the first)", max_length=64),
                ),
                (
                    "root",
                    models.CharField(
                        help_text="SHA-256, hex: chained to the previous root", max_length=64, unique=True
                    ),
                ),
                ("leaf_digests", models.BinaryField()),
                ("sealed_at", models.DateTimeField(auto_now_add=True)),
            ],
            options={"ordering": ["-hour"]},
        ),
        migrations.RunPython(_on_postgresql(CREATE), _on_postgresql(DROP)),
    ]
