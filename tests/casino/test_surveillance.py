"""Surveillance (issue 18): every coup's exact house edges for the cards seen, alerts, advantage play, access."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import include, path, reverse

from baccarat.cards import RANKS, SUITS, Card
from baccarat.coup import CoupDeal
from baccarat.odds import ShoeComposition, analyze
from baccarat.rules import SIDE_BETS
from casino.surveillance.selectors import floor_outlook, shoe_surveillance
from kernel.encryption import encrypt
from tables.models import Table
from tables.roles import DEALER, PIT_BOSS, SURVEILLANCE, roles_ensure
from tables.seating import patron_seat
from tables.selectors import table_coup_rules
from tests.factories import CoupFactory, ShoeFactory, coup_deal_and_resolve, staff_login
from wagering.chips import tray_count
from wagering.placement import bet_batch_place
from wagering.seated import seat_bets_place
from wagering.wallets import wallet_deposit

urlpatterns = [
    path("admin/", admin.site.urls),
    path("console/surveillance/", include("casino.surveillance.urls")),
]
pytestmark = [pytest.mark.django_db, pytest.mark.urls(__name__)]

BURN_SHOWN = "5H"


def coups_of(codes: list[str]) -> list[list[str]]:
    """The cards split into coups as the tableau deals them, the last one completed with tens."""
    coups, deal, cards = [], CoupDeal(), []
    for code in [*codes, "TS", "TH", "TD", "TC"]:
        if len(coups) and not cards and sum(map(len, coups)) >= len(codes):
            break
        deal.add(Card.parse(code))
        cards.append(code)
        if deal.complete:
            coups.append(cards)
            deal, cards = CoupDeal(), []
    return coups


# Every 2 to 9 of the one deck but the burn card, dealt in rank order: the shoe is left with aces and
# ten-valued cards, and a pair bet (11:1) turns in the player's favour.
LOW_CARDS = [f"{rank}{suit}" for rank in RANKS[1:9] for suit in SUITS if f"{rank}{suit}" != BURN_SHOWN]
COUPS_DEALT = coups_of(LOW_CARDS)  # the next coup takes bets


def player(username: str) -> object:
    user = get_user_model().objects.create_user(username=username)
    wallet_deposit(user=user, amount="1000.00", idempotency_key=f"surveillance-{username}")
    return user


@pytest.fixture
def late_shoe(dealer_table, pit_boss):
    """A one-deck shoe at the dealer table, every side bet offered; the low cards dealt, the next coup taking bets.

    On coups 1-3 alice stakes 5.00 on the player pair, bob 10.00, carol 20.00 on the banker, the patron at
    seat 4 5.00 on the player pair. On the coup taking bets alice raises to 20.00, bob stays at 10.00, carol
    comes to the player pair with 45.00, dave makes his first bet of the shoe there, erin bets the banker,
    seat 4 raises to 25.00.
    """
    Table.objects.filter(pk=dealer_table.pk).update(decks=1, cut_card_from_bottom=14, side_bets=list(SIDE_BETS))
    dealer_table.refresh_from_db()
    shoe = ShoeFactory(
        table=dealer_table, decks=1, cut_card_position=38, burn_shown=BURN_SHOWN, card_order_encrypted=""
    )
    alice, bob, carol, dave, erin = (player(name) for name in ("alice", "bob", "carol", "dave", "erin"))
    patron = patron_seat(table=dealer_table, seat_number=4, actor=pit_boss, guest_name="gentleman in grey")
    tray_count(table=dealer_table, currency="EUR", counted="10000", actor=pit_boss)  # seated chips need a shift
    for number, cards in enumerate(COUPS_DEALT, start=1):
        coup = CoupFactory(table=dealer_table, shoe=shoe)
        if number <= 3:
            bet_batch_place(user=alice, coup=coup, bets={"player_pair": "5.00"})
            bet_batch_place(user=bob, coup=coup, bets={"player_pair": "10.00"})
            bet_batch_place(user=carol, coup=coup, bets={"banker": "20.00"})
            seat_bets_place(coup=coup, seat_session=patron, bets={"player_pair": "5.00"}, actor=pit_boss)
        coup_deal_and_resolve(coup, " ".join(cards))
    live = CoupFactory(table=dealer_table, shoe=shoe)
    bet_batch_place(user=alice, coup=live, bets={"player_pair": "20.00"})
    bet_batch_place(user=bob, coup=live, bets={"player_pair": "10.00"})
    bet_batch_place(user=carol, coup=live, bets={"player_pair": "45.00"})
    bet_batch_place(user=dave, coup=live, bets={"player_pair": "10.00"})
    bet_batch_place(user=erin, coup=live, bets={"banker": "50.00"})
    seat_bets_place(coup=live, seat_session=patron, bets={"player_pair": "25.00"}, actor=pit_boss)
    shoe.coups_started = len(COUPS_DEALT) + 1
    shoe.save()
    return shoe


def staff_client(username: str, role: str | None) -> Client:
    users = get_user_model().objects
    if role is None:
        user = users.create_superuser(username=username, password="x")
    else:
        user = users.create_user(username=username, password="x", is_staff=True)
        user.groups.add(roles_ensure()[role])
    return staff_login(Client(), user)


def shoe_url(shoe) -> str:
    return reverse("surveillance:shoe", kwargs={"shoe_id": shoe.pk})


def test_every_coup_has_the_exact_edges_of_the_cards_not_yet_seen(late_shoe):
    surveillance = shoe_surveillance(shoe=late_shoe)
    paytables = table_coup_rules(table=late_shoe.table).table.paytables()
    assert [outlook.number for outlook in surveillance.coups] == list(range(1, len(COUPS_DEALT) + 2))
    seen = [Card.parse(BURN_SHOWN)]
    for outlook, cards in zip(surveillance.coups, [*COUPS_DEALT, []], strict=True):
        expected = analyze(ShoeComposition.full(1).remove(seen), paytables=paytables)
        assert outlook.cards_left == 52 - len(seen)
        assert {bet: edge.house_edge for bet, edge in outlook.edges.items()} == {
            bet: odds.house_edge for bet, odds in expected.bets.items()
        }
        seen += map(Card.parse, cards)
    assert list(surveillance.bets) == ["player", "banker", "tie", *SIDE_BETS]
    assert surveillance.overdrawn == []


def test_an_alert_is_raised_exactly_when_a_bet_is_in_the_players_favour(late_shoe):
    surveillance = shoe_surveillance(shoe=late_shoe)
    for outlook in surveillance.coups:
        assert {edge.bet for edge in outlook.alerts} == {bet for bet, e in outlook.edges.items() if e.house_edge < 0}
    first, live = surveillance.coups[0], surveillance.coups[-1]
    assert first.alerts == []
    assert {"player_pair", "banker_pair"} <= {edge.bet for edge in live.alerts}
    assert live in surveillance.alert_coups and first not in surveillance.alert_coups

    [table_on_floor] = floor_outlook()
    assert table_on_floor.coming == live.number
    assert [edge.bet for edge in table_on_floor.favourable] == [edge.bet for edge in live.alerts]


def test_the_bettors_who_raised_on_the_favourable_bet_are_suspects(late_shoe):
    live = shoe_surveillance(shoe=late_shoe).coups[-1]
    suspects = {suspect.bettor: suspect for suspect in live.suspects}
    assert set(suspects) == {"alice", "carol", "dave", "Seat 4 · gentleman in grey"}  # not bob, not erin
    assert suspects["alice"].stake == Decimal("20.00")
    assert suspects["alice"].reason == "×4.0 their average of 5.00 on it"
    assert suspects["carol"].reason == "×2.2 their average of 20.00 per coup in all; never on it before"
    assert suspects["dave"].reason == "no bet earlier in the shoe"
    assert suspects["Seat 4 · gentleman in grey"].reason == "×5.0 their average of 5.00 on it"

    page = staff_client("eye", SURVEILLANCE).get(shoe_url(late_shoe)).content.decode()
    assert "<strong>alice</strong> raised on Player pair: 20.00 EUR" in page
    assert "bob" not in page and "erin" not in page


def test_a_shoe_without_a_favourable_bet_shows_no_alert(dealer_table):
    shoe = ShoeFactory(table=dealer_table, burn_shown="KD")
    coup_deal_and_resolve(CoupFactory(table=dealer_table, shoe=shoe), "2S 3H 4D 5C")
    assert [outlook.alerts for outlook in shoe_surveillance(shoe=shoe).coups] == [[], []]  # coup 1, the next
    page = staff_client("eye", SURVEILLANCE).get(shoe_url(shoe)).content.decode()
    assert "No bet has turned in the player's favour" in page
    assert "favourable" not in page


def test_the_shoes_hidden_order_is_never_read(late_shoe):
    client = staff_client("eye", SURVEILLANCE)
    pages = []
    for order in ([*LOW_CARDS, "AS", "KD"], ["KD", "AS", *reversed(LOW_CARDS)], None):
        late_shoe.card_order_encrypted = encrypt(" ".join(order)) if order else "not a readable order"
        late_shoe.save()
        pages.append(client.get(shoe_url(late_shoe)).content)
        pages.append(client.get(reverse("surveillance:floor")).content)
    assert pages[0::2] == [pages[0]] * 3 and pages[1::2] == [pages[1]] * 3


@pytest.mark.parametrize("role", [SURVEILLANCE, PIT_BOSS, None])
def test_surveillance_pit_bosses_and_superusers_see_the_pages(late_shoe, role):
    client = staff_client("staffer", role)
    floor = client.get(reverse("surveillance:floor"))
    assert floor.status_code == 200
    assert f'href="{shoe_url(late_shoe)}"' in floor.content.decode()
    assert client.get(shoe_url(late_shoe)).status_code == 200


def test_everyone_else_is_refused_and_nothing_is_posted(late_shoe):
    for url in (reverse("surveillance:floor"), shoe_url(late_shoe)):
        anonymous = Client().get(url)
        assert anonymous.status_code == 302 and anonymous["Location"].startswith(reverse("admin:login"))
        player_client = Client()
        player_client.force_login(get_user_model().objects.get(username="alice"))
        assert player_client.get(url).status_code == 403
        assert staff_client(f"dealer-{len(url)}", DEALER).get(url).status_code == 403
        assert staff_client(f"eye-{len(url)}", SURVEILLANCE).post(url).status_code == 405


def test_the_shoe_page_reads_in_a_fixed_number_of_queries(late_shoe, django_assert_max_num_queries):
    client = staff_client("eye", SURVEILLANCE)
    with django_assert_max_num_queries(16):
        assert client.get(shoe_url(late_shoe)).status_code == 200


def test_the_floors_queries_do_not_grow_with_the_private_shoes_of_a_table_dealt_on_demand(rng_table):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from casino.lifecycle.rng import rng_shoe_ready
    from tests.factories import UserFactory

    def floor_read_after_more_shoes(more: int) -> tuple[int, int]:
        for _ in range(more):
            rng_shoe_ready(table=rng_table, player=UserFactory())
        with CaptureQueriesContext(connection) as queries:
            outlooks = floor_outlook()
        return len(queries), sum(outlook.shoe.table_id == rng_table.pk for outlook in outlooks)

    few_queries, few_shoes = floor_read_after_more_shoes(2)
    many_queries, many_shoes = floor_read_after_more_shoes(18)
    assert (few_shoes, many_shoes) == (2, 20) and few_queries == many_queries
