"""The automatic table loop and the table services, through a whole shoe."""

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from baccarat.cards import Card
from baccarat.coup import resolve
from casino import lifecycle
from casino.lifecycle.loop import StepKind, table_step
from tables import holds
from tables.coups import coup_open
from tables.errors import TableError
from tables.models import AuditLog, Coup, CoupVoidRequest, DealtCard, Shoe, Table, VoidReason
from tables.roles import FLOOR_MANAGER, PIT_BOSS, roles_ensure
from tables.services import dealer_login, no_bet_coups_order, table_close, table_create, table_open, table_rules_update
from tables.voids import coup_void_request_decide

pytestmark = pytest.mark.django_db(transaction=True)


def close_betting_now(table):
    """Stand-in for the betting window's seconds passing."""
    Coup.objects.filter(table=table, state=Coup.State.BETTING).update(betting_closes_at=timezone.now())


def step_until(table, predicate, limit=2_000):
    for _ in range(limit):
        if predicate():
            return
        close_betting_now(table)
        table_step(table_id=table.pk)
    raise AssertionError("the table never got there")


def cards_of(coup):
    return [Card.parse(c.card) for c in coup.cards.order_by("position")]


def test_a_whole_shoe_on_an_automatic_table(auto_table):
    step_until(auto_table, lambda: Shoe.objects.filter(table=auto_table, state="finished").exists())
    shoe = Shoe.objects.get(table=auto_table, number=1)
    coups = list(shoe.coups.order_by("number"))
    order = shoe.cards
    # Burn: the first card shown, its value (ten for a 10 or face) burned.
    assert shoe.burn_shown == order[0].code
    burned = shoe.reveal().burned_cards
    assert len(burned) == (order[0].value or 10)
    # Every card dealt once, in shoe order, each coup by the rules.
    dealt = DealtCard.objects.filter(shoe=shoe).order_by("shoe_position")
    positions = [d.shoe_position for d in dealt]
    assert positions == list(range(1 + len(burned), 1 + len(burned) + len(positions)))
    assert [d.card for d in dealt] == [c.code for c in order[positions[0] : positions[-1] + 1]]
    for coup in coups:
        result = resolve(cards_of(coup))
        assert (coup.player_total, coup.banker_total, coup.winner) == (
            result.player_total,
            result.banker_total,
            result.winner,
        )
        assert coup.state == Coup.State.SETTLED
    # The cut card rule: the shoe ended within two coups of the cut card (52 from the bottom).
    cut = shoe.cut_card_position
    assert cut == 416 - 52
    after_cut = [c for c in coups if c.cards.filter(shoe_position__gte=cut).exists()]
    assert 1 <= len(after_cut) <= 2 and after_cut[-1] == coups[-1]
    assert len(coups) == shoe.last_coup
    assert AuditLog.objects.filter(action="shoe_finished", object_id=str(shoe.pk)).exists()


def test_the_next_shoe_starts_after_the_cut_card(auto_table):
    step_until(auto_table, lambda: Coup.objects.filter(table=auto_table, shoe__number=2).exists())
    assert Shoe.objects.get(table=auto_table, number=2).state == Shoe.State.IN_PLAY
    assert list(AuditLog.objects.filter(action="shoe_started").values_list("object_id", flat=True).order_by("id")) == [
        str(pk) for pk in Shoe.objects.filter(table=auto_table).order_by("number").values_list("pk", flat=True)
    ]


def test_a_loop_restarted_mid_coup_finishes_it_without_dealing_twice(auto_table):
    step_until(auto_table, lambda: DealtCard.objects.filter(coup__table=auto_table).count() == 3)
    coup = Coup.objects.get(table=auto_table, state=Coup.State.DEALING)
    # A new loop knows nothing but the database; it carries on from the third card.
    step_until(auto_table, lambda: Coup.objects.get(pk=coup.pk).state == Coup.State.SETTLED)
    coup.refresh_from_db()
    assert resolve(cards_of(coup)).winner == coup.winner
    assert coup.cards.count() == len(set(coup.cards.values_list("shoe_position", flat=True)))


def test_three_no_bet_coups_instead_of_the_burn(pit_boss):
    table = table_create(code="nb", name="No-bet burn", actor=pit_boss, burn_procedure="no_bet_coups")
    table_open(table=table, actor=pit_boss)
    step_until(table, lambda: Coup.objects.filter(table=table).count() == 4)
    coups = list(Coup.objects.filter(table=table).order_by("number"))
    assert [c.no_bet for c in coups] == [True, True, True, False]
    shoe = coups[0].shoe
    assert shoe.burn_shown == "" and DealtCard.objects.filter(shoe=shoe).order_by("shoe_position")[0].shoe_position == 0


