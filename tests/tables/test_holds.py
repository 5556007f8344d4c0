"""Dealing errors are the pit's decision (seed 000 §4): a held coup freezes bets, cards and settlement until
a pit boss puts the card in order (in this coup or the next) or voids the coup when the order cannot be restored.
Voids follow the result's lifecycle. Dealers act through the console, pit bosses through the admin."""

import json
import uuid
from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.contrib.messages import get_messages
from django.test import Client
from django.urls import reverse

from casino import lifecycle
from casino.lifecycle.settlement import coup_settle
from kernel import live as events
from tables import holds
from tables.coups import coup_open
from tables.errors import TableError
from tables.models import AuditLog, Coup, CoupVoidRequest, DealtCard, HeldCard, Shoe
from tables.roles import FLOOR_MANAGER, PIT_BOSS
from tables.shoes import shoe_finish, shoe_prepare, shoe_start
from tests.factories import SHUFFLED_AND_CUT, staff_client
from tests.partners.conftest import client_for, partner_make, player_make
from wagering.checks import ledger_check, settlement_check
from wagering.models import Bet
from wagering.placement import bet_batch_place
from wagering.selectors import wallet_balance
from wagering.wallets import wallet_deposit

pytestmark = pytest.mark.django_db

D = Decimal


@pytest.fixture
def boss():
    return staff_client("floor-boss", PIT_BOSS)


@pytest.fixture
def punter(db):
    user = get_user_model().objects.create_user(username="punter")
    wallet_deposit(user=user, amount="100.00", idempotency_key=uuid.uuid4().hex)
    return user


def console(client: Client, table, name: str, **data) -> str:
    response = client.post(reverse(f"console:{name}", kwargs={"code": table.code}), data, follow=True)
    return response.content.decode()


def live(table) -> Coup:
    return table.coups.get(state__in=Coup.LIVE_STATES)


def deal(client: Client, table, cards: str) -> str:
    """Enter cards on the console, each "card:hand" (e.g. "4D:player")."""
    page = ""
    for entry in cards.split():
        card, hand = entry.split(":")
        page = console(client, table, "coup_card", round_id=live(table).round_id, card=card, hand=hand)
    return page


def open_coup(dealer: Client, table, punter=None, bets=None) -> Coup:
    console(dealer, table, "coup_open")
    coup = live(table)
    if punter is not None:
        bet_batch_place(user=punter, coup=coup, bets=bets)
    console(dealer, table, "coup_close_betting", round_id=coup.round_id)
    return live(table)


def resolve(dealer: Client, table, captured) -> Coup:
    coup = live(table)
    with captured(execute=True):
        page = console(dealer, table, "coup_resolve", round_id=coup.round_id)
    assert "wins" in page or "Tie" in page, page
    coup.refresh_from_db()
    return coup


def action(client: Client, name: str, coups, **form):
    data = {"action": name, "_selected_action": [coup.pk for coup in coups], "confirmed": "yes", **form}
    return client.post(reverse("admin:tables_coup_changelist"), data)


def messages_of(response) -> list[str]:
    return [str(message) for message in get_messages(response.wsgi_request)]


def money_clean() -> None:
    assert ledger_check().ok
    assert settlement_check().problems == []


@pytest.fixture
def held_third_card(dealer, dealer_table, punter):
    """Player 2+3 = 5 draws, Banker T+K = 0; the punter has 40 on the banker; the dealer enters the
    player's third card, 4D, "for the banker": the coup is held."""
    console(dealer, dealer_table, "shoe_start", **SHUFFLED_AND_CUT, shuffle_method="table", burn_card="5H")
    open_coup(dealer, dealer_table, punter, {"banker": "40.00"})
    deal(dealer, dealer_table, "2S:player TH:banker 3S:player KH:banker 4D:banker")
    coup = live(dealer_table)
    assert coup.state == Coup.State.HELD
    return coup


# --- Finding 3: a coup whose result is recorded is never voided --------------------------------------


