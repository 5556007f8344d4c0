"""The ledger's guards read the tables they guard, not a client's temporary ones, and a leg's balance follows
its account's previous leg.

- Search path: the guard functions named their tables without a schema and ran on the caller's search
  path, where a session's temporary schema comes first. Any role may create TEMP tables: a temporary
  ``wagering_ledgerentry`` (or ``wagering_account``, ``wagering_ledgertransaction``) made the statement
  trigger sum an empty table, the deferred trigger read a forged balance, the identity trigger find no
  leg. Every guard function now runs with ``search_path = pg_catalog, public, pg_temp`` (the temporary
  schema explicitly last; it is never searched for functions or operators) and names its tables in
  ``public``. ``wagering.checks.ledger_check`` reports a guard whose function no longer pins it.
- Chained balances: the statement trigger checked the sum alone and the deferred one only that the
  balance equals the newest leg's ``balance_after``, which the client writes: a balanced pair of +1 and
  -1 whose wallet leg said ``balance_after`` = balance + 1,000,000 moved a million. Now each new leg's
  ``balance_after`` must be its ``balance_before`` plus its amount, and its ``balance_before`` its
  account's previous leg's ``balance_after`` (0 before the first): for an account's first new leg of the
  statement, the newest older leg (by key: ``account_id, id``); for the next ones, the one before among
  the statement's (``lag``). Same query as the sum, errors ``check_violation``. SQLite has no triggers.
"""

import importlib

from django.db import migrations

# Functions whose bodies read no table: the path pinned all the same, so that every guard is alike.
TABLELESS = ("wagering_ledger_append_only", "wagering_ledgerroot_append_only", "tables_auditlog_append_only")

