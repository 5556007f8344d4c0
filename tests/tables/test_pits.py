"""Pits (issue 18, "every table of their pit"): a floor manager sets one up with its tables and pit bosses, audited;
a table is in at most one pit; anything wrong is refused whole. In the admin, only a floor manager (tables.change_pit)
or a superuser adds or changes a pit; pit bosses and surveillance read them."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.management import call_command
from django.urls import reverse

from tables.errors import TableError
from tables.models import AuditLog, Pit, Table
from tables.pits import pit_create, pit_update
from tables.roles import DEALER, PIT_BOSS, SURVEILLANCE
from tables.services import table_create
from tests.factories import staff_client

pytestmark = pytest.mark.django_db
PITS = reverse("admin:tables_pit_changelist")
ADD = reverse("admin:tables_pit_add")


@pytest.fixture
def manager():
    return staff_client("root", None)


@pytest.fixture
def bosses():
    return [staff_client(name, PIT_BOSS).user for name in ("pia", "otto")]


def pits_state() -> list:
    return [
        (
            pit.code,
            pit.name,
            sorted(pit.tables.values_list("code", flat=True)),
            sorted(pit.bosses.values_list("username", flat=True)),
        )
        for pit in Pit.objects.order_by("code")
    ] + [("no pit", sorted(Table.objects.filter(pit=None).values_list("code", flat=True)))]


def test_a_pit_is_set_up_and_changed_audited_and_a_table_moves_from_pit_to_pit(
    auto_table, dealer_table, manager, bosses
):
    pia, otto = bosses
    salon = pit_create(
        code="salon", name="Salon", tables=[dealer_table], bosses=[pia], actor=manager.user, reason="opening night"
    )
    main = pit_create(code="main", name="Main", tables=[auto_table], bosses=[otto], actor=manager.user, reason="x")
    created = AuditLog.objects.get(action="pit_created", object_id=str(salon.pk))
    assert (created.before, created.after, created.actor_label, created.reason) == (
        None,
        {"name": "Salon", "tables": ["d1"], "bosses": ["pia"]},
        "root",
        "opening night",
    )

    pit_update(
        pit=main,
        name="Main floor",
        tables=[auto_table, dealer_table],
        bosses=[otto, pia],
        actor=manager.user,
        reason="salon closed",
    )
    assert pits_state() == [
        ("main", "Main floor", ["d1", "t1"], ["otto", "pia"]),
        ("salon", "Salon", [], ["pia"]),
        ("no pit", []),
    ]
    changed = AuditLog.objects.get(action="pit_changed")
    assert changed.before == {"name": "Main", "tables": ["t1"], "bosses": ["otto"]}
    assert changed.after == {"name": "Main floor", "tables": ["d1", "t1"], "bosses": ["otto", "pia"]}
    moved = AuditLog.objects.filter(action="table_pit_changed", table=dealer_table).order_by("pk")
    assert [(entry.before, entry.after) for entry in moved] == [
        ({"pit": None}, {"pit": "salon"}),
        ({"pit": "salon"}, {"pit": "main"}),
    ]

    pit_update(pit=main, name="Main floor", tables=[dealer_table], bosses=[], actor=manager.user, reason="t1 retired")
    assert pits_state()[0] == ("main", "Main floor", ["d1"], [])
    assert pits_state()[-1] == ("no pit", ["t1"])
    left = AuditLog.objects.filter(action="table_pit_changed", table=auto_table).latest("pk")
    assert (left.before, left.after, left.reason) == ({"pit": "main"}, {"pit": None}, "t1 retired")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"code": "bad code!"}, "a pit's code is 1 to 20 letters"),
        ({"code": "x" * 21}, "a pit's code is 1 to 20 letters"),
        ({"code": ""}, "a pit's code is 1 to 20 letters"),
        ({"code": 7}, "a pit's code is 1 to 20 letters"),
        ({"code": "salon"}, "there is already a pit salon"),
        ({"name": "  "}, "a pit's name is 1 to 80 characters"),
        ({"name": "n" * 81}, "a pit's name is 1 to 80 characters"),
        ({"reason": " "}, "say why"),
        ({"bosses": "dealer"}, "dan is not a pit boss"),
        ({"bosses": "surveillance"}, "sam is not a pit boss"),
        ({"bosses": "player"}, "pete is not a pit boss"),
    ],
)
def test_a_wrong_pit_is_refused_and_changes_nothing(auto_table, dealer_table, manager, bosses, change, message):
    pit_create(code="salon", name="Salon", tables=[dealer_table], bosses=bosses[:1], actor=manager.user, reason="x")
    wrong = {
        "dealer": staff_client("dan", DEALER).user,
        "surveillance": staff_client("sam", SURVEILLANCE).user,
        "player": get_user_model().objects.create_user(username="pete"),
    }
    spec = {"code": "main", "name": "Main", "reason": "r", **change}
    who = [wrong[spec["bosses"]]] if "bosses" in spec else bosses
    before, audit = pits_state(), AuditLog.objects.count()
    with pytest.raises(TableError, match=message):
        pit_create(
            code=spec["code"],
            name=spec["name"],
            tables=[auto_table, dealer_table],
            bosses=who,
            actor=manager.user,
            reason=spec["reason"],
        )
    if "code" not in change:  # the same refusals when changing a pit
        with pytest.raises(TableError, match=message):
            pit_update(
                pit=Pit.objects.get(code="salon"),
                name=spec["name"],
                tables=[auto_table],
                bosses=who,
                actor=manager.user,
                reason=spec["reason"],
            )
    assert pits_state() == before and AuditLog.objects.count() == audit


def test_an_inactive_pit_boss_cannot_be_assigned(auto_table, manager, bosses):
    bosses[0].is_active = False
    bosses[0].save()
    with pytest.raises(TableError, match="pia is not a pit boss"):
        pit_create(code="main", name="Main", tables=[auto_table], bosses=bosses, actor=manager.user, reason="r")
    assert not Pit.objects.exists()


# --- The admin -------------------------------------------------------------------------------------------


def floor_manager():
    client = staff_client("flora", PIT_BOSS)
    client.user.user_permissions.add(Permission.objects.get(content_type__app_label="tables", codename="change_pit"))
    return client


@pytest.mark.parametrize("who", ["superuser", "floor manager"])
def test_a_floor_manager_sets_up_a_pit_in_the_admin(auto_table, dealer_table, bosses, who):
    client = staff_client("root", None) if who == "superuser" else floor_manager()
    staff_client("zed", DEALER)
    form = client.get(ADD).content.decode()
    assert " pia</label>" in form and " otto</label>" in form and " d1 (Dealer 1)</label>" in form
    assert " zed</label>" not in form and " root</label>" not in form  # pit bosses only are offered
    data = {
        "code": "main",
        "name": "Main pit",
        "tables": [auto_table.pk, dealer_table.pk],
        "bosses": [bosses[0].pk],
        "reason": "new pit",
    }
    assert client.post(ADD, data).status_code == 302
    assert pits_state() == [("main", "Main pit", ["d1", "t1"], ["pia"]), ("no pit", [])]
    assert AuditLog.objects.get(action="pit_created").actor == client.user

    pit = Pit.objects.get()
    change = reverse("admin:tables_pit_change", args=[pit.pk])
    page = client.get(change).content.decode()
    assert 'name="reason"' in page and 'name="_save"' in page
    data = {"name": "Main pit", "tables": [dealer_table.pk], "bosses": [bosses[1].pk], "reason": "t1 moves"}
    assert client.post(change, data).status_code == 302
    assert pits_state() == [("main", "Main pit", ["d1"], ["otto"]), ("no pit", ["t1"])]
    assert AuditLog.objects.get(action="pit_changed").reason == "t1 moves"


def test_the_admin_refuses_a_dealer_as_a_pit_boss_and_changes_nothing(auto_table, bosses):
    client = staff_client("root", None)
    dealer = staff_client("dan", DEALER).user
    page = client.post(ADD, {"code": "main", "name": "Main", "bosses": [dealer.pk], "reason": "r"}).content.decode()
    assert "Select a valid choice" in page and not Pit.objects.exists()
    page = client.post(ADD, {"code": "main", "name": "Main", "reason": ""}).content.decode()
    assert "This field is required" in page and not Pit.objects.exists()


@pytest.mark.parametrize("role", [PIT_BOSS, SURVEILLANCE])
def test_pit_bosses_and_surveillance_read_pits_but_never_change_them(auto_table, bosses, role):
    pit = pit_create(code="main", name="Main pit", tables=[auto_table], bosses=bosses[:1], actor=None, reason="r")
    client = staff_client("reader", role)
    listed = client.get(PITS).content.decode()
    assert "Main pit" in listed and ">t1<" in listed and ">pia<" in listed
    change = reverse("admin:tables_pit_change", args=[pit.pk])
    page = client.get(change)
    assert page.status_code == 200 and 'name="_save"' not in page.content.decode()
    before = pits_state()
    assert client.get(ADD).status_code == 403
    assert client.post(ADD, {"code": "mine", "name": "Mine", "reason": "r"}).status_code == 403
    taken = {"name": "Mine", "tables": [auto_table.pk], "bosses": [client.user.pk], "reason": "r"}
    assert client.post(change, taken).status_code == 403
    assert client.post(reverse("admin:tables_pit_delete", args=[pit.pk]), {"post": "yes"}).status_code == 403
    assert pits_state() == before


def test_a_dealer_sees_no_pit():
    client = staff_client("dan", DEALER)
    assert client.get(PITS).status_code == 403
    assert client.get(ADD).status_code == 403


def test_the_tables_list_shows_and_filters_by_pit(auto_table, dealer_table):
    pit_create(code="main", name="Main pit", tables=[dealer_table], bosses=[], actor=None, reason="r")
    table_create(code="x9", name="Spare", actor=None)
    client = staff_client("pia", PIT_BOSS)
    main = Pit.objects.get()
    listed = client.get(reverse("admin:tables_table_changelist"), {"pit__id__exact": main.pk}).content.decode()
    assert ">d1<" in listed and ">t1<" not in listed and ">x9<" not in listed


def test_the_demo_puts_its_tables_in_the_main_pit_the_demo_pit_boss_supervises():
    call_command("demo_data", verbosity=0)
    call_command("demo_data", verbosity=0)  # run again: the same pit, once
    assert pits_state() == [("main", "Main pit", ["live3", "live4", "nc2", "pb1", "rng5"], ["pitboss"]), ("no pit", [])]
    assert AuditLog.objects.filter(action="pit_created").count() == 1
