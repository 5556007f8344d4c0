"""Result corrections through the admin: four eyes, decided once, the cards checked by the game core,
403 without the permission; on approval the coup, its roads, the live events and the partners' webhook."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.contrib.messages import get_messages
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.test import Client
from django.urls import reverse

from casino import lifecycle
from casino.lifecycle.settlement import coup_settle
from kernel import live as events
from kernel.live import table_group, user_group
from partners import webhooks
from partners.models import WebhookDelivery
from roadmaps.models import ShoeRoad
from roadmaps.services import shoe_road_add_coup
from tables import corrections
from tables.errors import TableError
from tables.models import AuditLog, Coup, ResultCorrection
from tables.roles import DEALER, PIT_BOSS, SURVEILLANCE, roles_ensure
from tests.factories import CoupFactory, TableFactory, UserFactory, coup_deal_and_resolve, staff_login
from tests.partners.conftest import partner_make, player_make
from tests.partners.test_webhooks import Receiver, signature_ok
from tests.security.conftest import database_state
from tests.wagering.conftest import fund
from wagering.checks import ledger_check, settlement_check
from wagering.placement import bet_batch_place
from wagering.selectors import wallet_balance

pytestmark = pytest.mark.django_db
D = Decimal
PLAYER_NATURAL_9 = "9S 2H KD 3C"  # dealt P 9S KD (9), B 2H 3C (5): player wins
BANKER_WINS = ("TS 2D 2S", "6H KC")  # P 4 with a third card, B stands on 6: banker wins with 6


@pytest.fixture
def staff(db):
    groups = roles_ensure()

    def make(username: str, role: str = PIT_BOSS):
        user = get_user_model().objects.create_user(username=username, password=None, is_staff=True)
        user.groups.add(groups[role])
        return user

    return make


@pytest.fixture
def requester(staff):
    return staff("ana")


@pytest.fixture
def approver(staff):
    return staff("ben")


@pytest.fixture
def live_events(monkeypatch):
    """Every live event (group, message) the services send, once their transaction commits."""
    sent = []

    def record(messages):
        built = [(group, event() if callable(event) else event) for group, event, _ in messages]  # as if sent
        json.dumps(built)  # what the channel layer could carry: amounts as strings
        transaction.on_commit(lambda: sent.extend(built))

    monkeypatch.setattr(events, "_send_on_commit", record)
    return sent


def client_for(user) -> Client:
    client = Client()
    staff_login(client, user)
    return client


def settled_coup(bets: dict[str, dict[str, str]], cards: str = PLAYER_NATURAL_9) -> tuple[Coup, dict]:
    """A coup dealt ``cards`` and settled, with a funded player (1000.00) for each name in ``bets``."""
    coup = CoupFactory(table=TableFactory())
    players = {}
    for name, stakes in bets.items():
        players[name] = UserFactory(username=name)
        fund(players[name], "1000.00")
        bet_batch_place(user=players[name], coup=coup, bets=stakes)
    coup_deal_and_resolve(coup, cards)
    shoe_road_add_coup(coup=coup)
    coup_settle(coup_id=coup.pk)
    coup.refresh_from_db()
    return coup, players


def request_in_admin(client: Client, coup: Coup, player: str, banker: str, reason: str = "card misread"):
    data = {"action": "request_result_correction", "_selected_action": [coup.pk], "confirmed": "yes"}
    data.update({"player_cards": player, "banker_cards": banker, "reason": reason})
    return client.post(reverse("admin:tables_coup_changelist"), data)


def decide_in_admin(client: Client, correction: ResultCorrection, action: str, reason: str = "checked on video"):
    data = {"action": action, "_selected_action": [correction.pk], "confirmed": "yes", "reason": reason}
    return client.post(reverse("admin:tables_resultcorrection_changelist"), data)


def messages_of(response) -> list[str]:
    return [str(message) for message in get_messages(response.wsgi_request)]


# --- Four eyes ------------------------------------------------------------------------------------


def test_a_request_then_another_staff_members_approval_corrects_and_resettles(
    requester, approver, live_events, django_capture_on_commit_callbacks
):
    coup, players = settled_coup({"pia": {"player": "100"}, "bob": {"banker": "100"}})
    page = client_for(requester).post(
        reverse("admin:tables_coup_changelist"),
        {"action": "request_result_correction", "_selected_action": [coup.pk], "index": "0"},
    )
    assert page.status_code == 200 and 'name="player_cards"' in page.content.decode()

    assert request_in_admin(client_for(requester), coup, *BANKER_WINS).status_code == 302
    correction = ResultCorrection.objects.get(coup=coup)
    assert (correction.state, correction.requested_by) == ("pending", requester)
    assert (correction.before["winner"], correction.after["winner"]) == ("player", "banker")
    assert correction.after["banker_total"] == 6  # computed by the game core, never typed
    coup.refresh_from_db()
    assert coup.winner == "player"  # nothing changes until someone else approves

    with django_capture_on_commit_callbacks(execute=True):
        response = decide_in_admin(client_for(approver), correction, "approve_corrections")
    assert messages_of(response) == ["Done: Approve the selected correction (re-settles its coup) (1)."]
    correction.refresh_from_db()
    assert (correction.state, correction.decided_by) == ("approved", approver)
    coup.refresh_from_db()
    assert (coup.winner, coup.player_total, coup.banker_total, coup.state) == ("banker", 4, 6, "settled")
    assert coup.result().winner == "banker"
    assert wallet_balance(user=players["pia"]) == D("900.00")  # won 200, now lost: 1000 - 100
    assert wallet_balance(user=players["bob"]) == D("1095.00")  # lost, now won with 5% commission
    entry = AuditLog.objects.get(action="result_corrected")
    assert (entry.actor, entry.before["winner"], entry.after["winner"]) == (approver, "player", "banker")
    assert (entry.after["requested_by"], entry.after["approved_by"]) == ("ana", "ben")
    assert ledger_check().ok and settlement_check().problems == []

    road = ShoeRoad.objects.get(shoe=coup.shoe)
    assert [bead["result"] for bead in road.roadmap["bead_plate"]] == ["B"]
    by_group = {(group, message["type"]): message["data"] for group, message in live_events}
    table = by_group[(table_group(coup.table.code), "result_corrected")]
    assert (table["before"]["winner"], table["after"]["winner"]) == ("player", "banker")
    assert by_group[(table_group(coup.table.code), "roads")]["bead_plate"] == road.roadmap["bead_plate"]
    pia = by_group[(user_group(players["pia"].pk), "result_corrected")]
    assert (pia["adjustment"], pia["balance"], pia["owed"]) == ("-200.00", "900.00", "0.00")
    assert (pia["before"]["winner"], pia["after"]["winner"]) == ("player", "banker")
    bob = by_group[(user_group(players["bob"].pk), "result_corrected")]
    assert (bob["adjustment"], bob["balance"]) == ("195.00", "1095.00")


def test_the_requester_cannot_approve_or_reject_their_own_request(requester, approver):
    coup, _ = settled_coup({"pia": {"player": "100"}})
    correction = corrections.result_correction_request(
        coup=coup, player_cards=BANKER_WINS[0], banker_cards=BANKER_WINS[1], reason="misread", actor=requester
    )
    before = database_state()
    for action in ("approve_corrections", "reject_corrections"):
        response = decide_in_admin(client_for(requester), correction, action)
        assert messages_of(response) == [
            "Nothing was changed: four eyes: a correction is decided by someone other than the person who requested it"
        ]
    assert database_state() == before
    correction.refresh_from_db()
    assert correction.state == "pending"
    coup.refresh_from_db()
    assert coup.winner == "player"


def test_a_correction_is_decided_once(requester, approver, staff):
    coup, players = settled_coup({"pia": {"player": "100"}})
    correction = corrections.result_correction_request(
        coup=coup, player_cards=BANKER_WINS[0], banker_cards=BANKER_WINS[1], reason="misread", actor=requester
    )
    lifecycle.result_correction_approve(correction=correction, actor=approver)
    third = staff("cleo")
    for decide in (lifecycle.result_correction_approve, corrections.result_correction_reject):
        with pytest.raises(TableError, match=f"correction {correction.pk} is already approved"):
            decide(correction=correction, actor=third, reason="again")
    assert wallet_balance(user=players["pia"]) == D("900.00")  # re-settled once

    rejected = corrections.result_correction_request(
        coup=coup, player_cards="9S KD", banker_cards="2H 3C", reason="no, it was right", actor=third
    )
    corrections.result_correction_reject(correction=rejected, actor=requester, reason="the video shows a 6")
    with pytest.raises(TableError, match="already rejected"):
        lifecycle.result_correction_approve(correction=rejected, actor=approver)
    coup.refresh_from_db()
    assert coup.winner == "banker"
    assert AuditLog.objects.get(action="result_correction_rejected").reason == "the video shows a 6"


def test_a_coup_has_at_most_one_pending_request(requester, approver):
    coup, _ = settled_coup({"pia": {"player": "100"}})
    corrections.result_correction_request(
        coup=coup, player_cards=BANKER_WINS[0], banker_cards=BANKER_WINS[1], reason="misread", actor=requester
    )
    response = request_in_admin(client_for(approver), coup, "8S 8D", "8H 8C")
    assert messages_of(response) == [
        f"Nothing was changed: coup {coup.round_id} already has a correction waiting for a decision"
    ]
    assert ResultCorrection.objects.filter(coup=coup).count() == 1


@pytest.mark.parametrize("role", [DEALER, SURVEILLANCE])
def test_staff_without_the_permission_get_403_and_change_nothing(staff, requester, role):
    coup, _ = settled_coup({"pia": {"player": "100"}})
    correction = corrections.result_correction_request(
        coup=coup, player_cards=BANKER_WINS[0], banker_cards=BANKER_WINS[1], reason="misread", actor=requester
    )
    client = client_for(staff("someone", role))
    before = database_state()
    assert request_in_admin(client, coup, "8S 8D", "8H 8C").status_code == 403
    for action in ("approve_corrections", "reject_corrections"):
        assert decide_in_admin(client, correction, action).status_code == 403
    assert database_state() == before
    if role == SURVEILLANCE:  # reads the requests
        listing = client.get(reverse("admin:tables_resultcorrection_changelist"))
        assert listing.status_code == 200 and coup.round_id in listing.content.decode()
    with pytest.raises(PermissionDenied):
        lifecycle.result_correction_approve(correction=correction, actor=staff("other", role))


# --- The cards, checked by the game core ------------------------------------------------------------


@pytest.mark.parametrize(
    ("player", "banker", "refusal"),
    [
        ("9S KD", "2H 3C 4D", "the banker hand cannot take a third card (4D): the tableau stands"),
        ("2S 3H", "4D 2C", "the coup is not complete: the player hand takes another card"),
        ("TS 2D 2S", "6H KC 5D", "the banker hand cannot take a third card (5D): the tableau stands"),
        ("9S", "2H 3C", "the player hand has 1 cards: a hand has two or three"),
        ("9S 1X", "2H 3C", "invalid card code '1X'"),
        ("9S KD", "2H <script>", "invalid card code '<script>'"),
        ("9S KD", "2H 3C", "these are the cards coup"),  # the result it already has
    ],
)
def test_cards_that_are_not_a_legal_coup_are_refused(requester, player, banker, refusal):
    coup, _ = settled_coup({"pia": {"player": "100"}})
    before = database_state()
    response = request_in_admin(client_for(requester), coup, player, banker)
    [message] = messages_of(response)
    assert message.startswith("Nothing was changed:") and refusal in message
    assert database_state() == before


def test_a_coup_still_dealing_or_void_cannot_be_corrected(requester):
    dealing = CoupFactory(table=TableFactory(), state=Coup.State.DEALING)
    void = CoupFactory(table=TableFactory(), state=Coup.State.VOID)
    for coup in (dealing, void):
        with pytest.raises(TableError, match=f"coup {coup.round_id} is {coup.state}: only a resolved or settled"):
            corrections.result_correction_request(
                coup=coup, player_cards="9S KD", banker_cards="2H 3C", reason="misread", actor=requester
            )
    assert not ResultCorrection.objects.exists()


def test_a_request_needs_a_reason(requester):
    coup, _ = settled_coup({"pia": {"player": "100"}})
    response = request_in_admin(client_for(requester), coup, *BANKER_WINS, reason="")
    assert response.status_code == 200 and "This field is required." in response.content.decode()
    with pytest.raises(TableError, match="needs a reason"):
        corrections.result_correction_request(
            coup=coup, player_cards=BANKER_WINS[0], banker_cards=BANKER_WINS[1], reason="   ", actor=requester
        )
    assert not ResultCorrection.objects.exists()


# --- Partners ---------------------------------------------------------------------------------------


def test_partners_get_a_signed_round_corrected_event_for_each_correction(
    requester, approver, django_capture_on_commit_callbacks
):
    """A coup corrected twice notifies twice (one event per correction, not per coup and type)."""
    partner = partner_make("acme")
    punter = player_make(partner, "p-7")
    with Receiver([200]) as receiver, django_capture_on_commit_callbacks(execute=True):
        endpoint = webhooks.webhook_endpoint_create(partner=partner, url=receiver.url)
        coup = CoupFactory(table=TableFactory())
        bet_batch_place(user=punter.user, coup=coup, bets={"player": "100"})
        coup_deal_and_resolve(coup, PLAYER_NATURAL_9)
        coup_settle(coup_id=coup.pk)
        for actor, other, hands in ((requester, approver, BANKER_WINS), (approver, requester, ("9S KD", "2H 3C"))):
            correction = corrections.result_correction_request(
                coup=coup, player_cards=hands[0], banker_cards=hands[1], reason="misread", actor=actor
            )
            lifecycle.result_correction_approve(correction=correction, actor=other)
    corrected = WebhookDelivery.objects.filter(event_type="round.corrected").order_by("pk")
    assert [delivery.status for delivery in corrected] == ["delivered", "delivered"]
    bodies = [(headers, json.loads(body)) for headers, body in receiver.requests]
    assert [event["type"] for _, event in bodies] == ["round.settled", "round.corrected", "round.corrected"]
    for headers, body in receiver.requests[1:]:
        assert signature_ok(endpoint.secret, headers["Punto-Signature"], body)
    first, second = (event["data"] for _, event in bodies[1:])
    assert (first["correction"]["before"]["winner"], first["correction"]["after"]["winner"]) == ("player", "banker")
    assert first["bets"] == [
        {
            "bet_id": punter.user.bets.get().pk,
            "player_id": "p-7",
            "bet_type": "player",
            "stake": "100.00",
            "outcome_before": "win",
            "returned_before": "200.00",
            "outcome": "lose",
            "returned": "0.00",
        }
    ]
    assert first["players"] == [
        {"player_id": "p-7", "adjustment": "-200.00", "owed_change": "0.00", "balance": "900.00"}
    ]
    assert first["round"]["winner"] == "banker" and [c["card"] for c in first["round"]["cards"]] == [
        "TS",
        "6H",
        "2D",
        "KC",
        "2S",
    ]
    assert second["players"][0]["adjustment"] == "200.00" and second["round"]["winner"] == "player"
