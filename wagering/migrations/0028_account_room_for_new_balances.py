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

from django.db import migrations


def _fillfactor(sql: str):
    def run(apps, schema_editor) -> None:
        if schema_editor.connection.vendor == "postgresql":  # SQLite has no such setting
            schema_editor.execute(sql)

    return run


class Migration(migrations.Migration):
    dependencies = [("wagering", "0027_identity_drawn_named")]

    operations = [
        migrations.RunPython(
            _fillfactor("ALTER TABLE wagering_account SET (fillfactor = 50)"),
            _fillfactor("ALTER TABLE wagering_account RESET (fillfactor)"),
            elidable=False,
        )
    ]
