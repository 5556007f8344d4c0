"""The pit screen (issue 18): "every table of their pit" live for the pit boss, grouped by pit, with the held
coups, the differentials close to their limit and those past it (a pit override) as alerts, then the tables in no
pit (every pit boss's); a floor manager sees every pit; nobody else sees it. And a pit boss acts at the console
only at their pits' tables (or one in no pit), and deals only there."""

from __future__ import annotations

from decimal import Decimal as D

import pytest
from django.contrib.auth.models import Permission
from django.contrib.messages import get_messages
from django.test import Client
from django.urls import reverse

from casino.lifecycle.settlement import coup_settle
from tables.errors import TableError
from tables.holds import coup_hold
from tables.models import AuditLog, DealerSession, LimitSet, Table
from tables.pits import pit_create, pit_update
from tables.roles import DEALER, PIT_BOSS, SURVEILLANCE
from tables.seating import patron_seat
from tables.services import dealer_login, table_create, table_open
from tests.casino.test_console import step, url
from tests.factories import CoupFactory, UserFactory, staff_client
from tests.tables.conftest import run_action
from tests.ui.conftest import fund
from wagering.cancellation import bet_remove_all
from wagering.chips import tray_count
from wagering.models import TrayCount
from wagering.placement import bet_batch_place
from wagering.seated import seat_bets_place

pytestmark = pytest.mark.django_db
PIT = reverse("console:pit")


def pit(code: str, *tables, bosses=(), name: str = "") -> object:
    return pit_create(
        code=code,
        name=name or f"Pit {code}",
        tables=tables,
        bosses=[boss.user for boss in bosses],
        actor=None,
        reason="tests",
    )


def test_the_pit_boss_sees_every_table_of_their_pit_with_its_alerts(
    dealer_table, auto_table, pit_boss, django_assert_max_num_queries
):
    boss = staff_client("pia", PIT_BOSS)
    pit("main", dealer_table, auto_table, bosses=[boss], name="Main pit")
    LimitSet.objects.filter(table=dealer_table).update(max_differential=D("1000.00"))
    coup = CoupFactory(table=dealer_table)
    seated = patron_seat(table=dealer_table, seat_number=2, actor=pit_boss, guest_name="big player")
    tray_count(table=dealer_table, currency="EUR", counted="8000", actor=pit_boss)
    seat_bets_place(coup=coup, seat_session=seated, bets={"banker": "950.00"}, actor=pit_boss)
    held = CoupFactory(table=auto_table)
    coup_hold(coup=held, actor=pit_boss, reason="card for the wrong hand")

    with django_assert_max_num_queries(40):
        page = boss.get(PIT).content.decode()
    assert ">Main pit</h2>" in page
    assert f"t1: coup {held.round_id} held for the pit: card for the wrong hand" in page
    assert f"d1: differential 950.00 of 1000.00 EUR on {coup.round_id}" in page
    assert "2: big player" in page and "drop 0.00, win 0.00" in page
    assert 'data-auto-refresh="5"' in page


def test_a_calm_floor_has_no_alerts(auto_table):
    boss = staff_client("pia", PIT_BOSS)
    pit("main", auto_table, bosses=[boss])
    assert "No alerts." in boss.get(PIT).content.decode()


@pytest.mark.parametrize("role", [DEALER, SURVEILLANCE])
def test_dealers_and_surveillance_do_not_see_the_pit_screen(auto_table, role):
    assert staff_client("someone", role).get(PIT).status_code == 403


def test_players_and_visitors_do_not_see_it(auto_table):
    player = Client()
    player.force_login(UserFactory())
    assert player.get(PIT).status_code == 403
    visitor = Client().get(PIT)
    assert visitor.status_code == 302 and "/admin/login/" in visitor["Location"]


