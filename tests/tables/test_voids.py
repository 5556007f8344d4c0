"""No one alone undoes a coup whose cards are out (issue 27, attack 1).

Before the first card a pit boss voids for any reason. Once a card is out the only ground is seed 000 §4.2
(the dealing order cannot be restored), described; a card shown by mistake finishes the coup (§5.1.8) and a
card out of turn goes to its proper place (§4.3). Once players have seen a card of the Player's or the
Banker's first two, the void is a request that another holder of ``tables.void_dealt_coup`` decides. Every
path that ends a coup without its result goes through that one check: the admin's void, a hold's decision,
the card replacement, and (none offered) the partner API.
"""

import uuid
from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.contrib.messages import get_messages
from django.core.management import call_command
from django.db import IntegrityError, transaction
from django.test import Client
from django.urls import reverse

from casino import lifecycle
from tables.errors import TableError
from tables.models import AuditLog, Coup, CoupVoidRequest, HeldCard, Shoe
from tables.pits import pit_create
from tables.roles import FLOOR_MANAGER, PIT_BOSS
from tests.factories import SHUFFLED_AND_CUT, staff_client
from tests.partners.conftest import client_for, partner_make
from tests.tables.test_holds import console, deal, live
from wagering.checks import ledger_check, settlement_check
from wagering.models import Bet
from wagering.placement import bet_batch_place
from wagering.selectors import wallet_balance
from wagering.wallets import wallet_deposit

pytestmark = pytest.mark.django_db

D = Decimal
ISSUE_CARDS = "9S:player 2H:banker KD:player 3C:banker"  # Player natural 9, Banker 5: the Banker bet loses
MIXED_UP = {"dealing_error": "order_not_restorable", "reason": "two cards fell and slid under the shoe"}


@pytest.fixture
def boss():
    return staff_client("pitboss", PIT_BOSS)


@pytest.fixture
def floor_manager():
    return staff_client("flora", FLOOR_MANAGER)


@pytest.fixture
def alice(db):
    user = get_user_model().objects.create_user(username="alice")
    wallet_deposit(user=user, amount="1000.00", idempotency_key=uuid.uuid4().hex)
    return user


def coup_bet_on(dealer: Client, table, player, cards: str = "") -> Coup:
    """The issue's coup: a shoe started, alice's Banker 100, betting closed, ``cards`` entered."""
    console(dealer, table, "shoe_start", **SHUFFLED_AND_CUT, shuffle_method="table", burn_card="5H")
    console(dealer, table, "coup_open")
    bet_batch_place(user=player, coup=live(table), bets={"banker": "100.00"})
    console(dealer, table, "coup_close_betting", round_id=live(table).round_id)
    deal(dealer, table, cards)
    return live(table)


def admin_action(client: Client, model: str, name: str, objects, **form):
    data = {"action": name, "_selected_action": [obj.pk for obj in objects], "confirmed": "yes", **form}
    return client.post(reverse(f"admin:tables_{model}_changelist"), data)


def void(client: Client, coup: Coup, **form):
    return admin_action(client, "coup", "void_coups", [coup], **form)


def decide(client: Client, void_request: CoupVoidRequest, name: str, reason: str = "checked on video"):
    return admin_action(client, "coupvoidrequest", name, [void_request], reason=reason)


def messages_of(response) -> list[str]:
    return [str(message) for message in get_messages(response.wsgi_request)]


def message_of(response) -> str:
    """The message the action left (the session keeps earlier ones until a page shows them)."""
    return messages_of(response)[-1]


def money_clean() -> None:
    assert ledger_check().ok
    assert settlement_check().problems == []


def void_dealt_coup() -> Permission:
    return Permission.objects.get(content_type__app_label="tables", codename="void_dealt_coup")


# --- The admin's void: the issue's scenario ---------------------------------------------------------------


