"""The house and a table's bets in play kept in shards (``wagering.models.accounts.ledger_shard``): players
dealing their private coups at one table at once no longer queue for one row's lock from their placement to
their commit. Every existing account is shard 0. An account's shard is part of its identity, which the
identity trigger keeps (0019, 0021): it is added to the columns it watches.

Released with a stop, not one host at a time (docs/deployment.md, "Releases"): the code before names the
unique indexes replaced here (its placement's ON CONFLICT target) and reads one house a currency. Reversible
only while no private coup has posted into a shard other than 0 (the old indexes would refuse the shards)."""

import importlib

from django.db import migrations, models

GUARDS = importlib.import_module("wagering.migrations.0021_ledger_guards_search_path")  # its guards and their runner

IDENTITY_FUNCTION = """
CREATE OR REPLACE FUNCTION wagering_account_identity_fixed() RETURNS trigger
SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    IF (NEW.user_id, NEW.kind, NEW.partner_code, NEW.table_id, NEW.shard)
        IS DISTINCT FROM (OLD.user_id, OLD.kind, OLD.partner_code, OLD.table_id, OLD.shard) THEN
        RAISE EXCEPTION 'account % keeps its identity: its user, kind, partner, table and shard cannot change', OLD.id
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
"""


def _identity_trigger(columns: str) -> str:
    new = ", ".join(f"NEW.{column}" for column in columns.split(", "))
    old = ", ".join(f"OLD.{column}" for column in columns.split(", "))
    return f"""
DROP TRIGGER wagering_account_identity_fixed ON wagering_account;
CREATE TRIGGER wagering_account_identity_fixed
    BEFORE UPDATE OF {columns} ON wagering_account
    FOR EACH ROW WHEN (({new}) IS DISTINCT FROM ({old}))
    EXECUTE FUNCTION wagering_account_identity_fixed();
"""


def _with_shard() -> str:
    return IDENTITY_FUNCTION + _identity_trigger("user_id, kind, partner_code, table_id, shard, currency")


def _without_shard() -> str:
    before = GUARDS.CREATE
    start = before.index("CREATE OR REPLACE FUNCTION wagering_account_identity_fixed")
    end = before.index("CREATE OR REPLACE FUNCTION wagering_account_balance_follows_ledger")
    return _identity_trigger("user_id, kind, partner_code, table_id, currency") + before[start:end]


class Migration(migrations.Migration):
    dependencies = [("tables", "0023_rng_tables"), ("wagering", "0025_bet_by_user_since")]

    operations = [
        migrations.RemoveConstraint(model_name="account", name="one_bets_in_play_per_table"),
        migrations.RemoveConstraint(model_name="account", name="one_house_per_currency"),
        migrations.AddField(
            model_name="account",
            name="shard",
            field=models.PositiveSmallIntegerField(
                default=0, db_default=0, help_text="house and bets in play only (ledger_shard); 0 unless named"
            ),
        ),
        migrations.AddConstraint(
            model_name="account",
            constraint=models.CheckConstraint(
                condition=models.Q(shard=0)
                | models.Q(kind__in=("house", "bets_in_play"), shard__lt=16),
                name="shards_of_house_and_bets_in_play_only",
            ),
        ),
        migrations.AddConstraint(
            model_name="account",
            constraint=models.UniqueConstraint(
                condition=models.Q(kind__in=["house", "player_debt", "cage"]),
                fields=("kind", "currency", "shard"),
                name="one_house_per_currency_and_shard",
            ),
        ),
        migrations.AddConstraint(
            model_name="account",
            constraint=models.UniqueConstraint(
                condition=models.Q(kind="bets_in_play"),
                fields=("table", "currency", "shard"),
                name="one_bets_in_play_per_table_and_shard",
            ),
        ),
        migrations.RunPython(GUARDS._on_postgresql(_with_shard), GUARDS._on_postgresql(_without_shard)),
    ]
