"""The pit-boss admin's actions: behind a confirmation with a reason, audited; and what each role may do
there (a dealer no void, surveillance nothing but read, nobody the audit log, nobody a shoe's unseen cards)."""

from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.contrib.messages import get_messages
from django.urls import reverse

from casino import lifecycle
from tables.coups import coup_open
from tables.models import AuditLog, Coup, DealerSession, PersonalLimitMarker, Shoe, Table
from tables.roles import DEALER, SURVEILLANCE
from tables.shoes import shoe_finish, shoe_prepare, shoe_start
from tests.factories import staff_client
from tests.tables.conftest import audit_entry, changelist, run_action
from wagering.placement import bet_batch_place
from wagering.selectors import wallet_balance
from wagering.wallets import wallet_deposit

pytestmark = pytest.mark.django_db


@pytest.fixture
def live_coup(auto_table, pit_boss):
    shoe_start(shoe=shoe_prepare(table=auto_table, actor=pit_boss))
    return coup_open(table=auto_table, actor=pit_boss)


# --- Actions with a confirmation and a reason --------------------------------------------------


def test_voiding_a_coup_asks_for_a_reason_then_refunds_its_bets(boss, live_coup):
    player = get_user_model().objects.create_user(username="punter")
    wallet_deposit(user=player, amount="100.00", idempotency_key="test-punter")
    bet_batch_place(user=player, coup=live_coup, bets={"player": "10.00"})
    assert wallet_balance(user=player) == Decimal("90.00")

    page = run_action(boss, Coup, "void_coups", [live_coup])
    assert page.status_code == 200
    assert page.templates[0].name == "admin/tables/action_confirmation.html"
    assert live_coup.round_id in page.content.decode()

    refused = run_action(boss, Coup, "void_coups", [live_coup], reason="")
    assert refused.status_code == 200
    assert "Choose a dealing error or write a reason." in refused.content.decode()
    live_coup.refresh_from_db()
    assert live_coup.state == Coup.State.BETTING
    assert not AuditLog.objects.filter(action="coup_voided").exists()

    done = run_action(boss, Coup, "void_coups", [live_coup], reason="card exposed")
    assert done.status_code == 302
    live_coup.refresh_from_db()
    assert live_coup.state == Coup.State.VOID
    assert live_coup.void_reason == "card exposed"
    assert wallet_balance(user=player) == Decimal("100.00")
    entry = audit_entry("coup_voided")
    assert (entry.actor, entry.reason) == (boss.user, "card exposed")


def test_a_refused_action_changes_nothing_and_says_why(boss, live_coup, pit_boss):
    other = lifecycle.coup_void(coup=live_coup, actor=pit_boss, reason="first void")
    response = run_action(boss, Coup, "void_coups", [other], reason="again")
    messages = [str(m) for m in get_messages(response.wsgi_request)]
    assert messages == [f"Nothing was changed: coup {other.round_id} is void and cannot be voided"]
    assert AuditLog.objects.filter(action="coup_voided").count() == 1


def test_ordering_no_bet_coups(boss, auto_table):
    assert run_action(boss, Table, "order_no_bet_coups", [auto_table], count="2", reason="").status_code == 200
    auto_table.refresh_from_db()
    assert auto_table.no_bet_coups_ordered == 0

    response = run_action(boss, Table, "order_no_bet_coups", [auto_table], count="2", reason="§3.3 B after a misdeal")
    assert response.status_code == 302
    auto_table.refresh_from_db()
    assert auto_table.no_bet_coups_ordered == 2
    entry = audit_entry("no_bet_coups_ordered")
    assert (entry.actor, entry.reason, entry.after) == (boss.user, "§3.3 B after a misdeal", {"no_bet_coups": 2})


def test_replacing_the_cards_voids_the_coup_and_prepares_a_new_shoe(boss, live_coup):
    old_shoe = live_coup.shoe
    assert run_action(boss, Table, "replace_cards", [live_coup.table], reason="").status_code == 200
    assert Shoe.objects.get(pk=old_shoe.pk).state == Shoe.State.IN_PLAY

    response = run_action(boss, Table, "replace_cards", [live_coup.table], reason="marked card")
    assert response.status_code == 302
    live_coup.refresh_from_db()
    assert live_coup.state == Coup.State.VOID
    assert Shoe.objects.get(pk=old_shoe.pk).state == Shoe.State.DISCARDED
    assert live_coup.table.shoes.get(state=Shoe.State.PREPARED).number == old_shoe.number + 1
    entry = audit_entry("cards_replaced")
    assert (entry.actor, entry.reason) == (boss.user, "marked card")