def test_a_card_exposed_no_longer_voids_a_dealt_coup(boss, dealer, dealer_table, alice):
    coup = coup_bet_on(dealer, dealer_table, alice, ISSUE_CARDS)
    response = void(boss, coup, dealing_error="card_exposed", reason="player complained")
    assert "§4.2" in message_of(response) and message_of(response).startswith("Nothing was changed")
    coup.refresh_from_db()
    assert coup.state == Coup.State.DEALING and coup.void_reason == ""
    assert Bet.objects.get(coup=coup).state == Bet.State.ACCEPTED
    assert wallet_balance(user=alice) == D("900.00")
    assert not AuditLog.objects.filter(action__in=("coup_voided", "coup_void_requested")).exists()
    assert not CoupVoidRequest.objects.exists()
    for ground in ("cards_replaced", "shoe_or_card_defect", "card_count"):
        assert message_of(void(boss, coup, dealing_error=ground, reason="x")).startswith("Nothing was changed")
    assert Coup.objects.get(pk=coup.pk).state == Coup.State.DEALING


def test_order_not_restorable_needs_the_pit_boss_description(boss, dealer, dealer_table, alice):
    coup = coup_bet_on(dealer, dealer_table, alice, ISSUE_CARDS)
    response = void(boss, coup, dealing_error="order_not_restorable", reason="  ")
    assert "describe" in message_of(response) and message_of(response).startswith("Nothing was changed")
    assert Coup.objects.get(pk=coup.pk).state == Coup.State.DEALING and not CoupVoidRequest.objects.exists()


def test_a_void_of_a_seen_coup_is_a_request_that_another_holder_approves(
    boss, floor_manager, dealer, dealer_table, alice, django_capture_on_commit_callbacks
):
    coup = coup_bet_on(dealer, dealer_table, alice, ISSUE_CARDS)
    response = void(boss, coup, **MIXED_UP)
    assert any("approves" in text for text in messages_of(response)), messages_of(response)
    void_request = CoupVoidRequest.objects.get(coup=coup)
    assert (void_request.state, void_request.requested_by) == (CoupVoidRequest.State.PENDING, boss.user)
    coup.refresh_from_db()
    assert coup.state == Coup.State.HELD and Bet.objects.get(coup=coup).state == Bet.State.ACCEPTED
    assert wallet_balance(user=alice) == D("900.00")

    # Settlement waits: the dealer cannot resolve, the coup stays held.
    page = console(dealer, dealer_table, "coup_resolve", round_id=coup.round_id)
    assert Coup.objects.get(pk=coup.pk).state == Coup.State.HELD, page
    # The requester, even holding the permission, cannot approve their own request (four eyes).
    boss.user.user_permissions.add(void_dealt_coup())
    refused = decide(boss, void_request, "approve_void_requests")
    assert "four eyes" in message_of(refused)
    assert CoupVoidRequest.objects.get(pk=void_request.pk).state == CoupVoidRequest.State.PENDING

    with django_capture_on_commit_callbacks(execute=True):
        approved = decide(floor_manager, void_request, "approve_void_requests")
    assert message_of(approved).startswith("Done"), message_of(approved)
    coup.refresh_from_db()
    assert coup.state == Coup.State.VOID and "§4.2" in coup.void_reason and "slid under" in coup.void_reason
    assert Bet.objects.get(coup=coup).state == Bet.State.REFUNDED
    assert wallet_balance(user=alice) == D("1000.00")
    void_request.refresh_from_db()
    assert (void_request.state, void_request.decided_by) == (CoupVoidRequest.State.APPROVED, floor_manager.user)
    entry = AuditLog.objects.get(action="coup_voided")
    assert entry.actor == floor_manager.user
    assert entry.after["requested_by"] == "pitboss" and entry.after["approved_by"] == "flora"
    money_clean()