def test_a_resolved_coup_is_not_voided_from_the_admin(
    boss, dealer, dealer_table, punter, django_capture_on_commit_callbacks
):
    console(dealer, dealer_table, "shoe_start", **SHUFFLED_AND_CUT, shuffle_method="table", burn_card="5H")
    open_coup(dealer, dealer_table, punter, {"player": "40.00"})
    deal(dealer, dealer_table, "2S:player 9H:banker 3S:player KH:banker")  # banker 9: a natural, player loses
    coup = live(dealer_table)
    with django_capture_on_commit_callbacks(execute=False):  # settlement queued, not yet run
        console(dealer, dealer_table, "coup_resolve", round_id=coup.round_id)
    coup.refresh_from_db()
    assert (coup.state, coup.winner) == (Coup.State.RESOLVED, "banker")

    for form in ({"dealing_error": "card_exposed", "reason": "player complained"}, {"reason": "misdeal"}):
        response = action(boss, "void_coups", [coup], **form)
        assert messages_of(response)[-1:] == [
            f"Nothing was changed: coup {coup.round_id} is resolved: its result is recorded and cannot be voided; "
            "only a result correction can change it"
        ]
    coup.refresh_from_db()
    assert coup.state == Coup.State.RESOLVED and not coup.void_reason
    assert wallet_balance(user=punter) == D("60.00")
    assert Bet.objects.get(coup=coup).state == Bet.State.ACCEPTED
    assert not AuditLog.objects.filter(action="coup_voided").exists()

    coup_settle(coup_id=coup.pk)  # the queued settlement runs
    response = action(boss, "void_coups", [coup], dealing_error="card_exposed")
    assert "is settled: its result is recorded" in messages_of(response)[-1]
    assert wallet_balance(user=punter) == D("60.00")
    money_clean()


# --- Void reasons after the first card -----------------------------------------------------------------


def test_after_the_first_card_only_a_described_4_2_voids(boss, dealer, dealer_table, punter):
    console(dealer, dealer_table, "shoe_start", **SHUFFLED_AND_CUT, shuffle_method="table", burn_card="5H")
    coup = open_coup(dealer, dealer_table, punter, {"banker": "40.00"})
    deal(dealer, dealer_table, "2S:player")

    response = action(boss, "void_coups", [coup], reason="I felt like it")
    assert "it is void only when the dealing order cannot be restored (§4.2)" in messages_of(response)[0]
    page = action(boss, "void_coups", [coup], dealing_error="pit_boss_whim", reason="x")
    assert page.status_code == 200 and "Select a valid choice" in page.content.decode()
    for refused in ({"dealing_error": "shoe_or_card_defect", "reason": "torn 2S"}, {"dealing_error": "card_exposed"}):
        action(boss, "void_coups", [coup], **refused)
    coup.refresh_from_db()
    assert coup.state == Coup.State.DEALING and wallet_balance(user=punter) == D("60.00")
    with pytest.raises(TableError, match="not a listed dealing error"):
        lifecycle.coup_void(coup=coup, actor=boss.user, dealing_error="pit_boss_whim")
    with pytest.raises(TableError, match="describe why"):
        lifecycle.coup_void(coup=coup, actor=boss.user, dealing_error="order_not_restorable")

    form = action(boss, "void_coups", [coup]).content.decode()  # the confirmation page offers the list
    assert "Proper order cannot be restored (§4.2)" in form and "Cards replaced (§3.3 A): before the first card" in form
    assert not AuditLog.objects.filter(action="coup_voided").exists()
    assert ledger_check().ok  # the coup is live: settlement has nothing to check yet


def test_replacing_the_cards_mid_coup_is_refused(boss, dealer, dealer_table, punter):
    console(dealer, dealer_table, "shoe_start", **SHUFFLED_AND_CUT, shuffle_method="table", burn_card="5H")
    coup = open_coup(dealer, dealer_table, punter, {"banker": "40.00"})
    deal(dealer, dealer_table, "2S:player 3H:banker")
    data = {"action": "replace_cards", "_selected_action": [dealer_table.pk], "confirmed": "yes", "reason": "marked"}
    response = boss.post(reverse("admin:tables_table_changelist"), data)
    assert "has cards out" in messages_of(response)[0]
    coup.refresh_from_db()
    assert coup.state == Coup.State.DEALING and coup.shoe.state == Shoe.State.IN_PLAY
    assert wallet_balance(user=punter) == D("60.00")
    assert ledger_check().ok  # the coup is live: settlement has nothing to check yet


