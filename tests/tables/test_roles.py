"""The staff groups come with the database: every migrate brings them and their permissions up to date."""

import pytest
from django.contrib.auth.models import Group
from django.core.management import call_command

from tables.roles import DEALER, PIT_BOSS, SURVEILLANCE

pytestmark = pytest.mark.django_db


def codenames(group: str) -> set[str]:
    return set(Group.objects.get(name=group).permissions.values_list("codename", flat=True))


def test_a_migrated_database_has_the_staff_groups_with_their_permissions():
    """No demo data here: the groups exist because the test database was migrated."""
    assert {"view_pit", "view_coup", "void_coup", "view_traycount"} <= codenames(PIT_BOSS)
    assert {"view_table", "view_coup", "deal"} == codenames(DEALER)
    assert "view_pit" in codenames(SURVEILLANCE) and "void_coup" not in codenames(SURVEILLANCE)


def test_a_migrate_puts_back_what_a_group_lost():
    """A release adding a model (the pits) gives the roles its permissions when it is migrated."""
    pit_boss = Group.objects.get(name=PIT_BOSS)
    pit_boss.permissions.remove(*pit_boss.permissions.filter(codename__in=("view_pit", "void_coup")))
    assert not {"view_pit", "void_coup"} & codenames(PIT_BOSS)
    call_command("migrate", verbosity=0)
    assert {"view_pit", "void_coup"} <= codenames(PIT_BOSS)
