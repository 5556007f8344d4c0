"""The dealer console: a dealer table dealt coup by coup through the services, from plain HTML forms."""

from decimal import Decimal

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import include, path, reverse

from tables.models import AuditLog, Coup, DealtCard, HeldCard, Shoe
from tables.roles import DEALER, PIT_BOSS, SURVEILLANCE
from tables.services import dealer_login, dealer_logout, table_create
from tests.factories import SEALED_SHUFFLE, SHUFFLED_AND_CUT, staff_client
from wagering.models import Bet
from wagering.placement import bet_batch_place
from wagering.selectors import wallet_balance
from wagering.wallets import wallet_deposit

# The console as the project mounts it, with the admin for its login page.
urlpatterns = [path("admin/", admin.site.urls), path("console/", include("casino.console.urls"))]
pytestmark = [pytest.mark.django_db, pytest.mark.urls(__name__)]


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
def punter(db):
    player = get_user_model().objects.create_user(username="punter")
    wallet_deposit(user=player, amount="100.00", idempotency_key="console-punter")
    return player


@pytest.fixture
def coup_dealt_four(dealer, dealer_table, punter):
    """Shoe started, a coup open (the punter bets 40 on the banker) and closed, four cards in:
    Player 2+3 = 5 draws, Banker T+K = 0."""
    step(dealer, dealer_table, "shoe_start", **SHUFFLED_AND_CUT, shuffle_method="table", burn_card="5H")
    step(dealer, dealer_table, "coup_open")
    round_id = live_coup(dealer_table).round_id
    bet_batch_place(user=punter, coup=live_coup(dealer_table), bets={"banker": "40.00"})
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
    page = step(
        dealer,
        dealer_table,
        "shoe_start",
        **SHUFFLED_AND_CUT,
        **SEALED_SHUFFLE,
        shuffle_method="preliminary",
        seal_number="S-42",
        burn_card="5h",
    )
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
    assert "Player wins 9 to 5." in page
    coup.refresh_from_db()
    assert (coup.state, coup.winner, coup.player_total, coup.banker_total) == ("settled", "player", 9, 5)
    assert [(c.card, c.hand) for c in coup.cards.all()] == cards
    assert AuditLog.objects.filter(action="card_entered", actor__username="carla").count() == 6
    assert "Open a coup for betting" in page


def test_a_natural_stands(dealer, dealer_table):
    step(dealer, dealer_table, "shoe_start", **SHUFFLED_AND_CUT, shuffle_method="table", burn_card="TS")
    step(dealer, dealer_table, "coup_open")
    round_id = live_coup(dealer_table).round_id
    step(dealer, dealer_table, "coup_close_betting", round_id=round_id)
    for card, hand in (("4S", "player"), ("2H", "banker"), ("4H", "player")):
        step(dealer, dealer_table, "coup_card", round_id=round_id, card=card, hand=hand)
    page = step(dealer, dealer_table, "coup_card", round_id=round_id, card="3C", hand="banker")
    assert "Next: Natural: both hands stand. Resolve the coup." in page
    assert "Enter the card" not in page


def test_a_third_card_to_the_wrong_hand_holds_the_coup_for_the_pit(dealer, dealer_table, coup_dealt_four, punter):
    """Finding 2: a dealer could void a losing coup by entering its third card "for the wrong hand"."""
    position = Shoe.objects.get(pk=coup_dealt_four.shoe_id).position

    page = step(dealer, dealer_table, "coup_card", round_id=coup_dealt_four.round_id, card="4D", hand="banker")

    assert "4D entered for the banker, but the player hand was next: the coup is held" in page
    assert "Held for the pit:" in page and "Enter the card" not in page and "Resolve the coup" not in page
    coup_dealt_four.refresh_from_db()
    assert coup_dealt_four.state == Coup.State.HELD and coup_dealt_four.held_from == Coup.State.DEALING
    assert Bet.objects.get(coup=coup_dealt_four).state == Bet.State.ACCEPTED  # not refunded
    assert wallet_balance(user=punter) == Decimal("60.00")
    held = HeldCard.objects.get(coup=coup_dealt_four)
    assert (held.card, held.entered_for, held.next_hand, held.entered_by.username, held.outcome) == (
        "4D",
        "banker",
        "player",
        "carla",
        HeldCard.Outcome.PENDING,
    )
    assert held.shoe_position == position and Shoe.objects.get(pk=held.shoe_id).position == position + 1
    assert coup_dealt_four.cards.count() == 4
    assert AuditLog.objects.get(action="coup_held").actor.username == "carla"
    assert not AuditLog.objects.filter(action="coup_voided").exists()
    # The dealer cannot go on, nor resolve, nor open another coup while the pit decides.
    page = step(dealer, dealer_table, "coup_card", round_id=coup_dealt_four.round_id, card="4H", hand="player")
    assert "is held for the pit: no card can be dealt" in page
    page = step(dealer, dealer_table, "coup_resolve", round_id=coup_dealt_four.round_id)
    assert "not dealing" in page
    page = step(dealer, dealer_table, "coup_open")
    assert "already has a coup in progress" in page
    assert coup_dealt_four.cards.count() == 4 and dealer_table.coups.count() == 1