def test_a_pit_boss_sees_only_their_pits_tables(dealer_table, auto_table, pit_boss):
    pia, otto = staff_client("pia", PIT_BOSS), staff_client("otto", PIT_BOSS)
    pit("a", auto_table, bosses=[pia], name="Pit A")
    pit("b", dealer_table, bosses=[otto], name="Pit B")
    patron_seat(table=dealer_table, seat_number=4, actor=pit_boss, guest_name="lady in green")
    held = CoupFactory(table=dealer_table)
    coup_hold(coup=held, actor=pit_boss, reason="surveillance asked")

    page = pia.get(PIT).content.decode()
    assert ">Pit A</h2>" in page and 'data-pit-table="t1"' in page and "No alerts." in page
    assert "Pit B" not in page and 'data-pit-table="d1"' not in page and "Dealer 1" not in page
    assert "lady in green" not in page and held.round_id not in page
    theirs = otto.get(PIT).content.decode()
    assert "4: lady in green" in theirs and f"d1: coup {held.round_id} held for the pit" in theirs
    assert 'data-pit-table="t1"' not in theirs


def test_a_pit_boss_of_two_pits_sees_both(dealer_table, auto_table):
    pia = staff_client("pia", PIT_BOSS)
    pit("b", dealer_table, bosses=[pia], name="Baccarat salon")
    pit("a", auto_table, bosses=[pia], name="Automatic tables")
    page = pia.get(PIT).content.decode()
    assert page.index(">Automatic tables</h2>") < page.index('data-pit-table="t1"')
    assert page.index('data-pit-table="t1"') < page.index(">Baccarat salon</h2>") < page.index('data-pit-table="d1"')


def floor_manager() -> object:
    """A pit boss who also sets up the pits (tables.change_pit), not a superuser."""
    client = staff_client("flora", PIT_BOSS)
    client.user.user_permissions.add(Permission.objects.get(content_type__app_label="tables", codename="change_pit"))
    return client


@pytest.mark.parametrize("manager", [lambda: staff_client("root", None), floor_manager])
def test_a_floor_manager_sees_every_pit_and_the_tables_in_none(dealer_table, auto_table, pit_boss, manager):
    pit("a", auto_table, bosses=[staff_client("pia", PIT_BOSS)], name="Pit A")
    pit("b", name="Pit B")
    table_create(code="x9", name="Spare table", actor=pit_boss)
    page = manager().get(PIT).content.decode()
    assert page.index(">Pit A</h2>") < page.index(">Pit B</h2>") < page.index(">Tables in no pit</h2>")
    assert "No tables in this pit yet." in page
    for code in ("t1", "d1", "x9"):
        assert f'data-pit-table="{code}"' in page
    assert page.index('data-pit-table="t1"') < page.index(">Pit B</h2>") < page.index('data-pit-table="d1"')


def test_every_pit_boss_sees_the_tables_in_no_pit_as_before_pits(dealer_table, auto_table, pit_boss):
    """An upgraded floor has no pit yet: its pit bosses keep the screen and its alerts (``table_supervised_by``)."""
    held = CoupFactory(table=auto_table)
    coup_hold(coup=held, actor=pit_boss, reason="card for the wrong hand")
    page = staff_client("pia", PIT_BOSS).get(PIT).content.decode()
    assert ">Tables in no pit</h2>" in page and "You supervise no pit" not in page
    assert 'data-pit-table="d1"' in page and 'data-pit-table="t1"' in page
    assert f"t1: coup {held.round_id} held for the pit: card for the wrong hand" in page


def test_a_pit_boss_sees_their_pit_then_the_tables_in_no_pit(dealer_table, auto_table):
    otto = staff_client("otto", PIT_BOSS)
    pit("b", dealer_table, bosses=[otto], name="Pit B")
    pit("a", bosses=[staff_client("pia", PIT_BOSS)], name="Pit A")
    page = otto.get(PIT).content.decode()
    assert page.index(">Pit B</h2>") < page.index('data-pit-table="d1"') < page.index(">Tables in no pit</h2>")
    assert page.index(">Tables in no pit</h2>") < page.index('data-pit-table="t1"')
    assert "Pit A" not in page


def test_a_pit_boss_with_no_pit_and_no_table_in_none_is_told_so(dealer_table, auto_table):
    pit("a", auto_table, dealer_table, bosses=[staff_client("otto", PIT_BOSS)])
    page = staff_client("pia", PIT_BOSS).get(PIT).content.decode()
    assert "You supervise no pit: ask a floor manager to assign you one." in page
    assert "data-pit-table" not in page and "No alerts." not in page and "Test 1" not in page


