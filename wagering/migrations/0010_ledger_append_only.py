"""PostgreSQL keeps the ledger append-only, and balances moving only by new legs.

- Ledger transactions and their legs: UPDATE, DELETE and TRUNCATE refused, whoever asks.
- An account's balance, as committed, is the ``balance_after`` of its newest leg (0 before its first):
  a deferred constraint trigger checks each account whose balance changed (or was created non-zero)
  at commit, when the transaction's legs are all written (a placement moves the balance and writes the
  leg in one statement; settlement writes the legs, then every balance in one UPDATE).

Only a superuser gets past them (``session_replication_role = replica``, or dropping them);
``wagering.selectors.ledger_check`` reports a trigger missing or disabled. SQLite has none of them.
"""

from django.db import migrations

CREATE = """
CREATE OR REPLACE FUNCTION wagering_ledger_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'the ledger is append-only: % of % refused', TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'insufficient_privilege';
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER wagering_ledgertransaction_append_only
    BEFORE UPDATE OR DELETE ON wagering_ledgertransaction
    FOR EACH ROW EXECUTE FUNCTION wagering_ledger_append_only();
CREATE TRIGGER wagering_ledgertransaction_no_truncate
    BEFORE TRUNCATE ON wagering_ledgertransaction
    FOR EACH STATEMENT EXECUTE FUNCTION wagering_ledger_append_only();
CREATE TRIGGER wagering_ledgerentry_append_only
    BEFORE UPDATE OR DELETE ON wagering_ledgerentry
    FOR EACH ROW EXECUTE FUNCTION wagering_ledger_append_only();
CREATE TRIGGER wagering_ledgerentry_no_truncate
    BEFORE TRUNCATE ON wagering_ledgerentry
    FOR EACH STATEMENT EXECUTE FUNCTION wagering_ledger_append_only();

CREATE OR REPLACE FUNCTION wagering_account_balance_follows_ledger() RETURNS trigger AS $$
DECLARE
    stored numeric;
    newest numeric;
BEGIN
    -- The row as it is at commit (it may have changed again since this event), in one query with its newest leg.
    SELECT account.balance, COALESCE((
        SELECT entry.balance_after FROM wagering_ledgerentry entry
        WHERE entry.account_id = account.id ORDER BY entry.id DESC LIMIT 1
    ), 0) INTO stored, newest
    FROM wagering_account account WHERE account.id = NEW.id;
    IF stored <> newest THEN
        RAISE EXCEPTION 'the balance of account % (%) is not its newest ledger leg''s balance_after (%)',
            NEW.id, stored, newest USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE CONSTRAINT TRIGGER wagering_account_balance_inserted
    AFTER INSERT ON wagering_account
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW WHEN (NEW.balance <> 0) EXECUTE FUNCTION wagering_account_balance_follows_ledger();
CREATE CONSTRAINT TRIGGER wagering_account_balance_updated
    AFTER UPDATE OF balance ON wagering_account
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW WHEN (OLD.balance IS DISTINCT FROM NEW.balance)
    EXECUTE FUNCTION wagering_account_balance_follows_ledger();
"""

DROP = """
DROP TRIGGER IF EXISTS wagering_account_balance_updated ON wagering_account;
DROP TRIGGER IF EXISTS wagering_account_balance_inserted ON wagering_account;
DROP FUNCTION IF EXISTS wagering_account_balance_follows_ledger();
DROP TRIGGER IF EXISTS wagering_ledgerentry_no_truncate ON wagering_ledgerentry;
DROP TRIGGER IF EXISTS wagering_ledgerentry_append_only ON wagering_ledgerentry;
DROP TRIGGER IF EXISTS wagering_ledgertransaction_no_truncate ON wagering_ledgertransaction;
DROP TRIGGER IF EXISTS wagering_ledgertransaction_append_only ON wagering_ledgertransaction;
DROP FUNCTION IF EXISTS wagering_ledger_append_only();
"""


def _on_postgresql(sql):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(sql, params=None)

    return run


class Migration(migrations.Migration):
    dependencies = [("wagering", "0009_result_correction")]

    operations = [migrations.RunPython(_on_postgresql(CREATE), _on_postgresql(DROP))]
