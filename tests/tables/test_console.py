"""The dealer console: a dealer table dealt coup by coup through the services, from plain HTML forms."""

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import include, path, reverse

from tables.models import AuditLog, Coup, Shoe
from tables.roles import DEALER, SURVEILLANCE, roles_ensure
from tests.factories import staff_login

# The console as the project mounts it, with the admin for its login page.
urlpatterns = [path("admin/", admin.site.urls), path("console/", include("tables.console_urls"))]
pytestmark = [pytest.mark.django_db, pytest.mark.urls(__name__)]


def staff_client(username: str, role: str) -> Client:
    user = get_user_model().objects.create_user(username=username, password="x", is_staff=True)
    user.groups.add(roles_ensure()[role])
    return staff_login(Client(), user)


@pytest.fixture
def dealer():
    return staff_client("carla", DEALER)


def url(table, name: str = "table") -> str:
    return reverse(f"console:{name}", kwargs={"code": table.code})


def step(client: Client, table, name: str, **data) -> str:
    """Post one console step and return the page it leads back to."""
    response = client.post(url(table, name), data, follow=True)
    assert response.redirect_chain == [(url(table), 302)]
    return response.content.decode()


def live_coup(table) -> Coup:
    return table.coups.get(state__in=Coup.LIVE_STATES)


@pytest.fixture
def coup_dealt_four(dealer, dealer_table):
    """Shoe started, a coup open and closed, four cards in: Player 2+3 = 5 draws, Banker T+K = 0."""
    step(dealer, dealer_table, "shoe_start", shuffle_method="table", burn_card="5H")
    step(dealer, dealer_table, "coup_open")
    round_id = live_coup(dealer_table).round_id
    step(dealer, dealer_table, "coup_close_betting", round_id=round_id)
    for card, hand in (("2S", "player"), ("TH", "banker"), ("3S", "player"), ("KH", "banker")):
        step(dealer, dealer_table, "coup_card", round_id=round_id, card=card, hand=hand)
    return live_coup(dealer_table)


def test_anonymous_users_go_to_the_admin_login(client, dealer_table):
    response = client.get(url(dealer_table))
    assert response.status_code == 302
    assert response["Location"] == f"/admin/login/?next=/console/{dealer_table.code}/"


def test_staff_without_the_deal_permission_are_refused(dealer_table):
    watcher = staff_client("eye", SURVEILLANCE)
    assert watcher.get(reverse("console:tables")).status_code == 403
    assert watcher.post(url(dealer_table, "coup_open")).status_code == 403


def test_the_list_shows_dealer_tables_only(dealer, dealer_table, auto_table):
    page = dealer.get(reverse("console:tables")).content.decode()
    assert url(dealer_table) in page
    assert auto_table.name not in page
    assert dealer.get(url(auto_table)).status_code == 404


def test_a_whole_coup_dealt_by_the_tableau(dealer, dealer_table, django_capture_on_commit_callbacks):
    page = step(dealer, dealer_table, "shoe_start", shuffle_method="preliminary", seal_number="S-42", burn_card="5h")
    assert "Shoe 1 in play. 5H shown, 5 cards burned." in page
    shoe = dealer_table.shoes.get(state=Shoe.State.IN_PLAY)
    assert (shoe.seal_number, shoe.burn_shown, shoe.position) == ("S-42", "5H", 6)

    page = step(dealer, dealer_table, "coup_open")
    assert "bets, please" in page
    coup = live_coup(dealer_table)
    page = step(dealer, dealer_table, "coup_close_betting", round_id=coup.round_id)
    assert "No more bets." in page
    assert "Next: Card 1 to the Player" in page

    expected_next = [
        "Card 2 to the Banker",
        "Card 3 to the Player",
        "Card 4 to the Banker",
        "Player draws",  # Player 2+3 = 5
        "Banker draws",  # Banker T+K = 0 draws on any third card
        "Both hands complete. Resolve the coup.",
    ]
    cards = [("2S", "player"), ("TH", "banker"), ("3S", "player"), ("KH", "banker"), ("4D", "player"), ("5C", "banker")]
    for (card, hand), announced in zip(cards, expected_next, strict=True):
        page = step(dealer, dealer_table, "coup_card", round_id=coup.round_id, card=card, hand=hand)
        assert f"{card} to the {hand}." in page
        assert f"Next: {announced}" in page

    with django_capture_on_commit_callbacks(execute=True):
        page = step(dealer, dealer_table, "coup_resolve", round_id=coup.round_id)
    assert "Player wins, 9 to 5." in page
    coup.refresh_from_db()
    assert (coup.state, coup.winner, coup.player_total, coup.banker_total) == ("settled", "player", 9, 5)
    assert [(c.card, c.hand) for c in coup.cards.all()] == cards
    assert AuditLog.objects.filter(action="card_entered", actor__username="carla").count() == 6
    assert "Open a coup for betting" in page


