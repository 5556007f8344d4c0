"""Seed 000 §3.1.2 and §3.3: the pit reduces or cancels an order of no-bet coups, with a reason, audited."""

import pytest
from django.contrib.auth import get_user_model
from django.contrib.messages import get_messages
from django.test import Client

from baccarat import rules as game_rules
from tables.coups import coup_open
from tables.errors import TableError
from tables.models import AuditLog, Table
from tables.roles import DEALER, PIT_BOSS, SURVEILLANCE, roles_ensure
from tables.services import no_bet_coups_cancel, no_bet_coups_order, no_bet_coups_reduce, table_rules_update
from tables.shoes import shoe_prepare, shoe_start
from tests.factories import staff_login
from tests.tables.conftest import changelist, run_action

pytestmark = pytest.mark.django_db

PLAY_LATER = "seat 3 wants to bet now; plays the remaining no-bet coups when she wants"


def staff_in_role(username: str, role: str) -> Client:
    user = get_user_model().objects.create_user(username=username, password="x", is_staff=True)
    user.groups.add(roles_ensure()[role])
    client = staff_login(Client(), user)
    client.user = user
    return client


@pytest.fixture
def boss(db):
    return staff_in_role("floor-boss", PIT_BOSS)


@pytest.fixture
def three_ordered(auto_table, pit_boss):
    return no_bet_coups_order(table=auto_table, actor=pit_boss, count=3, reason="§3.1.2 at a new shoe")


def ordered(table: Table) -> int:
    return Table.objects.get(pk=table.pk).no_bet_coups_ordered


def test_a_player_who_wants_to_bet_plays_the_remaining_no_bet_coups_later(auto_table, pit_boss):
    """Seed 000 §3.1.2: three no-bet coups at the start; one played, the pit takes the other two off for a
    player who wants to bet, and the next coup takes bets. The audit says why."""
    table_rules_update(table=auto_table, actor=pit_boss, changes={"burn_procedure": "no_bet_coups"}, reason="test")
    shoe_start(shoe=shoe_prepare(table=auto_table, actor=pit_boss))
    assert ordered(auto_table) == game_rules.NO_BET_COUPS_AT_START
    first = coup_open(table=auto_table, actor=pit_boss)
    assert first.no_bet

    no_bet_coups_reduce(table=auto_table, actor=pit_boss, count=2, reason=PLAY_LATER)

    assert ordered(auto_table) == 0
    entry = AuditLog.objects.get(action="no_bet_coups_reduced")
    assert (entry.actor, entry.reason, entry.before, entry.after) == (
        pit_boss,
        PLAY_LATER,
        {"no_bet_coups": 2},
        {"no_bet_coups": 0},
    )


def test_reducing_leaves_the_rest_to_play(three_ordered, pit_boss):
    """Seed 000 §3.1.2: a reduced order keeps the coups not taken off."""
    no_bet_coups_reduce(table=three_ordered, actor=pit_boss, count=1, reason=PLAY_LATER)
    assert ordered(three_ordered) == 2
    shoe_start(shoe=shoe_prepare(table=three_ordered, actor=pit_boss))
    assert coup_open(table=three_ordered, actor=pit_boss).no_bet


def test_cancelling_the_order(three_ordered, pit_boss):
    """Seed 000 §3.3 C: the game continues as normal: no no-bet coup left, the next coup takes bets."""
    no_bet_coups_cancel(table=three_ordered, actor=pit_boss, reason="§3.3 C: the game continues")
    assert ordered(three_ordered) == 0
    entry = AuditLog.objects.get(action="no_bet_coups_cancelled")
    assert (entry.before, entry.after) == ({"no_bet_coups": 3}, {"no_bet_coups": 0})
    assert (entry.actor, entry.reason) == (pit_boss, "§3.3 C: the game continues")