# --- A held coup: no bets, no cards, no settlement ------------------------------------------------------


def test_a_held_coup_takes_no_bets_from_the_table_page_or_the_partner_api(boss, auto_table, pit_boss, punter):
    shoe_start(shoe=shoe_prepare(table=auto_table, actor=pit_boss))
    coup = coup_open(table=auto_table, actor=pit_boss)
    bet_batch_place(user=punter, coup=coup, bets={"player": "10.00"})
    assert action(boss, "hold_coups", [coup], reason="surveillance: check the shuffle").status_code == 302
    coup.refresh_from_db()
    assert (coup.state, coup.held_from) == (Coup.State.HELD, Coup.State.BETTING)

    player_client = Client()
    player_client.force_login(punter)
    url = f"/tables/{auto_table.code}/bets/"
    response = player_client.post(url, json.dumps({"bets": {"player": "5"}}), content_type="application/json")
    assert response.status_code == 409 and response.json()["error"]["code"] == "betting_closed"
    for undo in ("undo", "remove"):
        answer = player_client.post(f"{url}{undo}/", "{}", content_type="application/json")
        assert answer.status_code == 409, undo
    partner = partner_make("acme")
    player_make(partner)
    answer = client_for(partner).post(
        "/api/v1/players/p-1/bets/",
        {"table": auto_table.code, "bets": {"banker": "5"}},
        format="json",
        HTTP_IDEMPOTENCY_KEY=uuid.uuid4().hex,
    )
    assert answer.status_code == 409 and answer.json()["error"]["code"] == "betting_closed"
    assert list(Bet.objects.values_list("stake", flat=True)) == [D("10.00")]
    assert wallet_balance(user=punter) == D("90.00")

    response = action(boss, "release_coups", [coup], reason="shuffle checked")
    assert response.status_code == 302
    coup.refresh_from_db()
    assert (coup.state, coup.held_from) == (Coup.State.BETTING, "")
    entries = AuditLog.objects.filter(object_type="Coup", object_id=str(coup.pk)).order_by("pk")
    assert [entry.action for entry in entries] == [
        "coup_held",
        "coup_released",
    ]


def test_a_held_coup_is_not_settled(held_third_card, punter):
    from casino.lifecycle import tasks
    from wagering.errors import SettlementRefused

    with pytest.raises(SettlementRefused):
        tasks.coup_settle_task(held_third_card.pk)
    with pytest.raises(TableError, match="not dealing"):
        lifecycle.coup_resolve(coup=held_third_card)
    held_third_card.refresh_from_db()
    assert held_third_card.state == Coup.State.HELD
    assert Bet.objects.get(coup=held_third_card).state == Bet.State.ACCEPTED
    assert wallet_balance(user=punter) == D("60.00")


def test_the_dealer_cannot_release_or_decide(held_third_card, dealer):
    for name in ("release_coups", "deal_held_card_in_this_coup", "keep_held_card_for_next_coup", "void_coups"):
        assert action(dealer, name, [held_third_card], reason="me", dealing_error="card_exposed").status_code == 403
    held_third_card.refresh_from_db()
    assert held_third_card.state == Coup.State.HELD


def test_a_coup_held_for_a_card_is_not_simply_released(boss, held_third_card):
    response = action(boss, "release_coups", [held_third_card], reason="carry on")
    assert "holds a card entered for the wrong hand: put it in order or void the coup" in messages_of(response)[0]
    assert Coup.objects.get(pk=held_third_card.pk).state == Coup.State.HELD


