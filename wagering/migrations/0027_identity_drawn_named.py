"""The hashed tables' id guard (0022) told its sequence by its trigger's argument, not looked up at each row.

``wagering_identity_drawn`` ran ``pg_get_serial_sequence`` (a catalog search by name) for every row inserted
into the ledger's transactions and legs and the audit log: 3.6 µs a row, four rows a bet placed. Each trigger
now names its table's identity sequence (``TG_ARGV[0]``), read once here: 1.9 µs a row, with the same two
checks and the same refusal. The triggers are replaced in place (``CREATE OR REPLACE TRIGGER``: writes wait for
it, reads do not), and the function, which runs as its owner, may be executed by no other role (a trigger fires
whatever the privilege). Reversible: the function before ignores the argument.
"""

import importlib

from django.db import migrations

GUARDS = importlib.import_module("wagering.migrations.0021_ledger_guards_search_path")  # their runner
ROOTS = importlib.import_module("wagering.migrations.0022_ledger_roots_inserts_checked")

NAMED = """
CREATE OR REPLACE FUNCTION public.wagering_identity_drawn() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    -- TG_ARGV[0]: the table's identity sequence. Above every id drawn: refused here; otherwise it must be the
    -- one this session just drew (currval raises 55000 in a session that drew none: refused as well).
    IF NEW.id > pg_catalog.pg_sequence_last_value(TG_ARGV[0]::regclass)
        OR NEW.id <> pg_catalog.currval(TG_ARGV[0]::regclass) THEN
        RAISE EXCEPTION '% takes only the id its sequence draws: id % refused', TG_TABLE_NAME, NEW.id
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NEW;
END;
$$;
-- A trigger fires whoever may execute its function: nobody else need call it (with a sequence of their choice).
REVOKE EXECUTE ON FUNCTION public.wagering_identity_drawn() FROM PUBLIC;
""" + "".join(
    f"""
DO $$ BEGIN
    EXECUTE pg_catalog.format(
        'CREATE OR REPLACE TRIGGER {table}_id_drawn BEFORE INSERT ON public.{table} '
        'FOR EACH ROW EXECUTE FUNCTION public.wagering_identity_drawn(%L)',
        pg_catalog.pg_get_serial_sequence('public.{table}', 'id')
    );
END $$;
"""
    for table in ROOTS.HASHED
)


def _looked_up() -> str:
    """0022's function, which finds the sequence at each row (and ignores the triggers' argument)."""
    start = ROOTS.CREATE.index("CREATE OR REPLACE FUNCTION public.wagering_identity_drawn")
    end = ROOTS.CREATE.index("CREATE OR REPLACE FUNCTION public.wagering_ledger_roots_clock")
    return ROOTS.CREATE[start:end] + "GRANT EXECUTE ON FUNCTION public.wagering_identity_drawn() TO PUBLIC;\n"


class Migration(migrations.Migration):
    dependencies = [("wagering", "0026_ledger_shards")]

    operations = [migrations.RunPython(GUARDS._on_postgresql(lambda: NAMED), GUARDS._on_postgresql(_looked_up))]
