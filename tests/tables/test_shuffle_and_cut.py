"""Seed 000 §2.1.1-§2.1.3: a physical shoe's shuffle record (checks, who, CCTV, seal), its cut (who, where),
and the pit boss cancelling a cut or the whole shuffle before the shoe's first coup."""

import pytest
from django.test import Client

from tables.coups import coup_open
from tables.errors import TableError
from tables.models import AuditLog, Shoe
from tables.roles import DEALER, SURVEILLANCE
from tables.seating import patron_seat
from tables.services import table_rules_update
from tables.shoes import shoe_prepare, shoe_start
from tables.shuffles import ShuffleRecord, shoe_cut, shoe_cut_cancel, shoe_shuffle_cancel
from tests.casino.test_console import step, url
from tests.factories import SEALED_SHUFFLE, SHUFFLED_AND_CUT, physical_shoe_start, staff_client
from tests.tables.conftest import run_action

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.casino.test_console")]

CHECKED = ShuffleRecord(decks_complete=True, no_marks=True, no_damage=True)


def shoes_and_audit(table) -> tuple:
    return list(table.shoes.values_list("state", "cut_cards")), AuditLog.objects.count()


# --- The console: the happy path and every refusal -------------------------------------------------------


def test_a_table_shuffle_recorded_cut_and_started_at_the_console(dealer, dealer_table):
    """Seed 000 §2.1.2, §2.1.3: the dealer confirms the checks, cuts 200 cards from the top, burns."""
    page = step(dealer, dealer_table, "shoe_start", **SHUFFLED_AND_CUT, shuffle_method="table", burn_card="5H")
    assert "Shoe 1 in play. 5H shown, 5 cards burned." in page
    shoe = dealer_table.shoes.get()
    record = (shoe.decks_complete, shoe.no_marks, shoe.no_damage, shoe.seal_intact, shoe.cctv_reference)
    assert record == (True, True, True, None, "")
    assert (shoe.prepared_by, shoe.cut_cards, shoe.cut_by_seat) == (dealer.user, 200, None)
    cut = AuditLog.objects.get(action="shoe_cut")
    assert (cut.actor, cut.after["cards_from_top"], cut.after["by"]) == (dealer.user, 200, "dealer")


def test_a_sealed_shuffle_with_its_seal_cctv_reference_and_who_shuffled_it(dealer, dealer_table):
    """Seed 000 §2.1.1: a preliminary shuffle is done "in a specially designated zone", filmed, and its seal
    arrives undamaged: the dealer who records it at the table names who shuffled it, audited with the record."""
    sealed = {**SHUFFLED_AND_CUT, **SEALED_SHUFFLE, "shuffle_method": "preliminary", "seal_number": "S-9"}
    step(dealer, dealer_table, "shoe_start", **sealed, burn_card="5H")
    shoe = dealer_table.shoes.get(state=Shoe.State.IN_PLAY)
    assert (shoe.seal_intact, shoe.cctv_reference) == (True, "CAM-2 preparation room")
    assert (shoe.shuffled_by, shoe.prepared_by) == ("J. Moreau", dealer.user)
    prepared = AuditLog.objects.get(action="shoe_prepared")
    assert (prepared.actor, prepared.after["shuffled_by"]) == (dealer.user, "J. Moreau")


def test_a_table_shuffle_is_the_recording_dealers_own(dealer, dealer_table):
    """Seed 000 §2.1.2: shuffled at the table by the dealer who records it (``prepared_by``): nobody to name."""
    step(dealer, dealer_table, "shoe_start", **SHUFFLED_AND_CUT, shuffle_method="table", burn_card="5H")
    shoe = dealer_table.shoes.get()
    assert (shoe.shuffled_by, shoe.prepared_by) == ("", dealer.user)
    assert AuditLog.objects.get(action="shoe_prepared").after["shuffled_by"] == ""


