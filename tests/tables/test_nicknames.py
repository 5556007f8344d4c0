"""Display names: masked by default, the player's nickname once set; a bad nickname is refused and changes nothing."""

import pytest

from tables.errors import TableError
from tables.models import AuditLog, PlayerProfile
from tables.selectors import player_display_name, player_display_names
from tables.services import player_nickname_set
from tests.factories import UserFactory
from tests.partners.conftest import partner_make, player_make

pytestmark = pytest.mark.django_db


def test_a_house_player_is_masked_by_default():
    assert player_display_name(user=UserFactory(username="alice")) == "al***"


def test_a_partner_player_is_never_named_after_the_partners_id():
    partner = partner_make("acme")
    users = [player_make(partner, external_id=f"acct-{n}", balance="0").user for n in (1, 2)]
    names = player_display_names(users=users)
    for user in users:
        assert names[user.pk].startswith("Player ") and len(names[user.pk]) == len("Player 7F3A")
        assert "acct" not in names[user.pk] and names[user.pk] == player_display_name(user=user)  # stable
    assert names[users[0].pk] != names[users[1].pk]


def test_the_nickname_is_used_once_set_and_cleared_back_to_the_default():
    user = UserFactory(username="alice")
    player_nickname_set(user=user, nickname="  Lucky 7  ")
    assert player_display_name(user=user) == "Lucky 7"
    audit = AuditLog.objects.get(action="player_nickname_set")
    assert (audit.actor_id, audit.before, audit.after) == (user.pk, {"nickname": ""}, {"nickname": "Lucky 7"})
    player_nickname_set(user=user, nickname="")
    assert player_display_name(user=user) == "al***"


@pytest.mark.parametrize(
    "nickname",
    [
        "ab",  # too short
        "x" * 21,  # too long
        "Lucky\u00a0Alex",  # not a plain space
        "Lucky\nAlex",
        "zero\u200bwidth",
        "<b>bold</b>",
        "al***",  # the masked form
        "Player 7F3A",  # a partner player's default
        "player-00ff",
        "dеaler",  # Cyrillic е
        "The Dealer",
        "D3aler_Anna",
        "Pit Boss",
        "admin",
        "Casino Support",
        "Surveillance1",
        "boss",  # a member of staff's username
        "Lucky  Alex",  # two spaces
    ],
)
def test_a_bad_nickname_is_refused_and_changes_nothing(nickname):
    UserFactory(username="boss", is_staff=True)
    user = UserFactory(username="alice")
    player_nickname_set(user=user, nickname="Lucky")
    with pytest.raises(TableError) as refused:
        player_nickname_set(user=user, nickname=nickname)
    assert str(refused.value)
    assert PlayerProfile.objects.get(user=user).nickname == "Lucky"
    assert AuditLog.objects.filter(action="player_nickname_set").count() == 1


@pytest.mark.parametrize("nickname", [None, 42, ["Lucky"]])
def test_a_nickname_that_is_not_text_is_refused(nickname):
    user = UserFactory(username="alice")
    with pytest.raises(TableError):
        player_nickname_set(user=user, nickname=nickname)
    assert not PlayerProfile.objects.exists()


def test_staff_have_no_nickname():
    with pytest.raises(TableError):
        player_nickname_set(user=UserFactory(username="dana", is_staff=True), nickname="Lucky")
    assert not PlayerProfile.objects.exists()
