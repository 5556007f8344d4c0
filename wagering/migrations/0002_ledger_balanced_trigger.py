"""PostgreSQL refuses, at commit, any ledger transaction whose legs do not sum to zero (like django-hordak).

A DEFERRABLE INITIALLY DEFERRED constraint trigger: the legs of a transaction are written one
statement after another, and only the committed whole must balance. SQLite has no such
trigger; there the services' own check and ``wagering.selectors.ledger_check`` stand guard.
"""

from django.db import migrations

CREATE = """
CREATE OR REPLACE FUNCTION wagering_ledger_transaction_balanced() RETURNS trigger AS $$
DECLARE
    checked bigint;
    total numeric;
BEGIN
    FOREACH checked IN ARRAY ARRAY[
        CASE WHEN TG_OP = 'DELETE' THEN NULL ELSE NEW.transaction_id END,
        CASE WHEN TG_OP = 'INSERT' THEN NULL ELSE OLD.transaction_id END
    ] LOOP
        CONTINUE WHEN checked IS NULL;
        SELECT COALESCE(SUM(amount), 0) INTO total FROM wagering_ledgerentry WHERE transaction_id = checked;
        IF total <> 0 THEN
            RAISE EXCEPTION 'ledger transaction % is unbalanced: its legs sum to %', checked, total
                USING ERRCODE = 'check_violation';
        END IF;
    END LOOP;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE CONSTRAINT TRIGGER wagering_ledgerentry_balanced
    AFTER INSERT OR UPDATE OR DELETE ON wagering_ledgerentry
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION wagering_ledger_transaction_balanced();
"""

DROP = """
DROP TRIGGER IF EXISTS wagering_ledgerentry_balanced ON wagering_ledgerentry;
DROP FUNCTION IF EXISTS wagering_ledger_transaction_balanced();
"""


def _on_postgresql(sql):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(sql, params=None)

    return run


class Migration(migrations.Migration):
    dependencies = [("wagering", "0001_initial")]

    operations = [migrations.RunPython(_on_postgresql(CREATE), _on_postgresql(DROP))]
