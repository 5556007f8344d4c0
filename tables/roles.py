"""Staff roles as permission groups: pit boss, floor manager (a pit boss of every pit, who sets the pits up and
approves the void of a coup whose first cards the players have seen), dealer, surveillance (read-only)."""

from django.contrib.auth.models import Group, Permission
from django.db import transaction

PIT_BOSS = "Pit boss"
FLOOR_MANAGER = "Floor manager"
DEALER = "Dealer"
SURVEILLANCE = "Surveillance"

_FLOOR_MODELS = (
    "pit",
    "table",
    "limitset",
    "betlimit",
    "seat",
    "seatsession",
    "shoe",
    "coup",
    "dealtcard",
    "heldcard",
    "personallimitmarker",
    "dealersession",
    "auditlog",
    "resultcorrection",
    "coupvoidrequest",
)
_PIT_BOSS_EXTRA = (
    "tables.operate_table",
    "tables.order_no_bet_coups",
    "tables.replace_cards",
    "tables.void_coup",
    "tables.correct_result",
    "tables.resolve_dealing_error",
    "tables.deal",
    "tables.add_personallimitmarker",
    "tables.change_personallimitmarker",
    "tables.change_table",
    "tables.add_limitset",
    "tables.change_limitset",
    "tables.change_betlimit",
    "tables.add_dealersession",
)
# ``tables.change_pit`` makes a floor manager (``tables.selectors.user_oversees_floor``): every pit is in their care.
_FLOOR_MANAGER_EXTRA = ("tables.add_pit", "tables.change_pit", "tables.void_dealt_coup")


def _permissions(codes: list[str]) -> list[Permission]:
    wanted = {tuple(code.split(".", 1)) for code in codes}
    found = [
        p
        for p in Permission.objects.select_related("content_type").filter(codename__in=[c for _, c in wanted])
        if (p.content_type.app_label, p.codename) in wanted
    ]
    return found


@transaction.atomic
def roles_ensure() -> dict[str, Group]:
    """Create (or bring up to date) the staff groups with their permissions."""
    views = [f"tables.view_{model}" for model in _FLOOR_MODELS]
    views += [
        f"{p.content_type.app_label}.{p.codename}"
        for p in Permission.objects.select_related("content_type").filter(
            content_type__app_label__in=("wagering", "partners"), codename__startswith="view_"
        )
    ]
    grants = {
        PIT_BOSS: views + list(_PIT_BOSS_EXTRA),
        FLOOR_MANAGER: views + list(_PIT_BOSS_EXTRA) + list(_FLOOR_MANAGER_EXTRA),
        DEALER: ["tables.view_table", "tables.view_coup", "tables.deal"],
        SURVEILLANCE: views,
    }
    groups = {}
    for name, codes in grants.items():
        group, _ = Group.objects.get_or_create(name=name)
        group.permissions.set(_permissions(codes))
        groups[name] = group
    return groups
