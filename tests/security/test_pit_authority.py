"""A pit boss acts in the admin only on the tables in their care (issue 18: "every table of their pit ... with the
actions they may take"): their pits' tables and those in no pit. Every action on a floor row of another pit's
table is refused and changes nothing, as are the change forms of such a table and its limits and an add form
posting one; the add forms offer only the tables in their care. A floor manager (here the superuser) acts
anywhere, and everybody with the view permission still reads the whole floor."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse

from tables.models import Table
from tables.pits import pit_create
from tests.security.conftest import PIT_BOSS_ROLE, SUPERUSER, database_state
from tests.security.test_role_matrix_admin import ADMIN_ACTIONS, run_action

pytestmark = pytest.mark.django_db

TABLE_ACTIONS = sorted(key for key in ADMIN_ACTIONS if key[0].startswith("tables."))
NOT_IN_CARE = "Nothing was changed: {code} is in a pit you do not supervise"


@pytest.fixture
def salon(floor_state):
    """Every table of the floor moved into the Salon, which the pit boss does not supervise."""
    other_boss = floor_state.pending_correction.requested_by  # a pit boss too, of the Salon only
    return pit_create(
        code="salon", name="Salon", tables=Table.objects.all(), bosses=[other_boss], actor=None, reason="new pit"
    )


def test_the_actions_on_the_floor_rows_are_all_in_the_list():
    assert {label for label, _ in TABLE_ACTIONS} == {
        "tables.table",
        "tables.shoe",
        "tables.coup",
        "tables.resultcorrection",
        "tables.coupvoidrequest",
        "tables.personallimitmarker",
    }


@pytest.mark.parametrize(("label", "name"), TABLE_ACTIONS)
def test_another_pits_pit_boss_is_refused_every_action_and_nothing_changes(floor_state, salon, client_as, label, name):
    spec = ADMIN_ACTIONS[(label, name)]
    target = spec.target(floor_state)
    table = target if isinstance(target, Table) else getattr(target, "table", None) or target.coup.table
    if PIT_BOSS_ROLE not in spec.allowed:  # a floor manager's action (a void request's decision): given, still refused
        floor_state.users[PIT_BOSS_ROLE].user_permissions.add(
            *Permission.objects.filter(content_type__app_label="tables", codename="void_dealt_coup")
        )
    before = database_state()
    response = run_action(client_as(PIT_BOSS_ROLE), label, name, spec, floor_state)
    assert response.status_code == 302
    messages = [str(message) for message in response.wsgi_request._messages]
    assert messages == [NOT_IN_CARE.format(code=table.code)]
    assert database_state() == before


@pytest.mark.parametrize(("label", "name"), TABLE_ACTIONS)
def test_a_floor_manager_acts_in_every_pit(floor_state, salon, client_as, label, name):
    before = database_state()
    response = run_action(client_as(SUPERUSER), label, name, ADMIN_ACTIONS[(label, name)], floor_state)
    assert response.status_code in (200, 302)
    assert database_state() != before


def test_the_pit_boss_of_the_pit_acts_on_its_tables(floor_state, salon, client_as):
    salon.bosses.add(floor_state.users[PIT_BOSS_ROLE])
    before = database_state()
    response = run_action(
        client_as(PIT_BOSS_ROLE), "tables.coup", "void_coups", ADMIN_ACTIONS[("tables.coup", "void_coups")], floor_state
    )
    assert [str(message) for message in response.wsgi_request._messages] == [
        "Done: Void the selected coups and refund all their bets, or request the void where the players have "
        "seen the first cards (1)."
    ]
    assert database_state() != before


def test_one_table_out_of_care_refuses_the_whole_selection(floor_state, client_as):
    """The open table is in no pit (the boss's care), the closed one moves to the Salon: both selected, neither
    is closed."""
    pit_create(code="salon", name="Salon", tables=[floor_state.closed_table], bosses=[], actor=None, reason="r")
    client = client_as(PIT_BOSS_ROLE)
    before = database_state()
    tables = [floor_state.open_table.pk, floor_state.closed_table.pk]
    data = {"action": "close_tables", "_selected_action": tables, "index": "0", "confirmed": "yes", "reason": "r"}
    response = client.post(reverse("admin:tables_table_changelist"), data)
    assert [str(message) for message in response.wsgi_request._messages] == [NOT_IN_CARE.format(code="pb2")]
    assert database_state() == before


def test_another_pits_table_and_its_limits_are_read_only_to_the_pit_boss(floor_state, salon, client_as):
    client = client_as(PIT_BOSS_ROLE)
    table = floor_state.open_table
    limit_set = table.limit_sets.get()
    before = database_state()
    for url, data in (
        (reverse("admin:tables_table_change", args=[table.pk]), {"name": "mine now", "reason": "x"}),
        (reverse("admin:tables_limitset_change", args=[limit_set.pk]), {"max_differential": "1", "reason": "x"}),
    ):
        page = client.get(url)
        assert page.status_code == 200 and 'name="_save"' not in page.content.decode()  # read, as the view allows
        assert client.post(url, data).status_code == 403
    assert database_state() == before
    root = client_as(SUPERUSER)
    assert 'name="_save"' in root.get(reverse("admin:tables_table_change", args=[table.pk])).content.decode()


@pytest.mark.parametrize("model", ["limitset", "personallimitmarker"])
def test_the_add_forms_offer_only_the_tables_in_care_and_refuse_another(floor_state, client_as, model):
    pit_create(code="salon", name="Salon", tables=[floor_state.closed_table], bosses=[], actor=None, reason="r")
    client = client_as(PIT_BOSS_ROLE)
    url = reverse(f"admin:tables_{model}_add")
    page = client.get(url).content.decode()
    assert f'value="{floor_state.open_table.pk}"' in page
    assert f'value="{floor_state.closed_table.pk}"' not in page
    before = database_state()
    data = {
        "table": floor_state.closed_table.pk,
        "currency": "EUR",
        "max_differential": "100",
        "player": floor_state.users["player"].pk,
        "bet_types": ["banker"],
        "minimum": "50",
        "maximum": "500",
        "valid_from_0": "2026-01-01",
        "valid_from_1": "00:00:00",
        "reason": "r",
    }
    response = client.post(url, data)
    assert response.status_code == 200 and "Select a valid choice" in response.content.decode()
    assert database_state() == before
