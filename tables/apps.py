from django.apps import AppConfig, apps
from django.db import DEFAULT_DB_ALIAS
from django.db.models.signals import post_migrate


class TablesConfig(AppConfig):
    name = "tables"

    def ready(self) -> None:
        post_migrate.connect(_staff_roles_ensure, dispatch_uid="tables.staff_roles_ensure")


def _staff_roles_ensure(sender: AppConfig, using: str = DEFAULT_DB_ALIAS, **kwargs) -> None:
    """The staff groups and their permissions (``tables.roles``) brought up to date by every migrate, once
    every app's permissions exist (after the last app's migrations): a deployment's pit bosses, dealers and
    surveillance get a new model's permissions with the migration that adds it, demo data or not. Only on
    the platform's database, and only once the floor's tables exist (not after ``migrate tables 0001``)."""
    last = [config for config in apps.get_app_configs() if config.models_module is not None][-1]
    if sender is not last or using != DEFAULT_DB_ALIAS:
        return
    try:
        kwargs["apps"].get_model("tables", "Pit")  # a partial migrate (``migrate contenttypes``): no floor yet
    except (KeyError, LookupError):
        return
    from tables.roles import roles_ensure

    roles_ensure()
