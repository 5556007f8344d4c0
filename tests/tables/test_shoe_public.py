"""What players see of the shoe (issue 18, seed 000): the burn card shown and the cards it burned (§3.1.1), and
once the cut card is out the last coup (glossary, CUT CARD), told to the table once, from a physical or an RNG
shoe."""

from __future__ import annotations

import pytest
from django.utils import timezone

from casino.lifecycle.loop import table_step
from roadmaps.selectors import table_snapshot
from tables.coups import coup_open
from tables.errors import TableError
from tables.models import Coup, Shoe
from tables.selectors import shoe_public
from tables.services import table_create, table_open
from tables.shoes import shoe_cut_card_out
from tests.factories import physical_shoe_start

pytestmark = pytest.mark.django_db


@pytest.fixture
def sent(monkeypatch):
    events = []
    monkeypatch.setattr("tables.shoes.table_event_send", lambda **event: events.append(event))
    return events


def cut_card_events(sent: list[dict]) -> list[dict]:
    return [event["data"] for event in sent if event["event_type"] == "cut_card_out"]


def test_players_see_the_burn_card_and_the_cards_it_burned_seed_000_3_1_1(dealer_table, pit_boss):
    """§3.1.1: the first card is shown face up and as many cards as its value are burned face down, a face card
    counting ten."""
    shoe = physical_shoe_start(table=dealer_table, actor=pit_boss, burn_card="7H")
    assert shoe_public(shoe=shoe) == {"number": 1, "burn_shown": "7H", "burned": 7, "last_coup": None}
    assert table_snapshot(table=dealer_table)["shoe_info"]["burn_shown"] == "7H"
    shoe = physical_shoe_start(
        table=table_open(
            table=table_create(code="d9", name="D9", actor=pit_boss, dealing_mode="dealer"), actor=pit_boss
        ),
        actor=pit_boss,
        burn_card="KS",
    )
    assert shoe_public(shoe=shoe)["burned"] == 10  # a face card burns ten


def test_the_dealer_reporting_the_cut_card_tells_the_table_the_last_coup(dealer_table, pit_boss, sent):
    shoe = physical_shoe_start(table=dealer_table, actor=pit_boss, burn_card="5H")
    shoe = shoe_cut_card_out(shoe=shoe, actor=pit_boss)  # between coups: the next coup is the last
    assert cut_card_events(sent) == [{"shoe": 1, "last_coup": 1}]
    assert table_snapshot(table=dealer_table)["shoe_info"]["last_coup"] == 1


def test_the_coup_after_the_cut_card_is_the_last_and_none_follows_it(dealer_table, pit_boss, sent):
    """Glossary, CUT CARD: once it is dealt from the shoe, the cards are reshuffled when the next coup is
    completed. The snapshot the table page and the lobby read (``shoe.js``'s ``cutCardNotice``) has the coup in
    play numbered as the shoe's last coup, live: "Cut card out: this is the last coup"; no coup opens after it."""
    shoe = physical_shoe_start(table=dealer_table, actor=pit_boss, burn_card="5H")
    shoe_cut_card_out(shoe=shoe, actor=pit_boss)
    before = table_snapshot(table=dealer_table)
    assert before["coup"] is None and before["shoe_info"]["last_coup"] == 1  # "the next coup is the last"

    last = coup_open(table=dealer_table, actor=pit_boss)
    snapshot = table_snapshot(table=dealer_table)
    assert snapshot["coup"]["number"] == snapshot["shoe_info"]["last_coup"] == last.number == 1
    assert snapshot["coup"]["state"] in Coup.LIVE_STATES  # "this is the last coup"

    Coup.objects.filter(pk=last.pk).update(state=Coup.State.SETTLED)  # played out
    with pytest.raises(TableError) as refused:
        coup_open(table=dealer_table, actor=pit_boss)
    assert refused.value.code == "shoe_finished"


def test_an_rng_shoe_tells_the_table_once_when_its_cut_card_comes_out(pit_boss, sent):
    table = table_open(
        table=table_create(code="r1", name="R1", actor=pit_boss, decks=1, cut_card_from_bottom=16, betting_seconds=1),
        actor=pit_boss,
    )
    for _ in range(400):
        Coup.objects.filter(table=table, state=Coup.State.BETTING).update(betting_closes_at=timezone.now())
        table_step(table_id=table.pk)
        shoe = Shoe.objects.filter(table=table).first()
        if shoe is not None and shoe.state == Shoe.State.FINISHED:
            break
    assert shoe.state == Shoe.State.FINISHED
    assert cut_card_events(sent) == [{"shoe": 1, "last_coup": shoe.last_coup}]
    assert shoe.coups.count() == shoe.last_coup
