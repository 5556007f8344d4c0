"""The database's two roles on PostgreSQL: the runtime role (setting ``DATABASE_RUNTIME``) and the tables' owner.

The tables' owner (``DATABASE_MIGRATE_URL``) runs the migrations; every process of the platform connects as a
runtime role (``DATABASE_URL``) that owns nothing, so it can neither alter a table nor disable, drop or
replace a trigger, nor write as a replica (``session_replication_role``): the ledger's and the audit log's
guards hold against the application itself. After each migration (``casino.management.commands.migrate``)
the owner grants the runtime role the rows of every table, bar the exceptions of ``RUNTIME_PRIVILEGES``.
The owner's URL is read here, when ``migrate`` (or the tests' set-up) asks for it, never by the settings every
process loads; a serving process that has it in its environment says so (``migrate_url_warn``).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager

import environ
from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections, transaction
from django.db.backends.base.base import BaseDatabaseWrapper

logger = logging.getLogger(__name__)

MIGRATE_URL = "DATABASE_MIGRATE_URL"
ROWS = "SELECT, INSERT, UPDATE, DELETE"  # on every table not named below
APPEND_ONLY = "SELECT, INSERT"
# What the runtime role may do to the rows of these tables; no TRUNCATE, REFERENCES or TRIGGER anywhere.
RUNTIME_PRIVILEGES = {
    "django_migrations": "SELECT",  # written by migrate, as the owner
    # Balances move (by a leg: wagering/0010); a partner's accounts change currency with the partner's, before
    # any money moves (partners.wallet_settings; wagering/0019 refuses it after). The holder, kind and table
    # are the account's identity, and no account is ever deleted (its user and table are PROTECTed).
    "wagering_account": "SELECT, INSERT, UPDATE (balance, currency)",
    "wagering_ledgertransaction": APPEND_ONLY,
    "wagering_ledgerentry": APPEND_ONLY,
    "wagering_ledgerroot": APPEND_ONLY,  # the hourly Merkle roots
    "tables_auditlog": APPEND_ONLY,
}


def owner_credentials() -> dict | None:
    """The tables' owner's ``USER``, ``PASSWORD``, ``HOST`` and ``PORT``: ``DATABASE_MIGRATE_URL``'s, unset the
    runtime role's (one role for both); None on SQLite."""
    if settings.DATABASE_RUNTIME is None:
        return None
    url = os.environ.get(MIGRATE_URL)
    if not url:
        return dict(settings.DATABASE_RUNTIME)
    owner = environ.Env.db_url_config(url)
    return {key: owner[key] for key in settings.DATABASE_RUNTIME}


def migrate_url_warn(process: str) -> None:
    """Log a warning when ``process`` (one that serves: web, worker, beat, table loops) was started with the
    owner's URL in its environment, where code run by an attacker could read it and disable the guards."""
    if os.environ.get(MIGRATE_URL):
        logger.warning(
            "%s is set in the %s process: only manage.py migrate needs the tables' owner; start the platform's "
            "processes without it (scripts/run.sh does, README: Database roles)",
            MIGRATE_URL,
            process,
        )


def credentials_use(connection: BaseDatabaseWrapper, credentials: dict) -> dict:
    """Make ``connection``'s next connections with ``credentials`` (``USER``, ``PASSWORD``, ``HOST``,
    ``PORT``): its current one and its pool are closed. Returns the credentials it had."""
    previous = {key: connection.settings_dict[key] for key in credentials}
    if previous != credentials:
        connection.close()
        if connection.vendor == "postgresql":
            connection.close_pool()
        connection.settings_dict.update(credentials)
    return previous


@contextmanager
def connected_as_owner(alias: str = DEFAULT_DB_ALIAS) -> Iterator[bool]:
    """The block's queries on ``alias`` run as the tables' owner, then as the runtime role again (the connection
    is closed in between). Whether they do: not on SQLite, nor inside a transaction (a test's), which a new
    connection would leave; with one role for both, they do."""
    connection, owner = connections[alias], owner_credentials()
    if owner is None or alias != DEFAULT_DB_ALIAS or connection.in_atomic_block:
        yield owner is not None and {key: connection.settings_dict[key] for key in owner} == owner
        return
    previous = credentials_use(connection, owner)
    try:
        yield True
    finally:
        credentials_use(connection, previous)


def runtime_role_grant() -> str | None:
    """As the owner (``connected_as_owner``): the runtime role's privileges on every table, from scratch in
    one transaction, so a table added by a migration gets them and one taken off the list loses them.
    Temporary tables only for the owner: a session's own table of the same name would come first on its
    search path, shadowing a table a guard's trigger reads. Returns the role; None when there is none apart
    (SQLite, or one role for both)."""
    runtime, owner = settings.DATABASE_RUNTIME, owner_credentials()
    if runtime is None or runtime["USER"] == owner["USER"]:
        return None
    connection = connections[DEFAULT_DB_ALIAS]
    role = connection.ops.quote_name(runtime["USER"])
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT current_database()")
        database = connection.ops.quote_name(cursor.fetchone()[0])
        cursor.execute(f"REVOKE TEMPORARY ON DATABASE {database} FROM PUBLIC, {role}")
        cursor.execute(f"GRANT TEMPORARY ON DATABASE {database} TO {connection.ops.quote_name(owner['USER'])}")
        for table in connection.introspection.table_names(cursor):
            name = connection.ops.quote_name(table)
            cursor.execute(f"REVOKE ALL ON {name} FROM {role}")  # its columns' privileges too
            cursor.execute(f"GRANT {RUNTIME_PRIVILEGES.get(table, ROWS)} ON {name} TO {role}")
    return runtime["USER"]
