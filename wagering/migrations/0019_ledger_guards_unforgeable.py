"""The ledger's guards trust nothing a client can write, and an account keeps the identity it was opened with.

- Balanced, checked by statement: 0005's trigger skipped a leg when a setting said its transaction was
  already summed, and any client can write that setting (``set_config``): an unbalanced leg, or one in
  another currency, then committed. The deferred row trigger becomes a statement trigger over the legs
  the statement inserted (``REFERENCING NEW TABLE``): every ledger transaction they touch must sum to zero
  over all its legs, and each new leg's account must be in its transaction's currency, when the
  statement ends. Each transaction is summed once per statement (settlement's thousands of legs, one
  COPY), with nothing to remember between runs. Every writer inserts all the legs of a transaction in
  one statement (``rows_insert``, the one-statement placement, the set-wise run), so a transaction is
  balanced after every statement; legs added later by another statement must balance among themselves.
  A transaction with no legs moves nothing. Legs are never updated nor deleted (0010). One run a
  statement costs a placement what 0018's two runs did, and a settlement less than its run per leg.
- An account's identity is fixed: its user, kind, partner and table never change, nor its currency
  once it has a leg (a partner's accounts change currency before any money moves). The balance
  triggers of 0010 fire on the balance only: moving a wallet to another user took no leg. Refused with
  ``integrity_constraint_violation``; an update of the balance alone never runs the trigger.

Same errors as before (``check_violation``, "unbalanced", "in another currency"). SQLite has no triggers.
"""

import importlib

from django.db import migrations

CREATE = """
DROP TRIGGER IF EXISTS wagering_ledgerentry_balanced ON wagering_ledgerentry;
DROP FUNCTION IF EXISTS wagering_ledger_transaction_balanced();

CREATE FUNCTION wagering_ledger_legs_balanced() RETURNS trigger AS $$
DECLARE
    checked bigint;
    total numeric;
    foreign_legs bigint;
BEGIN
    -- For each transaction the statement wrote legs to: the sum of all its legs, and how many of the new
    -- ones are in an account of another currency (older legs were checked when written, and an account
    -- with legs keeps its currency). Rows found by their keys, whatever the planner knows of new_legs.
    SELECT touched.id, touched.total, touched.foreign_legs INTO checked, total, foreign_legs FROM (
        SELECT moved.id, moved.foreign_legs, (
            SELECT SUM(entry.amount) FROM wagering_ledgerentry entry WHERE entry.transaction_id = moved.id
        ) AS total
        FROM (
            SELECT leg.transaction_id AS id, COUNT(*) FILTER (WHERE
                (SELECT own.currency FROM wagering_account own WHERE own.id = leg.account_id) <> (
                    SELECT own_movement.currency FROM wagering_ledgertransaction own_movement
                    WHERE own_movement.id = leg.transaction_id
                )
            ) AS foreign_legs
            FROM new_legs leg GROUP BY leg.transaction_id
        ) moved
    ) touched
    WHERE touched.total <> 0 OR touched.foreign_legs > 0 ORDER BY touched.id LIMIT 1;
    IF total <> 0 THEN
        RAISE EXCEPTION 'ledger transaction % is unbalanced: its legs sum to %', checked, total
            USING ERRCODE = 'check_violation';
    END IF;
    IF foreign_legs > 0 THEN
        RAISE EXCEPTION 'ledger transaction % has % legs in another currency than its own', checked, foreign_legs
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER wagering_ledgerentry_balanced
    AFTER INSERT ON wagering_ledgerentry
    REFERENCING NEW TABLE AS new_legs
    FOR EACH STATEMENT EXECUTE FUNCTION wagering_ledger_legs_balanced();

CREATE FUNCTION wagering_account_identity_fixed() RETURNS trigger AS $$
BEGIN
    IF (NEW.user_id, NEW.kind, NEW.partner_code, NEW.table_id)
        IS DISTINCT FROM (OLD.user_id, OLD.kind, OLD.partner_code, OLD.table_id) THEN
        RAISE EXCEPTION 'account % keeps its identity: its user, kind, partner and table cannot change', OLD.id
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    -- Else its currency changed (the trigger's condition): refused once it has a leg.
    IF EXISTS (SELECT FROM wagering_ledgerentry entry WHERE entry.account_id = OLD.id) THEN
        RAISE EXCEPTION 'account % has ledger legs in %: its currency cannot change', OLD.id, OLD.currency
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER wagering_account_identity_fixed
    BEFORE UPDATE OF user_id, kind, partner_code, table_id, currency ON wagering_account
    FOR EACH ROW WHEN ((NEW.user_id, NEW.kind, NEW.partner_code, NEW.table_id, NEW.currency)
        IS DISTINCT FROM (OLD.user_id, OLD.kind, OLD.partner_code, OLD.table_id, OLD.currency))
    EXECUTE FUNCTION wagering_account_identity_fixed();
"""

DROP = """
DROP TRIGGER IF EXISTS wagering_account_identity_fixed ON wagering_account;
DROP FUNCTION IF EXISTS wagering_account_identity_fixed();
DROP TRIGGER IF EXISTS wagering_ledgerentry_balanced ON wagering_ledgerentry;
DROP FUNCTION IF EXISTS wagering_ledger_legs_balanced();
"""

# 0002's deferred row trigger, running 0018's function.
DEFERRED_TRIGGER = """
CREATE CONSTRAINT TRIGGER wagering_ledgerentry_balanced
    AFTER INSERT OR UPDATE OR DELETE ON wagering_ledgerentry
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION wagering_ledger_transaction_balanced();
"""


def _on_postgresql(sql_of):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(sql_of(), params=None)

    return run


def _by_key_deferred():
    by_key = importlib.import_module("wagering.migrations.0018_ledger_check_without_account_scan").CHECK_BY_KEY
    return DROP + by_key + DEFERRED_TRIGGER


class Migration(migrations.Migration):
    dependencies = [("wagering", "0018_ledger_check_without_account_scan")]

    operations = [migrations.RunPython(_on_postgresql(lambda: CREATE), _on_postgresql(_by_key_deferred))]
