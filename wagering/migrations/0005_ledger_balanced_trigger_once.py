"""The ledger trigger sums a transaction once per batch of its new legs, not once per leg.

The trigger of 0002 runs for every row, and each run summed all the legs of the row's
transaction: a settlement of one leg per player (thousands) made the commit quadratic.
The trigger's runs for the legs of one statement come one after another, so each run now
remembers (in a setting local to the database transaction) the ledger transaction it summed
and its newest leg then; a run for a leg inserted no later than that is skipped, as that leg
was in the sum. An updated or deleted leg is always summed again. Same rule, same error.
"""

from django.db import migrations

CHECK_ONCE = """
CREATE OR REPLACE FUNCTION wagering_ledger_transaction_balanced() RETURNS trigger AS $$
DECLARE
    checked bigint;
    total numeric;
    newest bigint;
    summed text[];
BEGIN
    IF TG_OP = 'INSERT' THEN
        summed := string_to_array(current_setting('wagering.ledger_summed', true), ':');
        IF summed[1] = NEW.transaction_id::text AND NEW.id <= summed[2]::bigint THEN
            RETURN NULL;
        END IF;
    END IF;
    FOREACH checked IN ARRAY ARRAY[
        CASE WHEN TG_OP = 'DELETE' THEN NULL ELSE NEW.transaction_id END,
        CASE WHEN TG_OP = 'INSERT' THEN NULL ELSE OLD.transaction_id END
    ] LOOP
        CONTINUE WHEN checked IS NULL;
        SELECT COALESCE(SUM(amount), 0), MAX(id) INTO total, newest
            FROM wagering_ledgerentry WHERE transaction_id = checked;
        IF total <> 0 THEN
            RAISE EXCEPTION 'ledger transaction % is unbalanced: its legs sum to %', checked, total
                USING ERRCODE = 'check_violation';
        END IF;
        PERFORM set_config('wagering.ledger_summed', checked || ':' || COALESCE(newest, 0), true);
    END LOOP;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;
"""

CHECK_EVERY_LEG = """
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
"""


def _on_postgresql(sql):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(sql, params=None)

    return run


class Migration(migrations.Migration):
    dependencies = [("wagering", "0004_account_table")]

    operations = [migrations.RunPython(_on_postgresql(CHECK_ONCE), _on_postgresql(CHECK_EVERY_LEG))]
