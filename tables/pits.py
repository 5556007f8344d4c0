"""Pits (``tables.models.Pit``): a floor manager sets one up and says which tables it holds and which pit bosses
supervise it. One transaction each, audited: the pit's row (``pit_created``, ``pit_changed``), and each table that
joins or leaves a pit in its own history (``table_pit_changed``). A table taken into a pit leaves its former pit."""

from __future__ import annotations

from collections.abc import Iterable

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import transaction

from kernel.errors import ErrorCode
from tables.audit import audit_record
from tables.errors import TableError
from tables.locks import pit_locked, tables_locked
from tables.models import Pit, Table

User = AbstractBaseUser


@transaction.atomic
def pit_create(
    *, code: str, name: str, tables: Iterable[Table], bosses: Iterable[User], actor: User | None, reason: str
) -> Pit:
    code = _code_checked(code)
    if Pit.objects.filter(code=code).exists():
        raise TableError(f"there is already a pit {code}", code=ErrorCode.PIT_EXISTS)
    pit = Pit.objects.create(code=code, name=_name_checked(name))
    return _pit_staffed(pit, tables=tables, bosses=bosses, actor=actor, reason=reason, before=None)


@transaction.atomic
def pit_update(
    *, pit: Pit, name: str, tables: Iterable[Table], bosses: Iterable[User], actor: User | None, reason: str
) -> Pit:
    """The pit's name, tables and pit bosses, all given: a table left out leaves the pit (it is then in none)."""
    pit = pit_locked(pit.pk)
    before = _pit_state(pit)
    pit.name = _name_checked(name)
    pit.save(update_fields=["name"])
    return _pit_staffed(pit, tables=tables, bosses=bosses, actor=actor, reason=reason, before=before)


def _pit_staffed(
    pit: Pit, *, tables: Iterable[Table], bosses: Iterable[User], actor: User | None, reason: str, before: dict | None
) -> Pit:
    if not reason.strip():
        raise TableError("say why: the reason is recorded in the audit log", code=ErrorCode.REASON_REQUIRED)
    bosses = list(bosses)
    for boss in bosses:
        if not (boss.is_active and boss.is_staff and boss.has_perm("tables.operate_table")):
            raise TableError(f"{boss.get_username()} is not a pit boss", code=ErrorCode.NOT_A_PIT_BOSS)
    wanted = {table.pk for table in tables}
    # Tables join a pit only under its lock, as here: those in it now are all it can have (another pit may take
    # one meanwhile, which then stays there).
    for table in tables_locked(sorted(wanted | set(pit.tables.values_list("pk", flat=True)))):
        if table.pk in wanted and table.pit_id != pit.pk:
            _table_pit_move(table, pit, actor=actor, reason=reason)
        elif table.pk not in wanted and table.pit_id == pit.pk:
            _table_pit_move(table, None, actor=actor, reason=reason)
    pit.bosses.set(bosses)
    action = "pit_created" if before is None else "pit_changed"
    audit_record(action=action, actor=actor, obj=pit, before=before, after=_pit_state(pit), reason=reason)
    return pit


def _table_pit_move(table: Table, pit: Pit | None, *, actor: User | None, reason: str) -> None:
    before = {"pit": table.pit.code if table.pit_id else None}
    table.pit = pit
    table.save(update_fields=["pit"])
    audit_record(
        action="table_pit_changed",
        actor=actor,
        table=table,
        obj=table,
        before=before,
        after={"pit": pit.code if pit else None},
        reason=reason,
    )


def _pit_state(pit: Pit) -> dict:
    return {
        "name": pit.name,
        "tables": sorted(pit.tables.values_list("code", flat=True)),
        "bosses": sorted(boss.get_username() for boss in pit.bosses.all()),
    }


def _code_checked(code: str) -> str:
    """Checked by the model's field itself (a slug of up to 20 characters); text only, as the field would turn a
    number into one."""
    try:
        return Pit._meta.get_field("code").clean(code if isinstance(code, str) else "", None)
    except ValidationError as error:
        message = "a pit's code is 1 to 20 letters, digits, hyphens or underscores"
        raise TableError(message, code=ErrorCode.INVALID_PIT) from error


def _name_checked(name: str) -> str:
    name = name.strip() if isinstance(name, str) else ""
    if not name or len(name) > 80:
        raise TableError("a pit's name is 1 to 80 characters", code=ErrorCode.INVALID_PIT)
    return name