def test_chips_accepted_past_the_differential_by_the_pit_are_a_limit_breach(dealer_table, pit_boss):
    boss = staff_client("pia", PIT_BOSS)
    pit("main", dealer_table, bosses=[boss])
    LimitSet.objects.filter(table=dealer_table).update(max_differential=D("1000.00"))
    coup = CoupFactory(table=dealer_table)
    tray_count(table=dealer_table, currency="EUR", counted="8000", actor=pit_boss)
    for seat in (1, 2):
        seated = patron_seat(table=dealer_table, seat_number=seat, actor=pit_boss, guest_name=f"guest {seat}")
        seat_bets_place(
            coup=coup, seat_session=seated, bets={"banker": "900.00"}, actor=pit_boss, differential_override=True
        )

    page = boss.get(PIT).content.decode()
    assert f"d1: differential 1800.00 past its limit 1000.00 EUR on {coup.round_id} (pit override)" in page
    assert "1800.00 of 1000.00 EUR (past it: pit override)" in page
    assert "differential 1800.00 of 1000.00" not in page  # the breach, not also the warning


def test_the_pit_screen_counts_the_coup_s_online_bettors_while_it_plays_and_once_it_is_settled(
    dealer, dealer_table, betting, pit_boss
):
    """Issue 32: "0 online bettors" for a coup alice and bob bet on. Each online player once however many bets,
    a seated patron's chips not (they are no online bettor), a player whose bets were all undone not."""
    boss = staff_client("pia", PIT_BOSS)
    pit("main", dealer_table, bosses=[boss])
    alice, bob, carol = (UserFactory(username=name) for name in ("alice", "bob", "carol"))
    for player in (alice, bob, carol):
        fund(player, "100")
    bet_batch_place(user=alice, coup=betting, bets={"player": "10"})
    bet_batch_place(user=alice, coup=betting, bets={"tie": "1"})
    bet_batch_place(user=bob, coup=betting, bets={"banker": "25"})
    bet_batch_place(user=carol, coup=betting, bets={"banker": "5"})
    bet_remove_all(user=carol, coup=betting)
    tray_count(table=dealer_table, currency="EUR", counted="8000", actor=pit_boss)
    seated = patron_seat(table=dealer_table, seat_number=2, actor=pit_boss, guest_name="grey")
    seat_bets_place(coup=betting, seat_session=seated, bets={"banker": "50.00"}, actor=pit_boss)

    assert "· 2 online bettors" in boss.get(PIT).content.decode()
    step(dealer, dealer_table, "coup_close_betting", round_id=betting.round_id)
    for card, hand in (("2S", "player"), ("9H", "banker"), ("3D", "player"), ("KC", "banker")):
        step(dealer, dealer_table, "coup_card", round_id=betting.round_id, card=card, hand=hand)
    step(dealer, dealer_table, "coup_resolve", round_id=betting.round_id)
    assert "· 2 online bettors" in boss.get(PIT).content.decode()
    coup_settle(coup_id=betting.pk)
    page = boss.get(PIT).content.decode()
    assert f"{betting.number} Settled: Banker · 2 online bettors" in page


# --- Acting at the console: a pit boss of the table's pit -------------------------------------------------

COUNT = {"currency": "EUR", "amount": "5000"}


def test_a_pit_boss_acts_at_the_console_only_at_their_pits_tables(dealer_table, pit_boss):
    pia, otto = staff_client("pia", PIT_BOSS), staff_client("otto", PIT_BOSS)
    pit("b", dealer_table, bosses=[otto])

    console = pia.get(url(dealer_table)).content.decode()
    assert "Chip tray" not in console and "Seat a patron" not in console
    for name, data in (("tray_count", COUNT), ("patron_seat", {"seat": 3, "guest_name": "intruder"})):
        assert pia.post(url(dealer_table, name), data).status_code == 403
    assert not TrayCount.objects.exists() and not dealer_table.seat_sessions.exists()

    assert "Chip tray" in otto.get(url(dealer_table)).content.decode()
    assert otto.post(url(dealer_table, "tray_count"), COUNT).status_code == 302
    assert TrayCount.objects.get().table == dealer_table


