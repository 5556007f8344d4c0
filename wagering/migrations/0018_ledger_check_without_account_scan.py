"""The ledger trigger looks up each leg's account by its key, instead of joining the accounts table.

With no statistics, or statistics taken before the ledger grew, the planner's generic plan for
0014's join read the whole accounts table (a hash join) once per ledger transaction checked: the
commit of a run of placements, one transaction per player, read every wallet once per placement
(50,000 placements by 50,000 players: 2.5 billion rows). Each leg's account is now one index
lookup, whatever the statistics. Same rule, same errors.
"""

import importlib

from django.db import migrations

CHECK_BY_KEY = """
CREATE OR REPLACE FUNCTION wagering_ledger_transaction_balanced() RETURNS trigger AS $$
DECLARE
    checked bigint;
    total numeric;
    newest bigint;
    foreign_legs bigint;
    own_currency text;
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
        SELECT movement.currency INTO own_currency FROM wagering_ledgertransaction movement WHERE movement.id = checked;
        SELECT COALESCE(SUM(entry.amount), 0), MAX(entry.id), COUNT(*) FILTER (WHERE (
                SELECT account.currency FROM wagering_account account WHERE account.id = entry.account_id
            ) <> own_currency)
            INTO total, newest, foreign_legs
            FROM wagering_ledgerentry entry
            WHERE entry.transaction_id = checked;
        IF total <> 0 THEN
            RAISE EXCEPTION 'ledger transaction % is unbalanced: its legs sum to %', checked, total
                USING ERRCODE = 'check_violation';
        END IF;
        IF foreign_legs > 0 THEN
            RAISE EXCEPTION 'ledger transaction % has % legs in another currency than its own', checked, foreign_legs
                USING ERRCODE = 'check_violation';
        END IF;
        PERFORM set_config('wagering.ledger_summed', checked || ':' || COALESCE(newest, 0), true);
    END LOOP;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;
"""


def _on_postgresql(sql_of):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(sql_of(), params=None)

    return run


def _joined():
    return importlib.import_module("wagering.migrations.0014_currencies").CHECK_ONCE_IN_ONE_CURRENCY


class Migration(migrations.Migration):
    dependencies = [("wagering", "0017_chip_tray")]

    operations = [migrations.RunPython(_on_postgresql(lambda: CHECK_BY_KEY), _on_postgresql(_joined))]