def test_closing_and_opening_a_table(boss, auto_table):
    assert run_action(boss, Table, "close_tables", [auto_table], reason="").status_code == 200
    assert Table.objects.get(pk=auto_table.pk).is_open

    run_action(boss, Table, "close_tables", [auto_table], reason="end of the session")
    assert not Table.objects.get(pk=auto_table.pk).is_open
    run_action(boss, Table, "open_tables", [auto_table], reason="evening session")
    assert Table.objects.get(pk=auto_table.pk).is_open
    closed, opened = audit_entry("table_closed"), AuditLog.objects.filter(action="table_opened").latest("id")
    assert (closed.actor, closed.reason) == (boss.user, "end of the session")
    assert (opened.actor, opened.reason) == (boss.user, "evening session")


def test_logging_a_dealer_in_and_out(boss, dealer_table):
    dealer = staff_client("carla", DEALER).user
    page = run_action(boss, Table, "log_dealer_in", [dealer_table])
    assert list(page.context["form"].fields["dealer"].queryset) == [dealer, boss.user]

    run_action(boss, Table, "log_dealer_in", [dealer_table], dealer=str(dealer.pk))
    session = DealerSession.objects.get(table=dealer_table, ended_at__isnull=True)
    assert session.dealer == dealer
    assert audit_entry("dealer_login").actor == boss.user

    run_action(boss, Table, "log_dealer_out", [dealer_table], confirmed="yes")
    session.refresh_from_db()
    assert session.ended_at is not None
    assert audit_entry("dealer_logout").actor == boss.user


def test_a_dealer_is_logged_in_at_one_table_at_a_time(boss, auto_table, dealer_table):
    dealer = staff_client("carla", DEALER).user
    run_action(boss, Table, "log_dealer_in", [auto_table, dealer_table], dealer=str(dealer.pk))
    assert not DealerSession.objects.exists()


# --- Roles -------------------------------------------------------------------------------------


def test_a_dealer_cannot_void_a_coup(live_coup):
    dealer = staff_client("carla", DEALER)
    page = dealer.get(changelist(Coup))
    assert page.status_code == 200
    assert "void_coups" not in page.content.decode()
    assert run_action(dealer, Coup, "void_coups", [live_coup]).status_code == 403
    assert run_action(dealer, Coup, "void_coups", [live_coup], reason="sneaky").status_code == 403
    live_coup.refresh_from_db()
    assert live_coup.state == Coup.State.BETTING


def test_surveillance_views_everything_and_changes_nothing(live_coup):
    watcher = staff_client("eye", SURVEILLANCE)
    table = live_coup.table
    for model in (Table, Coup, Shoe, PersonalLimitMarker, DealerSession, AuditLog):
        page = watcher.get(changelist(model))
        assert page.status_code == 200, model
        assert page.context["action_form"] is None, model  # no action offered
    table_page = watcher.get(reverse("admin:tables_table_change", args=[table.pk]))
    assert table_page.status_code == 200
    assert 'name="_save"' not in table_page.content.decode()
    assert watcher.get(reverse("admin:tables_coup_change", args=[live_coup.pk])).status_code == 200

    assert watcher.post(reverse("admin:tables_table_change", args=[table.pk]), {"tie_pays": "9"}).status_code == 403
    assert run_action(watcher, Table, "close_tables", [table], reason="x").status_code == 403
    assert run_action(watcher, Coup, "void_coups", [live_coup], reason="x").status_code == 403
    assert watcher.get(reverse("admin:tables_personallimitmarker_add")).status_code == 403
    assert Table.objects.get(pk=table.pk).is_open
    assert Coup.objects.get(pk=live_coup.pk).state == Coup.State.BETTING


def test_nobody_edits_or_deletes_the_audit_log(auto_table):
    root = staff_client("root", None)
    entry = AuditLog.objects.filter(table=auto_table).first()
    assert root.get(changelist(AuditLog)).status_code == 200
    assert root.get(reverse("admin:tables_auditlog_change", args=[entry.pk])).status_code == 200
    assert root.get(reverse("admin:tables_auditlog_add")).status_code == 403
    assert root.post(reverse("admin:tables_auditlog_change", args=[entry.pk]), {"reason": "edited"}).status_code == 403
    assert root.post(reverse("admin:tables_auditlog_delete", args=[entry.pk]), {"post": "yes"}).status_code == 403
    assert run_action(root, AuditLog, "delete_selected", [entry], post="yes").status_code == 403
    entry.refresh_from_db()
    assert entry.reason == ""


def test_the_card_order_of_a_shoe_in_play_is_not_shown(auto_table, pit_boss):
    root = staff_client("root", None)
    shoe = shoe_start(shoe=shoe_prepare(table=auto_table, actor=pit_boss))
    unseen = [card.code for card in shoe.cards[shoe.position : shoe.position + 12]]
    url = reverse("admin:tables_shoe_change", args=[shoe.pk])
    for page in (root.get(url), root.get(changelist(Shoe))):
        assert page.status_code == 200
        assert " ".join(unseen) not in page.content.decode()
    assert "hidden until the shoe is finished or discarded" in root.get(url).content.decode()

    shoe_finish(shoe=shoe, actor=pit_boss)
    assert " ".join(unseen) in root.get(url).content.decode()