@pytest.mark.parametrize("who", ["a pit boss of another pit", "a superuser"])
def test_a_table_in_no_pit_or_a_superuser_keeps_the_pit_s_steps_open(dealer_table, pit_boss, who):
    """A table in no pit is any pit boss's until a floor manager puts it in one; a superuser acts anywhere."""
    spare = table_open(
        table=table_create(code="d2", name="Spare", actor=pit_boss, dealing_mode="dealer"), actor=pit_boss
    )
    pit("b", dealer_table, bosses=[staff_client("otto", PIT_BOSS)])
    if who == "a superuser":
        client, table = staff_client("root", None), dealer_table
    else:
        client, table = staff_client("pia", PIT_BOSS), spare
        pit("a", bosses=[client])
    assert client.post(url(table, "tray_count"), COUNT).status_code == 302
    assert TrayCount.objects.get().table == table


# --- Dealing: a pit boss is the dealer only at a table in their care ----------------------------------------


def test_a_pit_boss_of_another_pit_is_not_logged_in_as_the_dealer(dealer_table, pit_boss):
    """The dealer's session opens every console step at the table: not a way into another pit's."""
    pia, otto = staff_client("pia", PIT_BOSS), staff_client("otto", PIT_BOSS)
    pit("a", bosses=[pia])
    pit("b", dealer_table, bosses=[otto])
    carla = staff_client("carla", DEALER).user
    dealer_login(table=dealer_table, dealer=carla, actor=pit_boss)
    before = (AuditLog.objects.count(), list(DealerSession.objects.values_list("dealer", "ended_at")))

    # By pia, another pit's table is not hers to act on in the admin at all (tests/security/test_pit_authority.py);
    # by otto, whose table it is, pia is no dealer for it.
    response = run_action(pia, Table, "log_dealer_in", [dealer_table], dealer=str(pia.user.pk))
    messages = [str(m) for m in get_messages(response.wsgi_request)]
    assert messages == ["Nothing was changed: d1 is in a pit you do not supervise"]
    response = run_action(otto, Table, "log_dealer_in", [dealer_table], dealer=str(pia.user.pk))
    messages = [str(m) for m in get_messages(response.wsgi_request)]
    assert messages == [
        "Nothing was changed: pia is a pit boss, and d1 is in a pit they do not supervise: a pit boss deals only "
        "at their pits' tables or a table in no pit"
    ]
    with pytest.raises(TableError, match="pia is a pit boss") as refused:
        dealer_login(table=dealer_table, dealer=pia.user, actor=otto.user)
    assert refused.value.code == "not_in_pit"
    assert (AuditLog.objects.count(), list(DealerSession.objects.values_list("dealer", "ended_at"))) == before
    assert pia.post(url(dealer_table, "coup_open")).status_code == 403


@pytest.mark.parametrize("where", ["their pit", "no pit"])
def test_a_pit_boss_deals_at_their_pit_s_table_or_one_in_no_pit(dealer_table, where):
    pia = staff_client("pia", PIT_BOSS)
    pit("a", *([dealer_table] if where == "their pit" else []), bosses=[pia])
    pit("b", bosses=[staff_client("otto", PIT_BOSS)])
    run_action(pia, Table, "log_dealer_in", [dealer_table], dealer=str(pia.user.pk))
    assert DealerSession.objects.get(ended_at__isnull=True).dealer == pia.user


def test_a_dealer_is_logged_in_at_any_pit_s_table(dealer_table, pit_boss):
    pit("b", dealer_table, bosses=[staff_client("otto", PIT_BOSS)])
    carla = staff_client("carla", DEALER).user
    assert dealer_login(table=dealer_table, dealer=carla, actor=pit_boss).dealer == carla


def test_a_pit_boss_dealing_at_a_table_moved_to_another_pit_deals_there_no_more(dealer_table):
    """The dealer's session of a pit boss lasts only while the table is in their care: a floor manager
    moving it to another pit closes its console steps to them, though the session stands."""
    pia = staff_client("pia", PIT_BOSS)
    theirs = pit("a", dealer_table, bosses=[pia])
    run_action(pia, Table, "log_dealer_in", [dealer_table], dealer=str(pia.user.pk))
    assert pia.post(url(dealer_table, "coup_open")).status_code == 302
    pit_update(pit=theirs, name=theirs.name, tables=[], bosses=[pia.user], actor=None, reason="moved")
    pit("b", dealer_table, bosses=[staff_client("otto", PIT_BOSS)])
    coups = dealer_table.coups.count()
    assert pia.post(url(dealer_table, "coup_open")).status_code == 403
    assert dealer_table.coups.count() == coups