def test_the_pit_screen_and_the_console_show_the_open_request(boss, floor_manager, dealer, dealer_table, alice):
    coup = coup_bet_on(dealer, dealer_table, alice, ISSUE_CARDS)
    void(boss, coup, **MIXED_UP)
    shown = "void requested by pitboss (Proper order cannot be restored (§4.2): two cards fell"
    assert shown in boss.get(reverse("console:pit")).content.decode()
    assert shown in floor_manager.get(reverse("console:pit")).content.decode()
    status = dealer.get(reverse("console:status", kwargs={"code": dealer_table.code})).json()
    assert shown in status["held_alert"]
    assert (
        "approve or reject" in dealer.get(reverse("console:table", kwargs={"code": dealer_table.code})).content.decode()
    )
    decide(floor_manager, CoupVoidRequest.objects.get(coup=coup), "reject_void_requests")
    assert "void requested" not in boss.get(reverse("console:pit")).content.decode()


def test_a_rejected_request_lets_the_coup_resolve_and_settle(
    boss, floor_manager, dealer, dealer_table, alice, django_capture_on_commit_callbacks
):
    coup = coup_bet_on(dealer, dealer_table, alice, ISSUE_CARDS)
    void(boss, coup, **MIXED_UP)
    void_request = CoupVoidRequest.objects.get(coup=coup)
    rejected = decide(floor_manager, void_request, "reject_void_requests", reason="the video shows the order")
    assert message_of(rejected).startswith("Done"), message_of(rejected)
    assert CoupVoidRequest.objects.get(pk=void_request.pk).state == CoupVoidRequest.State.REJECTED
    coup.refresh_from_db()
    assert coup.state == Coup.State.DEALING
    entry = AuditLog.objects.get(action="coup_void_rejected")
    assert entry.after["requested_by"] == "pitboss" and entry.actor == floor_manager.user

    with django_capture_on_commit_callbacks(execute=True):
        console(dealer, dealer_table, "coup_resolve", round_id=coup.round_id)
    coup.refresh_from_db()
    assert (coup.state, coup.winner) == (Coup.State.SETTLED, "player")
    assert Bet.objects.get(coup=coup).state == Bet.State.SETTLED
    assert wallet_balance(user=alice) == D("900.00")
    money_clean()


def test_a_pit_boss_without_the_permission_cannot_approve(boss, dealer, dealer_table, alice):
    coup = coup_bet_on(dealer, dealer_table, alice, ISSUE_CARDS)
    void(boss, coup, **MIXED_UP)
    void_request = CoupVoidRequest.objects.get(coup=coup)
    other_boss = staff_client("otto", PIT_BOSS)
    assert decide(other_boss, void_request, "approve_void_requests").status_code == 403
    assert decide(other_boss, void_request, "reject_void_requests").status_code == 403
    with pytest.raises(TableError) as refused:
        lifecycle.coup_void_request_approve(void_request=void_request, actor=other_boss.user)
    assert refused.value.code == "permission_needed"
    assert CoupVoidRequest.objects.get(pk=void_request.pk).state == CoupVoidRequest.State.PENDING
    assert Coup.objects.get(pk=coup.pk).state == Coup.State.HELD


def test_a_pit_boss_of_another_pit_can_neither_request_nor_approve(boss, floor_manager, dealer, dealer_table, alice):
    coup = coup_bet_on(dealer, dealer_table, alice, ISSUE_CARDS)
    pit_create(code="main", name="Main", tables=[dealer_table], bosses=[boss.user], actor=None, reason="x")
    stranger = staff_client("sam", PIT_BOSS)
    stranger.user.user_permissions.add(void_dealt_coup())
    pit_create(code="salon", name="Salon", tables=[], bosses=[stranger.user], actor=None, reason="x")
    refused = void(stranger, coup, **MIXED_UP)
    assert message_of(refused) == "Nothing was changed: d1 is in a pit you do not supervise"
    with pytest.raises(TableError) as not_in_pit:
        lifecycle.coup_void(coup=coup, actor=stranger.user, **MIXED_UP)
    assert not_in_pit.value.code == "not_in_pit"
    assert not CoupVoidRequest.objects.exists()

    void(boss, coup, **MIXED_UP)
    void_request = CoupVoidRequest.objects.get(coup=coup)
    refused = decide(stranger, void_request, "approve_void_requests")
    assert message_of(refused) == "Nothing was changed: d1 is in a pit you do not supervise"
    with pytest.raises(TableError) as not_in_pit:
        lifecycle.coup_void_request_approve(void_request=void_request, actor=stranger.user)
    assert not_in_pit.value.code == "not_in_pit"
    assert CoupVoidRequest.objects.get(pk=void_request.pk).state == CoupVoidRequest.State.PENDING