@pytest.mark.parametrize(
    ("changes", "why"),
    [
        ({"decks_complete": ""}, "Every deck complete"),
        ({"no_marks": ""}, "No marked card"),
        ({"no_damage": ""}, "No damaged card"),
        ({"cut_cards": ""}, "Cut: cards from the top"),
        ({"cut_cards": "5"}, "cut between 26 and 390 cards from the top"),
        ({"cut_cards": "400"}, "cut between 26 and 390 cards from the top"),
        ({"cut_cards": "-3"}, "Cut: cards from the top"),
        ({"cut_cards": "2e2"}, "Cut: cards from the top"),
        ({"cut_by_seat": "11"}, "Cut by the patron at seat"),
        ({"cut_by_seat": "4"}, "nobody is seated at seat 4 to cut"),
        ({"seal_intact": "on"}, "only a sealed preliminary shuffle has a seal to check"),
        ({"cctv_reference": "x" * 61}, "CCTV reference"),
        ({"shuffle_method": "preliminary", "seal_number": "S-1"}, "recorded by the CCTV service"),
        (
            {"shuffle_method": "preliminary", "seal_number": "S-1", "cctv_reference": "CAM-2"},
            "only if its seal arrived undamaged",
        ),
        (
            {**SEALED_SHUFFLE, "shuffle_method": "preliminary", "seal_number": "S-1", "shuffled_by": "   "},
            "done in the preparation zone (seed 000 §2.1.1): name who shuffled it",
        ),
        ({"shuffled_by": "J. Moreau"}, "a table shuffle is the recording dealer&#x27;s own"),
        (
            {**SEALED_SHUFFLE, "shuffle_method": "preliminary", "seal_number": "S-1", "shuffled_by": "x" * 81},
            "Shuffled by: Ensure this value has at most 80 characters",
        ),
    ],
)
def test_a_shoe_whose_shuffle_or_cut_is_wrong_does_not_start(dealer, dealer_table, changes, why):
    """Seed 000 §2.1: every check confirmed, a sane cut by the dealer or a seated patron, and for a sealed
    shuffle its CCTV reference and an intact seal; else nothing is prepared, cut or burned."""
    before = shoes_and_audit(dealer_table)
    form = {**SHUFFLED_AND_CUT, "shuffle_method": "table", "burn_card": "5H"} | changes
    page = step(dealer, dealer_table, "shoe_start", **{key: value for key, value in form.items() if value != ""})
    assert why in page
    assert shoes_and_audit(dealer_table) == before


def test_a_seated_patron_cuts(dealer, dealer_table, pit_boss):
    """Seed 000 §2.1.3: the cut by a named seat, when a patron sits there."""
    patron_seat(table=dealer_table, seat_number=4, guest_name="lady in red", actor=pit_boss)
    step(
        dealer, dealer_table, "shoe_start", **SHUFFLED_AND_CUT, cut_by_seat="4", shuffle_method="table", burn_card="5H"
    )
    assert dealer_table.shoes.get().cut_by_seat == 4


def test_the_service_refuses_a_shoe_without_its_record_or_cut(dealer_table, pit_boss):
    """Seed 000 §2.1: a physical shoe without its checks, or not cut, does not start."""
    bare = shoe_prepare(table=dealer_table, actor=pit_boss)
    with pytest.raises(TableError) as refused:
        shoe_start(shoe=bare, actor=pit_boss, burn_card="5H")
    assert refused.value.code == "shuffle_not_recorded"
    uncut = shoe_prepare(table=dealer_table, actor=pit_boss, shuffle=CHECKED)
    with pytest.raises(TableError) as refused:
        shoe_start(shoe=uncut, actor=pit_boss, burn_card="5H")
    assert refused.value.code == "not_cut"
    with pytest.raises(TableError) as refused:
        shoe_prepare(table=dealer_table, actor=pit_boss, shuffle=ShuffleRecord(True, "yes", True))
    assert refused.value.code == "shuffle_record_invalid"
    sealed_by_nobody = ShuffleRecord(True, True, True, cctv_reference="CAM-2", seal_intact=True)
    with pytest.raises(TableError, match="name who shuffled it"):
        shoe_prepare(
            table=dealer_table,
            actor=pit_boss,
            shuffle_method="preliminary",
            seal_number="S-1",
            shuffle=sealed_by_nobody,
        )
    shoe_cut(shoe=uncut, actor=pit_boss, cards_from_top=100)
    with pytest.raises(TableError) as refused:
        shoe_cut(shoe=uncut, actor=pit_boss, cards_from_top=120)
    assert refused.value.code == "already_cut"


# --- Cancelling a cut or the shuffle (the pit boss, before the first coup) ----------------------------------


@pytest.fixture
def shoe_in_play(dealer_table, pit_boss):
    return physical_shoe_start(table=dealer_table, actor=pit_boss, burn_card="5H")


def test_a_cancelled_cut_sends_the_shoe_back_to_be_cut_and_burned_again(dealer, dealer_table, shoe_in_play, pit_boss):
    """Seed 000 §2.1.3: a cut against the SOP cancelled: the shoe is prepared again, its shuffle kept; the console
    cuts and starts it."""
    shoe_cut_cancel(shoe=shoe_in_play, actor=pit_boss, reason="cut card shown to the players")
    shoe = Shoe.objects.get(pk=shoe_in_play.pk)
    assert (shoe.state, shoe.cut_cards, shoe.burn_shown, shoe.position, shoe.decks_complete) == (
        Shoe.State.PREPARED, None, "", 0, True,
    )  # fmt: skip
    entry = AuditLog.objects.get(action="shoe_cut_cancelled")
    assert (entry.actor, entry.reason, entry.before["cards_from_top"]) == (
        pit_boss,
        "cut card shown to the players",
        200,
    )

    page = step(dealer, dealer_table, "shoe_cut_start", cut_cards="150", burn_card="KD")
    assert f"Shoe {shoe.number} in play. KD shown, 10 cards burned." in page
    shoe.refresh_from_db()
    assert (shoe.state, shoe.cut_cards) == (Shoe.State.IN_PLAY, 150)


