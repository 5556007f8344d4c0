"""The lobby: every table (a closed one shown and marked, with no way in), its dealer and bettors, and the
header's balance, which only a signed-in player sees, and only their own."""

import pytest
from django.contrib.auth import get_user_model

from tables.services import dealer_login, table_close, table_rules_update
from tests.factories import CoupFactory, TableFactory, UserFactory, staff_login
from tests.ui.conftest import fund
from wagering.placement import bet_batch_place

pytestmark = pytest.mark.django_db


def test_a_closed_table_is_shown_marked_and_not_linked(client, table):
    TableFactory(code="shut", name="Closed Table", is_open=False)
    page = client.get("/").content.decode()
    assert page.index('data-lobby-table="pb1"') < page.index('data-lobby-table="shut"')  # open tables first
    closed = page[page.index('data-lobby-table="shut"') :]
    assert 'class="lobby-card lobby-card--closed"' in page and "Closed Table" in closed
    assert '<p class="lobby-status lobby-status--closed">Closed</p>' in closed
    assert 'href="/tables/shut/"' not in page and "data-follow" not in closed  # nor followed on the lobby's socket
    assert 'href="/tables/pb1/"' in page and 'data-lobby-table="pb1" data-follow>' in page
    assert page.count('data-socket="/ws/lobby/"') == 1 and "/ws/tables/" not in page  # one socket for the lobby


def test_a_dealer_table_names_its_dealer_by_first_name(client, dealer_table):
    dealer = get_user_model().objects.create_user(username="dealer7", first_name="Mia", is_staff=True)
    dealer_login(table=dealer_table, dealer=dealer)
    page = client.get("/").content.decode()
    assert "Live dealer<span data-dealer>: Mia</span>" in page and "dealer7" not in page


def test_the_card_counts_the_players_betting_on_the_live_coup(client, player, table, coup):
    assert "No bets on this coup yet" in client.get("/").content.decode()
    bob = UserFactory()
    fund(bob, "100")
    bet_batch_place(user=player, coup=coup, bets={"player": "10"})
    bet_batch_place(user=player, coup=coup, bets={"tie": "1"})
    bet_batch_place(user=bob, coup=coup, bets={"banker": "5"})
    assert "2 players betting this coup" in client.get("/").content.decode()


def test_the_lobby_reads_a_fixed_number_of_queries(player_client, player, django_assert_max_num_queries):
    for number in range(8):
        table = TableFactory(code=f"t{number}", name=f"Table {number}", is_open=number % 2 == 0)
        CoupFactory(table=table)
    # session, user, the player's currency, 5 for the cards, the header's balance and currency
    with django_assert_max_num_queries(10):
        assert player_client.get("/").status_code == 200


def test_an_anonymous_visitor_sees_the_lobby_without_a_balance(client, player, table):
    page = client.get("/").content.decode()
    assert "Punto Banco 1" in page
    assert "data-header-balance" not in page and "1,000.00" not in page


def test_a_player_sees_their_own_balance_with_its_currency_in_the_header(player_client, table):
    bob = UserFactory(username="bob")
    fund(bob, "77.50")
    for path in ("/", "/tables/pb1/", "/account/"):
        page = player_client.get(path).content.decode()
        assert '<strong data-header-balance>1,000.00</strong> <abbr title="EUR">EUR</abbr>' in page, path
        assert "77.50" not in page


def test_staff_see_no_balance(client, table):
    staff_login(client, UserFactory(username="pitboss", is_staff=True))
    assert "data-header-balance" not in client.get("/").content.decode()


@pytest.mark.parametrize(
    ("video_url", "still"),
    [
        ("/video/d1/live.m3u8", "/video/d1/still.jpg"),  # the demo's test stream: the site serves its still
        ("https://cdn.example.com/studio/live.m3u8", None),  # a studio's stream on a CDN: no still here, the scene
        ("", None),
    ],
)
def test_a_dealer_table_shows_a_still_of_its_video_where_the_site_serves_one(
    client, dealer_table, table, pit_boss, video_url, still
):
    table_rules_update(table=dealer_table, actor=pit_boss, changes={"video_url": video_url}, reason="test")
    page = client.get("/").content.decode()
    card = page[page.index('data-lobby-table="d1"') :].split("</li>")[0]
    automatic = page[page.index('data-lobby-table="pb1"') :].split("</li>")[0]
    assert "data-still" not in automatic and "data-scene" in card  # the cards and road stay, over the still
    if still:
        assert f'<img class="lobby-still" src="{still}"' in card and f'data-still="{still}"' in card
    else:
        assert "data-still" not in card and "<img" not in card


def test_a_closed_dealer_tables_card_shows_no_still(client, dealer_table, pit_boss):
    table_rules_update(table=dealer_table, actor=pit_boss, changes={"video_url": "/video/d1/live.m3u8"}, reason="t")
    table_close(table=dealer_table, actor=pit_boss, reason="break")
    assert "data-still" not in client.get("/").content.decode()