def test_a_request_is_decided_once_and_a_coup_has_one_open_request(boss, floor_manager, dealer, dealer_table, alice):
    coup = coup_bet_on(dealer, dealer_table, alice, ISSUE_CARDS)
    void(boss, coup, **MIXED_UP)
    again = void(staff_client("otto", PIT_BOSS), coup, **MIXED_UP)
    assert "waiting for a decision" in message_of(again)
    assert CoupVoidRequest.objects.filter(coup=coup).count() == 1
    void_request = CoupVoidRequest.objects.get(coup=coup)
    decide(floor_manager, void_request, "approve_void_requests")
    second_manager = staff_client("felix", FLOOR_MANAGER)
    for name in ("approve_void_requests", "reject_void_requests"):
        assert "already approved" in message_of(decide(second_manager, void_request, name))
    assert AuditLog.objects.filter(action="coup_voided").count() == 1
    assert Bet.objects.get(coup=coup).state == Bet.State.REFUNDED
    money_clean()


def test_the_database_refuses_a_request_decided_by_its_requester(boss, dealer, dealer_table, alice):
    coup = coup_bet_on(dealer, dealer_table, alice, ISSUE_CARDS)
    void(boss, coup, **MIXED_UP)
    void_request = CoupVoidRequest.objects.get(coup=coup)
    with pytest.raises(IntegrityError), transaction.atomic():
        CoupVoidRequest.objects.filter(pk=void_request.pk).update(
            state=CoupVoidRequest.State.APPROVED, decided_by=boss.user, decided_at=void_request.requested_at
        )


def test_before_the_first_card_a_pit_boss_voids_alone(boss, dealer, dealer_table, alice):
    coup = coup_bet_on(dealer, dealer_table, alice)
    response = void(boss, coup, reason="camera down before the deal")
    assert message_of(response).startswith("Done")
    assert Coup.objects.get(pk=coup.pk).state == Coup.State.VOID
    assert wallet_balance(user=alice) == D("1000.00") and not CoupVoidRequest.objects.exists()
    money_clean()


def test_the_form_says_what_each_dealing_error_does_once_cards_are_out(boss, dealer, dealer_table, alice):
    coup = coup_bet_on(dealer, dealer_table, alice, ISSUE_CARDS)
    page = admin_action(boss, "coup", "void_coups", [coup], confirmed="").content.decode()
    assert "§5.1.8" in page and "§4.3" in page and "§4.2" in page
    assert "coup goes on" in page.lower() or "finished as normal" in page


# --- A hold's decision ----------------------------------------------------------------------------------


def test_a_first_card_held_for_the_wrong_hand_is_void_only_under_4_2(boss, dealer, dealer_table, alice):
    coup = coup_bet_on(dealer, dealer_table, alice, "9S:banker")  # held: no card of a hand shown to players
    assert Coup.objects.get(pk=coup.pk).state == Coup.State.HELD
    assert message_of(void(boss, coup, dealing_error="card_count", reason="x")).startswith("Nothing was changed")
    assert Coup.objects.get(pk=coup.pk).state == Coup.State.HELD
    done = void(boss, coup, **MIXED_UP)
    assert message_of(done).startswith("Done")
    assert Coup.objects.get(pk=coup.pk).state == Coup.State.VOID and not CoupVoidRequest.objects.exists()
    assert HeldCard.objects.get(coup=coup).outcome == HeldCard.Outcome.DISCARDED
    money_clean()