CREATE = """
CREATE OR REPLACE FUNCTION wagering_ledger_legs_balanced() RETURNS trigger
SET search_path = pg_catalog, public, pg_temp SET jit = off AS $$
DECLARE
    problem int;
    subject bigint;
    account bigint;
    found numeric;
    expected numeric;
BEGIN
    -- 1, 2: a transaction the statement wrote legs to sums to other than zero over all its legs, or has new
    -- legs in an account of another currency. 3, 4: a new leg does not follow its account's previous leg,
    -- or its balance_after is not its balance_before plus its amount. Rows found by their keys, whatever
    -- the planner knows of new_legs.
    SELECT wrong.problem, wrong.subject, wrong.account, wrong.found, wrong.expected
    INTO problem, subject, account, found, expected FROM (
        SELECT CASE WHEN touched.total <> 0 THEN 1 ELSE 2 END AS problem, touched.id AS subject,
            NULL::bigint AS account,
            CASE WHEN touched.total <> 0 THEN touched.total ELSE touched.foreign_legs END AS found,
            NULL::numeric AS expected
        FROM (
            SELECT moved.id, moved.foreign_legs, (
                SELECT SUM(entry.amount) FROM public.wagering_ledgerentry entry WHERE entry.transaction_id = moved.id
            ) AS total
            FROM (
                SELECT leg.transaction_id AS id, COUNT(*) FILTER (WHERE
                    (SELECT own.currency FROM public.wagering_account own WHERE own.id = leg.account_id) <> (
                        SELECT own_movement.currency FROM public.wagering_ledgertransaction own_movement
                        WHERE own_movement.id = leg.transaction_id
                    )
                ) AS foreign_legs
                FROM new_legs leg GROUP BY leg.transaction_id
            ) moved
        ) touched
        WHERE touched.total <> 0 OR touched.foreign_legs > 0
        UNION ALL
        SELECT CASE WHEN chained.balance_before <> chained.previous_after THEN 3 ELSE 4 END, chained.id,
            chained.account_id,
            CASE WHEN chained.balance_before <> chained.previous_after
                THEN chained.balance_before ELSE chained.balance_after END,
            CASE WHEN chained.balance_before <> chained.previous_after
                THEN chained.previous_after ELSE chained.balance_before + chained.amount END
        FROM (
            SELECT leg.id, leg.account_id, leg.amount, leg.balance_before, leg.balance_after,
                COALESCE(leg.previous_new_after, (
                    SELECT entry.balance_after FROM public.wagering_ledgerentry entry
                    WHERE entry.account_id = leg.account_id AND entry.id < leg.id ORDER BY entry.id DESC LIMIT 1
                ), 0) AS previous_after
            FROM (
                SELECT new_leg.id, new_leg.account_id, new_leg.amount, new_leg.balance_before,
                    new_leg.balance_after, lag(new_leg.balance_after) OVER (
                        PARTITION BY new_leg.account_id ORDER BY new_leg.id
                    ) AS previous_new_after
                FROM new_legs new_leg
            ) leg
        ) chained
        WHERE chained.balance_before <> chained.previous_after
            OR chained.balance_after <> chained.balance_before + chained.amount
    ) wrong
    ORDER BY wrong.problem, wrong.subject LIMIT 1;
    IF problem = 1 THEN
        RAISE EXCEPTION 'ledger transaction % is unbalanced: its legs sum to %', subject, found
            USING ERRCODE = 'check_violation';
    ELSIF problem = 2 THEN
        RAISE EXCEPTION 'ledger transaction % has % legs in another currency than its own', subject, found
            USING ERRCODE = 'check_violation';
    ELSIF problem = 3 THEN
        RAISE EXCEPTION 'ledger leg % of account %: its balance_before % is not the account''s previous '
            'balance_after %', subject, account, found, expected USING ERRCODE = 'check_violation';
    ELSIF problem = 4 THEN
        RAISE EXCEPTION 'ledger leg % of account %: its balance_after % is not its balance_before plus its '
            'amount, %', subject, account, found, expected USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE OR REPLACE FUNCTION wagering_account_identity_fixed() RETURNS trigger
SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    IF (NEW.user_id, NEW.kind, NEW.partner_code, NEW.table_id)
        IS DISTINCT FROM (OLD.user_id, OLD.kind, OLD.partner_code, OLD.table_id) THEN
        RAISE EXCEPTION 'account % keeps its identity: its user, kind, partner and table cannot change', OLD.id
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    -- Else its currency changed (the trigger's condition): refused once it has a leg.
    IF EXISTS (SELECT FROM public.wagering_ledgerentry entry WHERE entry.account_id = OLD.id) THEN
        RAISE EXCEPTION 'account % has ledger legs in %: its currency cannot change', OLD.id, OLD.currency
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;

CREATE OR REPLACE FUNCTION wagering_account_balance_follows_ledger() RETURNS trigger
SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    stored numeric;
    newest numeric;
BEGIN
    -- The row as it is at commit (it may have changed again since this event), in one query with its newest leg.
    SELECT account.balance, COALESCE((
        SELECT entry.balance_after FROM public.wagering_ledgerentry entry
        WHERE entry.account_id = account.id ORDER BY entry.id DESC LIMIT 1
    ), 0) INTO stored, newest
    FROM public.wagering_account account WHERE account.id = NEW.id;
    IF stored <> newest THEN
        RAISE EXCEPTION 'the balance of account % (%) is not its newest ledger leg''s balance_after (%)',
            NEW.id, stored, newest USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;
"""
CREATE += "".join(
    f"ALTER FUNCTION {function}() SET search_path = pg_catalog, public, pg_temp;\n" for function in TABLELESS
)


def _before():
    """0019's two functions (dropped with their triggers, made again), 0010's balance function, the paths reset."""
    guards = importlib.import_module("wagering.migrations.0019_ledger_guards_unforgeable")
    append_only = importlib.import_module("wagering.migrations.0010_ledger_append_only").CREATE
    start = append_only.index("CREATE OR REPLACE FUNCTION wagering_account_balance_follows_ledger")
    end = append_only.index("CREATE CONSTRAINT TRIGGER wagering_account_balance_inserted")
    return (
        guards.DROP
        + guards.CREATE
        + append_only[start:end]
        + "".join(f"ALTER FUNCTION {function}() RESET search_path;\n" for function in TABLELESS)
    )


def _on_postgresql(sql_of):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(sql_of(), params=None)

    return run


class Migration(migrations.Migration):
    dependencies = [("wagering", "0020_ledger_roots"), ("tables", "0008_audit_log_no_truncate")]

    operations = [migrations.RunPython(_on_postgresql(lambda: CREATE), _on_postgresql(_before))]
