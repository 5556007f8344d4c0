"""Django's ``migrate``, as the tables' owner, then the runtime role's privileges (``kernel.database_roles``)."""

from django.core.management.commands import migrate
from django.db import DEFAULT_DB_ALIAS

from kernel.database_roles import connected_as_owner, runtime_role_grant


class Command(migrate.Command):
    help = (
        f"{migrate.Command.help} On PostgreSQL it connects as the tables' owner (DATABASE_MIGRATE_URL) and "
        "then grants the runtime role (DATABASE_URL) what the platform needs."
    )

    def execute(self, *args, **options):
        database = options["database"]
        with connected_as_owner(database) as as_owner:
            output = super().execute(*args, **options)
            if as_owner and not options["plan"] and database == DEFAULT_DB_ALIAS:
                granted = runtime_role_grant()
                if granted and options["verbosity"] >= 1:
                    self.stdout.write(f"Privileges granted to the runtime role {granted}.")
        return output