def test_ordered_no_bet_coups_are_audited_and_taken(auto_table, pit_boss):
    no_bet_coups_order(table=auto_table, actor=pit_boss, count=2, reason="cards looked out of order")
    entry = AuditLog.objects.get(action="no_bet_coups_ordered")
    assert (entry.actor, entry.reason, entry.after) == (pit_boss, "cards looked out of order", {"no_bet_coups": 2})
    step_until(auto_table, lambda: Coup.objects.filter(table=auto_table).count() == 3)
    assert [c.no_bet for c in Coup.objects.filter(table=auto_table).order_by("number")] == [True, True, False]


def test_rule_changes_take_effect_at_the_next_coup(auto_table, pit_boss):
    step_until(auto_table, lambda: Coup.objects.filter(table=auto_table).exists())
    coup = Coup.objects.get(table=auto_table)
    table_rules_update(table=auto_table, actor=pit_boss, changes={"tie_pays": 9}, reason="promotion")
    coup.refresh_from_db()
    assert coup.rules["tie_pays"] == 8
    assert AuditLog.objects.get(action="rules_changed").after["tie_pays"] == 9


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"decks": 9}, "decks"),
        ({"tie_pays": 7}, "tie"),
        ({"cut_card_from_bottom": 2}, "cut card"),
        ({"side_bets": ["dragon"]}, "side bets"),
        ({"max_differential": "5000"}, "unknown rule"),  # a currency's: tables.limit_sets
        ({"secret": 1}, "unknown rule"),
    ],
)
def test_bad_rule_changes_change_nothing(auto_table, pit_boss, changes, message):
    before = AuditLog.objects.count()
    with pytest.raises(TableError, match=message):
        table_rules_update(table=auto_table, actor=pit_boss, changes=changes, reason="x")
    auto_table.refresh_from_db()
    assert (auto_table.decks, auto_table.tie_pays, auto_table.cut_card_from_bottom) == (8, 8, 52)
    assert AuditLog.objects.count() == before


def test_a_closed_table_opens_no_coup(auto_table, pit_boss):
    table_close(table=auto_table, actor=pit_boss, reason="end of shift")
    for _ in range(5):
        table_step(table_id=auto_table.pk)
    assert not Coup.objects.filter(table=auto_table).exists()
    with pytest.raises(TableError, match="closed"):
        coup_open(table=auto_table)


def test_replacing_the_cards_voids_the_live_coup_and_prepares_a_new_shoe(auto_table, pit_boss):
    step_until(auto_table, lambda: Coup.objects.filter(table=auto_table).exists())
    coup = Coup.objects.get(table=auto_table)
    new = lifecycle.shoe_replace(table=auto_table, actor=pit_boss, reason="damaged card")
    coup.refresh_from_db()
    assert coup.state == Coup.State.VOID and "damaged card" in coup.void_reason
    assert coup.shoe.state == Shoe.State.DISCARDED
    assert new.state == Shoe.State.PREPARED and new.number == 2
    assert AuditLog.objects.filter(action="cards_replaced", reason="damaged card").exists()
    table_step(table_id=auto_table.pk)
    new.refresh_from_db()
    assert new.state == Shoe.State.IN_PLAY


def test_the_loop_leaves_a_held_coup_alone_and_carries_on_once_released(auto_table, pit_boss):
    step_until(auto_table, lambda: DealtCard.objects.filter(coup__table=auto_table).count() == 2)
    coup = Coup.objects.get(table=auto_table)
    holds.coup_hold(coup=coup, actor=pit_boss, reason="surveillance: camera down")
    shoe_position = Shoe.objects.get(pk=coup.shoe_id).position
    for _ in range(5):
        assert table_step(table_id=auto_table.pk).kind is StepKind.HELD
    coup.refresh_from_db()
    assert (coup.state, coup.cards.count()) == (Coup.State.HELD, 2)
    assert Shoe.objects.get(pk=coup.shoe_id).position == shoe_position
    assert Coup.objects.filter(table=auto_table).count() == 1

    holds.coup_release(coup=coup, actor=pit_boss, reason="camera back")
    step_until(auto_table, lambda: Coup.objects.get(pk=coup.pk).state == Coup.State.SETTLED)
    step_until(auto_table, lambda: Coup.objects.filter(table=auto_table).count() == 2)


def staff_of(role: str, username: str):
    user = get_user_model().objects.create_user(username=username, is_staff=True)
    user.groups.add(roles_ensure()[role])
    return user


