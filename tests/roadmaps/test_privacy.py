"""Players appear to the table by display name only: no socket (anonymous, another player's) ever receives
a username or a partner's player id, in the snapshot, ``no_more_bets``'s ``shown_by`` or the chat."""

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.core.cache import cache
from django.test import Client

from casino import lifecycle
from casino.asgi import application
from tables.models import Coup
from tables.players import default_display_name
from tables.services import dealer_login, player_nickname_set
from tests.factories import CoupFactory, TableFactory, UserFactory
from tests.partners.conftest import partner_make, player_make
from tests.wagering.conftest import fund
from wagering.placement import bet_batch_place

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("in_memory_layer_and_fresh_cache")]

HOUSE_USERNAME = "alexandra.whale-1987"
PARTNER_PLAYER_ID = "customer-8841-" + "9" * 86  # the partner's own id for its player, 100 characters


@pytest.fixture
def coup(db):
    return CoupFactory(table=TableFactory(code="priv1"))


@pytest.fixture
def house_player(db):
    user = UserFactory(username=HOUSE_USERNAME)
    fund(user, "1000.00")
    return user


@pytest.fixture
def partner_player(db):
    return player_make(partner_make("acme"), external_id=PARTNER_PLAYER_ID).user


def session_cookie(user) -> bytes:
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}".encode()


async def join(cookie: bytes | None = None) -> tuple[WebsocketCommunicator, list[str]]:
    """A socket at the table, and every frame it receives (the snapshot first)."""
    headers = [(b"origin", b"http://127.0.0.1")] + ([(b"cookie", cookie)] if cookie else [])
    ws = WebsocketCommunicator(application, "/ws/tables/priv1/", headers=headers)
    connected, _ = await ws.connect()
    assert connected
    frames = [await ws.receive_from(timeout=5)]
    return ws, frames


async def drain(ws: WebsocketCommunicator, frames: list[str]) -> list[str]:
    while not await ws.receive_nothing(timeout=0.3):
        frames.append(await ws.receive_from())
    return frames


def assert_no_identity(frames: list[str], *secrets: str) -> None:
    wire = "\n".join(frames)
    for secret in secrets:
        assert secret not in wire
    assert "acme" not in wire  # nor the partner's code, part of its players' usernames


@database_sync_to_async
def bets_then_no_more_bets(coup, house_player, partner_player):
    bet_batch_place(user=house_player, coup=coup, bets={"banker": "20"})
    bet_batch_place(user=partner_player, coup=coup, bets={"player": "30"})
    lifecycle.coup_close_betting(coup=coup)


async def test_who_shows_the_cards_is_a_display_name_to_every_socket(coup, house_player, partner_player):
    anonymous, anonymous_frames = await join()
    bystander = await database_sync_to_async(UserFactory)(username="bystander")
    other, other_frames = await join(await database_sync_to_async(session_cookie)(bystander))
    await bets_then_no_more_bets(coup, house_player, partner_player)
    partner_name = default_display_name(user_id=partner_player.pk, username=partner_player.username)
    for ws, frames in ((anonymous, anonymous_frames), (other, other_frames)):
        await drain(ws, frames)
        [no_more_bets] = [frame for frame in frames if '"no_more_bets"' in frame]
        assert f'"shown_by": {{"player": "{partner_name}", "banker": "al***"}}' in no_more_bets
        assert_no_identity(frames, HOUSE_USERNAME, PARTNER_PLAYER_ID, partner_player.username)
        await ws.disconnect()
    assert partner_name.startswith("Player ") and len(partner_name) == len("Player 7F3A")


async def test_the_snapshot_names_nobody(coup, house_player, partner_player):
    await bets_then_no_more_bets(coup, house_player, partner_player)
    ws, frames = await join()
    assert '"snapshot"' in frames[0] and '"no_more_bets"' in frames[0]
    assert_no_identity(frames, HOUSE_USERNAME, PARTNER_PLAYER_ID)
    await ws.disconnect()


async def test_chat_names_the_sender_by_display_name_to_everyone_and_their_nickname_once_set(coup, house_player):
    sender, _ = await join(await database_sync_to_async(session_cookie)(house_player))
    anonymous, anonymous_frames = await join()
    await sender.send_json_to({"type": "chat", "text": "hello"})
    for ws in (sender, anonymous):
        assert (await ws.receive_json_from(timeout=5))["data"] == {"user": "al***", "text": "hello"}
    await database_sync_to_async(player_nickname_set)(user=house_player, nickname="Lucky Alex")
    cache.clear()  # the chat's one-a-second limit
    await sender.send_json_to({"type": "chat", "text": "it's me"})
    for ws in (sender, anonymous):
        assert (await ws.receive_json_from(timeout=5))["data"] == {"user": "Lucky Alex", "text": "it's me"}
    assert_no_identity(await drain(anonymous, anonymous_frames), HOUSE_USERNAME)
    await anonymous.disconnect()
    await sender.disconnect()


async def test_a_nickname_shows_the_cards_once_set(coup, house_player, partner_player):
    await database_sync_to_async(player_nickname_set)(user=house_player, nickname="Lucky Alex")
    ws, frames = await join()
    await bets_then_no_more_bets(coup, house_player, partner_player)
    await drain(ws, frames)
    assert '"banker": "Lucky Alex"' in next(frame for frame in frames if '"no_more_bets"' in frame)
    assert await database_sync_to_async(Coup.objects.filter(banker_shown_by=house_player).exists)()
    await ws.disconnect()


@database_sync_to_async
def dealers_log_in(table, *dealers):
    for dealer in dealers:
        dealer_login(table=table, dealer=dealer)


async def test_dealers_appear_by_first_name_never_by_username(coup):
    """A staff username is half a staff sign-in (and enough to lock the account out): no viewer gets it."""
    anonymous_dealer = await database_sync_to_async(UserFactory)(username="dealer.k.owens", is_staff=True)
    named_dealer = await database_sync_to_async(UserFactory)(username="dealer.c.ruiz", first_name="Carla")
    await dealers_log_in(coup.table, anonymous_dealer)
    ws, frames = await join()
    await dealers_log_in(coup.table, named_dealer)
    frames = await drain(ws, frames)
    await ws.disconnect()
    assert '"dealer": "Dealer"' in frames[0] and '"dealer": "Carla"' in frames[-1]
    assert_no_identity(frames, "dealer.k.owens", "dealer.c.ruiz")
