"""Room on each page of the accounts for their next balances (``fillfactor``), so a balance moves in place.

A balance's update writes a new version of its account's row. Where the row's page has room for it, PostgreSQL
writes it there and no index learns of it (a heap-only tuple: the balance is in no index); on a full page the new
version goes to another page and each of the account's indexes gets an entry for it. Pages were filled to the
brim, so 70% of a settlement's balances took the second way (`pg_stat_user_tables`: 61,629 heap-only of 202,742
updates), and most of a batch of bets' wallets as well. A settlement moves every wallet of its coup in one
statement, whose old versions stay until it commits: a page keeps room for a new version of each of its rows.
Accounts are a row a player (about 75 bytes): the table doubles from a few megabytes. Pages written before keep
their fill until the owner rewrites them (``VACUUM FULL wagering_account``, which stops bets and settlements while
it runs: at a quiet hour; README.md).
"""

import importlib

from django.db import migrations

GUARDS = importlib.import_module("wagering.migrations.0021_ledger_guards_search_path")  # its PostgreSQL-only runner


class Migration(migrations.Migration):
    dependencies = [("wagering", "0027_identity_drawn_named")]

    operations = [
        migrations.RunPython(
            GUARDS._on_postgresql(lambda: "ALTER TABLE wagering_account SET (fillfactor = 50)"),
            GUARDS._on_postgresql(lambda: "ALTER TABLE wagering_account RESET (fillfactor)"),
            elidable=False,
        )
    ]