def test_the_admin_index_and_coup_list_show_held_coups(boss, held_third_card, dealer, dealer_table):
    for url in (reverse("admin:index"), reverse("admin:tables_coup_changelist")):
        page = boss.get(url).content.decode()
        assert "1 coup held for the pit&#x27;s decision" in page or "1 coup held for the pit's decision" in page
        assert held_third_card.round_id in page and "4D entered for the banker hand" in page
        assert "css/admin_alerts.css" in page
        alert = page.split('class="held-coups-alert"')[1].split("</div>")[0]
        assert "style=" not in alert
    console_page = dealer.get(reverse("console:table", kwargs={"code": dealer_table.code})).content.decode()
    assert "Held for the pit: dealing error: 4D entered for the banker hand" in console_page
    held_third_card.refresh_from_db()
    holds.held_card_deal_in_this_coup(coup=held_third_card, actor=boss.user)
    assert "held-coups-alert" not in boss.get(reverse("admin:index")).content.decode()


# --- The pit's decisions ------------------------------------------------------------------------------


def test_the_held_card_dealt_in_this_coup(
    boss, dealer, dealer_table, held_third_card, punter, django_capture_on_commit_callbacks
):
    response = action(boss, "deal_held_card_in_this_coup", [held_third_card], reason="§4.3: the player's third card")
    assert response.status_code == 302
    coup = Coup.objects.get(pk=held_third_card.pk)
    assert coup.state == Coup.State.DEALING
    fifth = coup.cards.get(position=4)
    assert (fifth.card, fifth.hand, fifth.entered_by.username) == ("4D", "player", "carla")
    held = HeldCard.objects.get()
    assert (held.outcome, held.dealt_card, held.decided_by) == (HeldCard.Outcome.DEALT, fifth, boss.user)
    assert fifth.shoe_position == held.shoe_position
    page = deal(dealer, dealer_table, "5C:banker")  # player 9, banker 0 draws on a 4
    assert "Both hands complete" in page
    coup = resolve(dealer, dealer_table, django_capture_on_commit_callbacks)
    assert (coup.state, coup.winner, coup.player_total, coup.banker_total) == ("settled", "player", 9, 5)
    assert wallet_balance(user=punter) == D("60.00")  # the banker bet lost: no refund by a "dealing error"
    assert not AuditLog.objects.filter(action="coup_voided").exists()
    money_clean()


@pytest.mark.parametrize("no_bet", [False, True])
def test_the_held_card_kept_for_the_next_coup(
    boss, dealer, dealer_table, held_third_card, punter, no_bet, django_capture_on_commit_callbacks
):
    form = {"reason": "§4.3: next coup", **({"no_bet": "on"} if no_bet else {})}
    assert action(boss, "keep_held_card_for_next_coup", [held_third_card], **form).status_code == 302
    assert Coup.objects.get(pk=held_third_card.pk).state == Coup.State.DEALING
    held = HeldCard.objects.get()
    assert held.outcome == HeldCard.Outcome.NEXT_COUP
    # This coup goes on with the next card out of the shoe: player 2+3+9 = 4, banker 0 draws on a 9.
    deal(dealer, dealer_table, "9C:player 6C:banker")
    first = resolve(dealer, dealer_table, django_capture_on_commit_callbacks)
    assert (first.state, first.winner, first.player_total, first.banker_total) == ("settled", "banker", 4, 6)
    assert wallet_balance(user=punter) == D("138.00")  # 40 on the banker: paid 38 after the 5% commission

    console(dealer, dealer_table, "coup_open")
    second = live(dealer_table)
    assert second.no_bet is no_bet
    if not no_bet:
        bet_batch_place(user=punter, coup=second, bets={"player": "20.00"})
    page = console(dealer, dealer_table, "coup_close_betting", round_id=second.round_id)
    assert "Next: Card 2 to the Banker" in page
    opening = second.cards.get()
    assert (opening.card, opening.hand, opening.position, opening.shoe_position) == (
        "4D",
        "player",
        0,
        held.shoe_position,
    )
    held.refresh_from_db()
    assert (held.outcome, held.dealt_card) == (HeldCard.Outcome.DEALT, opening)
    deal(dealer, dealer_table, "2H:banker 5S:player KS:banker")  # player 4+5 = 9, banker 2: natural
    second = resolve(dealer, dealer_table, django_capture_on_commit_callbacks)
    assert (second.winner, second.player_total) == ("player", 9)
    assert wallet_balance(user=punter) == (D("138.00") if no_bet else D("158.00"))
    assert DealtCard.objects.filter(card="4D").count() == 1
    money_clean()