@pytest.mark.parametrize(
    ("count", "reason", "code"),
    [
        (0, PLAY_LATER, "no_bet_coups_out_of_range"),
        (-1, PLAY_LATER, "no_bet_coups_out_of_range"),
        (4, PLAY_LATER, "no_bet_coups_out_of_range"),
        (True, PLAY_LATER, "no_bet_coups_out_of_range"),
        ("2", PLAY_LATER, "no_bet_coups_out_of_range"),
        (1.5, PLAY_LATER, "no_bet_coups_out_of_range"),
        (1, "", "reason_required"),
        (1, "   ", "reason_required"),
        (1, None, "reason_required"),
    ],
)
def test_a_bad_reduction_is_refused_and_changes_nothing(three_ordered, pit_boss, count, reason, code):
    """Seed 000 §3.1.2: a count outside 1..remaining or no reason is refused; the order stays as it was."""
    with pytest.raises(TableError) as refused:
        no_bet_coups_reduce(table=three_ordered, actor=pit_boss, count=count, reason=reason)
    assert refused.value.code == code
    assert ordered(three_ordered) == 3
    assert not AuditLog.objects.filter(action__in=["no_bet_coups_reduced", "no_bet_coups_cancelled"]).exists()


def test_nothing_to_reduce_or_cancel_is_refused(auto_table, pit_boss):
    """Seed 000 §3.1.2: with no no-bet coup to play there is nothing to take off."""
    for change in (
        lambda: no_bet_coups_reduce(table=auto_table, actor=pit_boss, count=1, reason=PLAY_LATER),
        lambda: no_bet_coups_cancel(table=auto_table, actor=pit_boss, reason=PLAY_LATER),
    ):
        with pytest.raises(TableError) as refused:
            change()
        assert refused.value.code == "no_bet_coups_none"
    assert not AuditLog.objects.filter(action__startswith="no_bet_coups_").exclude(action="no_bet_coups_ordered")


# --- In the admin, where the order is made ----------------------------------------------------------


def test_the_pit_boss_reduces_and_cancels_in_the_admin(boss, three_ordered):
    """Seed 000 §3.1.2: the actions sit next to "Order no-bet coups" and ask for the reason first."""
    page = run_action(boss, Table, "reduce_no_bet_coups", [three_ordered])
    assert page.status_code == 200 and "No-bet coups to take off" in page.content.decode()
    assert run_action(boss, Table, "reduce_no_bet_coups", [three_ordered], count="1", reason="").status_code == 200
    assert ordered(three_ordered) == 3

    done = run_action(boss, Table, "reduce_no_bet_coups", [three_ordered], count="2", reason=PLAY_LATER)
    assert done.status_code == 302
    assert ordered(three_ordered) == 1
    assert AuditLog.objects.get(action="no_bet_coups_reduced").actor == boss.user

    run_action(boss, Table, "cancel_no_bet_coups", [three_ordered], reason="§3.3 C")
    assert ordered(three_ordered) == 0
    assert AuditLog.objects.get(action="no_bet_coups_cancelled").reason == "§3.3 C"


def test_taking_off_more_than_remain_is_refused_in_the_admin(boss, three_ordered):
    """Seed 000 §3.1.2: the service's refusal is shown and nothing changes."""
    response = run_action(boss, Table, "reduce_no_bet_coups", [three_ordered], count="5", reason=PLAY_LATER)
    messages = [str(m) for m in get_messages(response.wsgi_request)]
    assert messages == [f"Nothing was changed: table {three_ordered.code} has 3 no-bet coup(s) to play, fewer than 5"]
    assert ordered(three_ordered) == 3


@pytest.mark.parametrize("role", [DEALER, SURVEILLANCE])
@pytest.mark.parametrize("action", ["reduce_no_bet_coups", "cancel_no_bet_coups"])
def test_a_dealer_or_surveillance_cannot_change_the_order(three_ordered, role, action):
    """Seed 000 §3.3: the pit boss / manager decides; a dealer or surveillance (read-only) is refused."""
    client = staff_in_role(f"not-{role.lower()}", role)
    response = run_action(client, Table, action, [three_ordered], count="3", reason="me")
    assert response.status_code == 403
    assert ordered(three_ordered) == 3


def test_a_player_cannot_reach_the_admin_action(three_ordered):
    """Seed 000 §3.3: a player is sent to the admin's sign-in and changes nothing."""
    player = get_user_model().objects.create_user(username="punter", password="x")
    client = Client()
    client.force_login(player)
    data = {"action": "cancel_no_bet_coups", "_selected_action": [three_ordered.pk], "confirmed": "yes", "reason": "x"}
    response = client.post(changelist(Table), data)
    assert response.status_code == 302 and "/login/" in response["Location"]
    assert ordered(three_ordered) == 3