def test_a_first_card_for_the_wrong_hand_holds_the_coup(dealer, dealer_table):
    step(dealer, dealer_table, "shoe_start", **SHUFFLED_AND_CUT, shuffle_method="table", burn_card="AS")
    step(dealer, dealer_table, "coup_open")
    round_id = live_coup(dealer_table).round_id
    step(dealer, dealer_table, "coup_close_betting", round_id=round_id)
    page = step(dealer, dealer_table, "coup_card", round_id=round_id, card="9S", hand="banker")
    assert "9S entered for the banker, but the player hand was next: the coup is held" in page
    coup = live_coup(dealer_table)
    assert (coup.state, coup.held_from, coup.cards.count()) == ("held", "no_more_bets", 0)
    assert not AuditLog.objects.filter(action="card_order_restored").exists()


@pytest.mark.parametrize("role", [DEALER, PIT_BOSS, None])
def test_the_console_acts_only_where_the_signed_in_dealer_deals(dealer, dealer_table, pit_boss, role):
    """A dealer at another table, a pit boss or a superuser (tables.deal, but no session here) get 403."""
    step(dealer, dealer_table, "shoe_start", **SHUFFLED_AND_CUT, shuffle_method="table", burn_card="5H")
    step(dealer, dealer_table, "coup_open")
    coup = live_coup(dealer_table)
    other_table = table_create(code="d2", name="Dealer 2", actor=pit_boss, dealing_mode="dealer")
    stranger = staff_client("mallory", role)
    if role == DEALER:
        dealer_login(table=other_table, dealer=stranger.user, actor=pit_boss)
    before = (AuditLog.objects.count(), Coup.objects.count(), Shoe.objects.count(), DealtCard.objects.count())
    posts = {
        "shoe_start": {**SHUFFLED_AND_CUT, "shuffle_method": "table", "burn_card": "5H"},
        "shoe_cut_card_out": {},
        "shoe_finish": {},
        "coup_open": {},
        "coup_close_betting": {"round_id": coup.round_id},
        "coup_card": {"round_id": coup.round_id, "card": "9S", "hand": "banker"},
        "coup_resolve": {"round_id": coup.round_id},
    }
    for name, data in posts.items():
        assert stranger.post(url(dealer_table, name), data).status_code == 403, name
    after = (AuditLog.objects.count(), Coup.objects.count(), Shoe.objects.count(), DealtCard.objects.count())
    assert after == before
    assert live_coup(dealer_table).state == Coup.State.BETTING
    page = stranger.get(url(dealer_table)).content.decode()
    assert "You are not the dealer logged in at this table" in page
    dealing, seats = page.split("</header>")[1].split('id="seats-heading"')
    assert "<form" not in dealing
    # A pit boss (and a superuser) may seat patrons (tests/casino/test_console_seats.py); a dealer elsewhere not.
    assert ("<form" in seats) == (role != DEALER)
    # Logged out, the dealer is refused too.
    dealer_logout(table=dealer_table, actor=pit_boss)
    assert dealer.post(url(dealer_table, "coup_close_betting"), {"round_id": coup.round_id}).status_code == 403


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
    sealed = {**SHUFFLED_AND_CUT, **SEALED_SHUFFLE, "shuffle_method": "preliminary"}
    page = step(dealer, dealer_table, "shoe_start", **sealed, seal_number="S-1")
    assert "enter the card shown for the burn" in page
    page = step(dealer, dealer_table, "shoe_start", **sealed, burn_card="5H")
    assert "needs its seal number" in page
    assert not dealer_table.shoes.exists()


def test_the_shoe_finishes_once_the_cut_card_is_out(dealer, dealer_table, django_capture_on_commit_callbacks):
    step(dealer, dealer_table, "shoe_start", **SHUFFLED_AND_CUT, shuffle_method="table", burn_card="2C")
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