def test_a_held_coup_with_cards_out_is_not_voided_for_a_card_exposed(auto_table):
    step_until(auto_table, lambda: DealtCard.objects.filter(coup__table=auto_table).exists())
    coup = Coup.objects.get(table=auto_table)
    boss = staff_of(PIT_BOSS, "pb")
    holds.coup_hold(coup=coup, actor=boss, reason="card exposed on camera")
    with pytest.raises(TableError) as refused:
        lifecycle.coup_void(coup=coup, actor=boss, dealing_error=VoidReason.CARD_EXPOSED)
    assert refused.value.code == "cards_out"
    holds.coup_release(coup=coup, actor=boss, reason="§5.1.8: the coup is finished as normal")
    step_until(auto_table, lambda: Coup.objects.get(pk=coup.pk).state == Coup.State.SETTLED)


def test_the_loop_waits_while_a_void_is_requested_and_finishes_the_coup_once_rejected(auto_table):
    step_until(auto_table, lambda: DealtCard.objects.filter(coup__table=auto_table).count() == 2)
    coup = Coup.objects.get(table=auto_table)
    boss, manager = staff_of(PIT_BOSS, "pb"), staff_of(FLOOR_MANAGER, "fm")
    void_request = lifecycle.coup_void(
        coup=coup, actor=boss, dealing_error=VoidReason.ORDER_NOT_RESTORABLE, reason="the RNG feed stuttered"
    )
    assert isinstance(void_request, CoupVoidRequest)
    for _ in range(5):
        assert table_step(table_id=auto_table.pk).kind is StepKind.HELD
    coup.refresh_from_db()
    assert (coup.state, coup.cards.count()) == (Coup.State.HELD, 2)
    coup_void_request_decide(void_request=void_request, actor=manager, approve=False, reason="the log is complete")
    step_until(auto_table, lambda: Coup.objects.get(pk=coup.pk).state == Coup.State.SETTLED)


def test_the_loop_carries_on_after_a_requested_void_is_approved(auto_table):
    step_until(auto_table, lambda: DealtCard.objects.filter(coup__table=auto_table).exists())
    coup = Coup.objects.get(table=auto_table)
    boss, manager = staff_of(PIT_BOSS, "pb"), staff_of(FLOOR_MANAGER, "fm")
    void_request = lifecycle.coup_void(
        coup=coup, actor=boss, dealing_error=VoidReason.ORDER_NOT_RESTORABLE, reason="the RNG feed stuttered"
    )
    assert table_step(table_id=auto_table.pk).kind is StepKind.HELD
    lifecycle.coup_void_request_approve(void_request=void_request, actor=manager)
    step_until(auto_table, lambda: Coup.objects.filter(table=auto_table, state=Coup.State.SETTLED).exists())
    assert Coup.objects.get(pk=coup.pk).void_reason == "Proper order cannot be restored (§4.2): the RNG feed stuttered"


def test_dealer_rotation_is_recorded(auto_table, pit_boss, django_user_model):
    ann = django_user_model.objects.create_user(username="ann")
    ben = django_user_model.objects.create_user(username="ben")
    dealer_login(table=auto_table, dealer=ann, actor=pit_boss)
    dealer_login(table=auto_table, dealer=ben, actor=pit_boss)
    sessions = list(auto_table.dealer_sessions.order_by("started_at"))
    assert [(s.dealer, s.ended_at is None) for s in sessions] == [(ann, False), (ben, True)]
    step_until(auto_table, lambda: Coup.objects.filter(table=auto_table).exists())
    assert Coup.objects.get(table=auto_table).dealer == ben
    assert list(
        AuditLog.objects.filter(action__startswith="dealer").order_by("id").values_list("action", flat=True)
    ) == [
        "dealer_login",
        "dealer_logout",
        "dealer_login",
    ]


def test_the_dealing_mode_changes_only_between_shoes(auto_table, pit_boss):
    step_until(auto_table, lambda: Coup.objects.filter(table=auto_table).exists())
    with pytest.raises(TableError, match="between shoes"):
        table_rules_update(table=auto_table, actor=pit_boss, changes={"dealing_mode": "dealer"}, reason="x")


@pytest.mark.parametrize(("rules", "message"), [({"decks": 0}, "decks"), ({"colour": "red"}, "unknown rule")])
def test_a_table_with_bad_rules_is_not_created(pit_boss, rules, message):
    with pytest.raises(TableError, match=message):
        table_create(code="bad", name="Bad", actor=pit_boss, **rules)
    assert not Table.objects.filter(code="bad").exists()