def test_a_cancelled_shuffle_discards_the_shoe(dealer, dealer_table, shoe_in_play, pit_boss):
    """Seed 000 §2.1.3: the whole shuffle cancelled: the shoe is discarded, the console prepares a new one."""
    shoe_shuffle_cancel(shoe=shoe_in_play, actor=pit_boss, reason="a deck short")
    assert Shoe.objects.get(pk=shoe_in_play.pk).state == Shoe.State.DISCARDED
    assert AuditLog.objects.get(action="shuffle_cancelled").reason == "a deck short"
    assert "Prepare and start the shoe" in dealer.get(url(dealer_table)).content.decode()


def test_no_bet_coups_ordered_by_the_start_are_taken_back(dealer_table, pit_boss):
    """Seed 000 §2.1.3, §3.1.2: a table burning by three no-bet coups does not owe six after a cancelled cut."""
    table_rules_update(table=dealer_table, actor=pit_boss, changes={"burn_procedure": "no_bet_coups"}, reason="t")
    shoe = physical_shoe_start(table=dealer_table, actor=pit_boss, burn_card=None)
    shoe_cut_cancel(shoe=shoe, actor=pit_boss, reason="again")
    dealer_table.refresh_from_db()
    assert dealer_table.no_bet_coups_ordered == 0


@pytest.mark.parametrize("cancel", [shoe_cut_cancel, shoe_shuffle_cancel])
def test_too_late_once_a_coup_was_opened_and_a_reason_is_required(dealer_table, shoe_in_play, pit_boss, cancel):
    """Seed 000 §2.1.3: only before the shoe's first coup, and always with a reason; else nothing changes."""
    with pytest.raises(TableError) as refused:
        cancel(shoe=shoe_in_play, actor=pit_boss, reason="  ")
    assert refused.value.code == "reason_required"
    coup_open(table=dealer_table, actor=pit_boss)
    before = shoes_and_audit(dealer_table)
    with pytest.raises(TableError) as refused:
        cancel(shoe=shoe_in_play, actor=pit_boss, reason="late")
    assert refused.value.code == "coup_dealt"
    assert shoes_and_audit(dealer_table) == before


def test_an_rng_shoe_is_not_cut_by_hand(auto_table, pit_boss):
    """Seed 000 §2.1: an RNG shoe has no physical shuffle or cut to cancel."""
    shoe = shoe_start(shoe=shoe_prepare(table=auto_table, actor=pit_boss))
    with pytest.raises(TableError) as refused:
        shoe_shuffle_cancel(shoe=shoe, actor=pit_boss, reason="x")
    assert refused.value.code == "not_a_physical_shoe"


def test_the_pit_boss_cancels_in_the_admin(shoe_in_play):
    """Seed 000 §2.1.3: the shoe's admin page has both cancellations, behind a reason."""
    boss = staff_client("floor-boss", "Pit boss")
    assert run_action(boss, Shoe, "cancel_cut", [shoe_in_play], reason="").status_code == 200
    assert Shoe.objects.get(pk=shoe_in_play.pk).state == Shoe.State.IN_PLAY
    assert run_action(boss, Shoe, "cancel_shuffle", [shoe_in_play], reason="marked card").status_code == 302
    assert Shoe.objects.get(pk=shoe_in_play.pk).state == Shoe.State.DISCARDED


@pytest.mark.parametrize("role", [DEALER, SURVEILLANCE])
@pytest.mark.parametrize("action", ["cancel_cut", "cancel_shuffle"])
def test_a_dealer_or_surveillance_cannot_cancel(shoe_in_play, role, action):
    """Seed 000 §2.1.3 (attacker): the dealer at the table or surveillance cannot cancel a cut or a shuffle."""
    client = staff_client("someone", role)
    assert run_action(client, Shoe, action, [shoe_in_play], reason="mine").status_code == 403
    assert Shoe.objects.get(pk=shoe_in_play.pk).state == Shoe.State.IN_PLAY


def test_a_player_cannot_cancel(shoe_in_play, django_user_model):
    """Seed 000 §2.1.3 (attacker): a player is sent to the staff sign-in."""
    client = Client()
    client.force_login(django_user_model.objects.create_user(username="punter"))
    response = run_action(client, Shoe, "cancel_shuffle", [shoe_in_play], reason="mine")
    assert response.status_code == 302 and "/login/" in response["Location"]
    assert Shoe.objects.get(pk=shoe_in_play.pk).state == Shoe.State.IN_PLAY
