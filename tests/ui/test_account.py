"""The account page: a player sets the nickname other players see; bad input is refused and changes nothing."""

import pytest

from tables.models import AuditLog, PlayerProfile
from tables.selectors import player_display_name
from tests.factories import UserFactory, staff_login

pytestmark = pytest.mark.django_db


def test_a_player_sees_how_the_table_names_them(player_client):
    response = player_client.get("/account/")
    assert response.status_code == 200
    assert b"<strong data-display-name>al***</strong>" in response.content


def test_a_player_sets_a_nickname(player_client, player):
    response = player_client.post("/account/", {"nickname": "Lucky Alice"}, follow=True)
    assert response.status_code == 200
    assert b"Other players now see you as Lucky Alice." in response.content
    assert player_display_name(user=player) == "Lucky Alice"
    player_client.post("/account/", {"nickname": ""})
    assert player_display_name(user=player) == "al***"


@pytest.mark.parametrize("nickname", ["The Dealer", "<script>x</script>", "a", "Player 0A1B", "x" * 40])
def test_a_bad_nickname_is_refused_and_changes_nothing(player_client, player, nickname):
    player_client.post("/account/", {"nickname": "Lucky Alice"})
    response = player_client.post("/account/", {"nickname": nickname})
    assert response.status_code == 400
    assert b'class="form-error"' in response.content and b"<script>x" not in response.content
    assert PlayerProfile.objects.get(user=player).nickname == "Lucky Alice"
    assert AuditLog.objects.filter(action="player_nickname_set").count() == 1


def test_the_table_page_knows_the_players_display_name(player_client, table):
    assert b'data-user="al***"' in player_client.get("/tables/pb1/").content


def test_anonymous_visitors_sign_in_first_and_staff_have_no_nickname(client):
    assert client.get("/account/").status_code == 302
    assert client.post("/account/", {"nickname": "Lucky"}).status_code == 302
    staff_login(client, UserFactory(username="pitboss", is_staff=True))
    assert client.post("/account/", {"nickname": "Lucky"}).status_code == 403
    assert not PlayerProfile.objects.exists()