def test_a_held_coup_whose_first_cards_were_seen_is_void_only_by_request(
    boss, floor_manager, dealer, dealer_table, alice
):
    coup = coup_bet_on(dealer, dealer_table, alice, "2S:player TH:banker 3S:player KH:banker 4D:banker")
    assert Coup.objects.get(pk=coup.pk).state == Coup.State.HELD  # the player's third card entered for the banker
    assert message_of(void(boss, coup, dealing_error="card_count", reason="x")).startswith("Nothing was changed")
    void(boss, coup, **MIXED_UP)
    void_request = CoupVoidRequest.objects.get(coup=coup)
    # While the request is open, the pit cannot take the coup back out of its hold.
    for name in ("release_coups", "deal_held_card_in_this_coup"):
        refused = admin_action(boss, "coup", name, [coup], reason="changed my mind")
        assert "void request" in message_of(refused), message_of(refused)
    assert Coup.objects.get(pk=coup.pk).state == Coup.State.HELD
    decide(floor_manager, void_request, "reject_void_requests")
    coup.refresh_from_db()
    assert coup.state == Coup.State.HELD  # held for its card, as before the request: the pit decides the card
    admin_action(boss, "coup", "deal_held_card_in_this_coup", [coup], reason="§4.3")
    assert Coup.objects.get(pk=coup.pk).state == Coup.State.DEALING


# --- The card replacement --------------------------------------------------------------------------------


def test_replacing_the_cards_does_not_void_a_coup_with_cards_out(boss, dealer, dealer_table, alice):
    coup = coup_bet_on(dealer, dealer_table, alice, ISSUE_CARDS)
    shoe = Shoe.objects.get(pk=coup.shoe_id)
    response = admin_action(boss, "table", "replace_cards", [dealer_table], reason="marked card")
    assert message_of(response).startswith("Nothing was changed"), message_of(response)
    assert Coup.objects.get(pk=coup.pk).state == Coup.State.DEALING
    assert Shoe.objects.get(pk=shoe.pk).state == Shoe.State.IN_PLAY
    assert wallet_balance(user=alice) == D("900.00")
    with pytest.raises(TableError) as refused:
        lifecycle.shoe_replace(table=dealer_table, actor=boss.user, reason="marked card")
    assert refused.value.code == "cards_out"


def test_replacing_the_cards_before_the_first_card_voids_the_coup(boss, dealer, dealer_table, alice):
    coup = coup_bet_on(dealer, dealer_table, alice)
    response = admin_action(boss, "table", "replace_cards", [dealer_table], reason="marked card")
    assert message_of(response).startswith("Done")
    assert Coup.objects.get(pk=coup.pk).state == Coup.State.VOID
    assert wallet_balance(user=alice) == D("1000.00")
    money_clean()


# --- The partner API ------------------------------------------------------------------------------------


def test_the_partner_api_offers_no_way_to_end_a_coup(dealer, dealer_table, alice):
    """A partner's key reads rounds; no method of the API voids, cancels or settles one."""
    coup = coup_bet_on(dealer, dealer_table, alice, ISSUE_CARDS)
    api = client_for(partner_make("acme"))
    for url in (
        reverse("api:round", kwargs={"round_id": coup.round_id}),
        reverse("api:table-rounds", kwargs={"code": dealer_table.code}),
    ):
        for method in ("post", "put", "patch", "delete"):
            assert getattr(api, method)(url, {}, format="json").status_code == 405, (url, method)
    assert Coup.objects.get(pk=coup.pk).state == Coup.State.DEALING
    assert Bet.objects.get(coup=coup).state == Bet.State.ACCEPTED


# --- The roles --------------------------------------------------------------------------------------------


def test_the_demo_floor_manager_approves_voids_the_demo_pit_boss_requests_them():
    call_command("demo_data", verbosity=0)
    users = get_user_model().objects
    assert users.get(username="floor").has_perm("tables.void_dealt_coup")
    pit_boss = users.get(username="pitboss")
    assert pit_boss.has_perm("tables.void_coup") and not pit_boss.has_perm("tables.void_dealt_coup")