def test_a_natural_stands(dealer, dealer_table):
    step(dealer, dealer_table, "shoe_start", shuffle_method="table", burn_card="TS")
    step(dealer, dealer_table, "coup_open")
    round_id = live_coup(dealer_table).round_id
    step(dealer, dealer_table, "coup_close_betting", round_id=round_id)
    for card, hand in (("4S", "player"), ("2H", "banker"), ("4H", "player")):
        step(dealer, dealer_table, "coup_card", round_id=round_id, card=card, hand=hand)
    page = step(dealer, dealer_table, "coup_card", round_id=round_id, card="3C", hand="banker")
    assert "Next: Natural: both hands stand. Resolve the coup." in page
    assert "Enter the card" not in page


def test_a_third_card_to_the_wrong_hand_voids_the_coup(dealer, dealer_table, coup_dealt_four):
    page = step(dealer, dealer_table, "coup_card", round_id=coup_dealt_four.round_id, card="4D", hand="banker")
    assert "4D dealt to the banker hand, but the player hand was next: the coup is void" in page
    coup_dealt_four.refresh_from_db()
    assert coup_dealt_four.state == Coup.State.VOID
    assert AuditLog.objects.get(action="coup_voided").actor.username == "carla"
    assert "Open a coup for betting" in page


def test_a_first_card_for_the_wrong_hand_is_put_back_in_order(dealer, dealer_table):
    step(dealer, dealer_table, "shoe_start", shuffle_method="table", burn_card="AS")
    step(dealer, dealer_table, "coup_open")
    round_id = live_coup(dealer_table).round_id
    step(dealer, dealer_table, "coup_close_betting", round_id=round_id)
    page = step(dealer, dealer_table, "coup_card", round_id=round_id, card="9S", hand="banker")
    assert "9S to the player (entered for the banker: put back in order)." in page


def test_bad_input_is_shown_and_changes_nothing(dealer, dealer_table, coup_dealt_four):
    round_id = coup_dealt_four.round_id
    page = step(dealer, dealer_table, "coup_card", round_id=round_id, card="ZZ", hand="player")
    assert "invalid card code &#x27;ZZ&#x27;" in page
    page = step(dealer, dealer_table, "coup_card", round_id=round_id, card="4D")
    assert "Dealt to: This field is required." in page
    page = step(dealer, dealer_table, "coup_resolve", round_id=round_id)
    assert "is not complete: the player hand takes another card" in page
    page = step(dealer, dealer_table, "coup_card", round_id="D1-STALE", card="4D", hand="player")
    assert "the page was out of date" in page
    assert coup_dealt_four.cards.count() == 4
    coup_dealt_four.refresh_from_db()
    assert coup_dealt_four.state == Coup.State.DEALING


def test_a_shoe_that_cannot_start_is_not_left_prepared(dealer, dealer_table):
    page = step(dealer, dealer_table, "shoe_start", shuffle_method="preliminary", seal_number="S-1")
    assert "enter the card shown for the burn" in page
    page = step(dealer, dealer_table, "shoe_start", shuffle_method="preliminary", burn_card="5H")
    assert "needs its seal number" in page
    assert not dealer_table.shoes.exists()


def test_the_shoe_finishes_once_the_cut_card_is_out(dealer, dealer_table, django_capture_on_commit_callbacks):
    step(dealer, dealer_table, "shoe_start", shuffle_method="table", burn_card="2C")
    page = step(dealer, dealer_table, "shoe_cut_card_out")
    assert "Cut card out: coup 1 is the last of shoe 1." in page
    step(dealer, dealer_table, "coup_open")
    round_id = live_coup(dealer_table).round_id
    step(dealer, dealer_table, "coup_close_betting", round_id=round_id)
    for card, hand in (("9S", "player"), ("2H", "banker"), ("TH", "player"), ("3C", "banker")):
        step(dealer, dealer_table, "coup_card", round_id=round_id, card=card, hand=hand)
    with django_capture_on_commit_callbacks(execute=True):
        page = step(dealer, dealer_table, "coup_resolve", round_id=round_id)
    assert "Open a coup for betting" not in page
    page = step(dealer, dealer_table, "shoe_finish")
    assert "Shoe 1 finished." in page
    assert dealer_table.shoes.get().state == Shoe.State.FINISHED
    assert "Prepare and start the shoe" in page