def test_the_held_coup_voided_under_4_2_by_four_eyes(boss, dealer, dealer_table, held_third_card, punter):
    response = action(
        boss, "void_coups", [held_third_card], dealing_error="order_not_restorable", reason="cards mixed up"
    )
    assert response.status_code == 302
    assert Coup.objects.get(pk=held_third_card.pk).state == Coup.State.HELD  # its first cards were seen: a request
    manager = staff_client("flora", FLOOR_MANAGER)
    data = {"action": "approve_void_requests", "confirmed": "yes", "reason": "checked on video"}
    data["_selected_action"] = [CoupVoidRequest.objects.get(coup=held_third_card).pk]
    assert manager.post(reverse("admin:tables_coupvoidrequest_changelist"), data).status_code == 302
    coup = Coup.objects.get(pk=held_third_card.pk)
    assert (coup.state, coup.void_reason) == (
        Coup.State.VOID,
        "Proper order cannot be restored (§4.2): cards mixed up",
    )
    assert HeldCard.objects.get().outcome == HeldCard.Outcome.DISCARDED
    assert AuditLog.objects.filter(action="held_card_discarded", actor=manager.user).exists()
    assert wallet_balance(user=punter) == D("100.00")
    assert "Open a coup for betting" in dealer.get(reverse("console:table", kwargs={"code": "d1"})).content.decode()
    money_clean()


def test_a_card_kept_for_a_coup_that_never_comes_is_discarded_with_the_shoe(
    boss, dealer, dealer_table, held_third_card, django_capture_on_commit_callbacks
):
    action(boss, "keep_held_card_for_next_coup", [held_third_card], reason="next coup")
    deal(dealer, dealer_table, "9C:player 6C:banker")
    resolve(dealer, dealer_table, django_capture_on_commit_callbacks)
    shoe = Shoe.objects.get(table=dealer_table, state=Shoe.State.IN_PLAY)
    shoe_finish(shoe=shoe, actor=boss.user, discard=True, reason="end early")
    assert HeldCard.objects.get().outcome == HeldCard.Outcome.DISCARDED


def test_the_table_hears_of_a_hold_but_never_the_held_card(dealer, dealer_table, punter, monkeypatch):
    """The held card may open the next coup (§4.3): no viewer, anonymous ones included, may learn it."""
    sent = []
    monkeypatch.setattr(
        events,
        "_send_on_commit",
        lambda messages: sent.extend((group, event() if callable(event) else event) for group, event, _ in messages),
    )
    console(dealer, dealer_table, "shoe_start", **SHUFFLED_AND_CUT, shuffle_method="table", burn_card="5H")
    open_coup(dealer, dealer_table, punter, {"banker": "40.00"})
    deal(dealer, dealer_table, "2S:player TH:banker 3S:player KH:banker 4D:banker")
    held = [event for _, event in sent if event["type"] == "coup_held"]
    assert [event["data"]["reason"] for event in held] == ["dealing_error"]
    assert '"4D"' not in json.dumps([event for _, event in sent])  # quoted: a round id may hold "4D"
    assert "4D" in live(dealer_table).held_reason  # the pit sees it


def test_a_second_card_is_not_kept_for_the_next_coup(boss, dealer, dealer_table, held_third_card):
    holds.held_card_keep_for_next_coup(coup=held_third_card, actor=boss.user, no_bet=True)
    deal(dealer, dealer_table, "6C:banker")  # the player's third card, again for the wrong hand
    coup = live(dealer_table)
    assert coup.state == Coup.State.HELD
    with pytest.raises(TableError, match="already kept for the next coup"):
        holds.held_card_keep_for_next_coup(coup=coup, actor=boss.user, no_bet=True)
    assert list(HeldCard.objects.filter(outcome=HeldCard.Outcome.NEXT_COUP).values_list("card", flat=True)) == ["4D"]
    assert HeldCard.objects.get(card="6C").outcome == HeldCard.Outcome.PENDING
