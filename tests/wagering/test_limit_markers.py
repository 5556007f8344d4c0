"""Personal limit markers per bet type and currency (seed 000 glossary, "PERSONAL LIMIT MARKER"; §6.1.3): a
marker's limits replace the table's only for the bet types it names, in its currency; the player holding one
sees it on the table page, nobody else does, and only a pit boss grants or revokes one."""

from datetime import timedelta
from decimal import Decimal
from importlib import import_module

import pytest
from django.apps import apps
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from partners.wallet_settings import partner_wallet_set
from tables.errors import TableError
from tables.limit_sets import bet_limit_set, limit_set_create
from tables.models import AuditLog, PersonalLimitMarker
from tables.roles import DEALER, PIT_BOSS, SURVEILLANCE, roles_ensure
from tables.services import limit_marker_grant, limit_marker_revoke
from tests.factories import CoupFactory, TableFactory, UserFactory, staff_login
from tests.partners.conftest import partner_make, player_make
from tests.wagering.conftest import fund, rejected
from wagering.errors import BetRejected
from wagering.placement import bet_batch_place
from wagering.placement_together import PlacementAsked, bets_place_together
from wagering.selectors import personal_limit_markers

D = Decimal
HOUSE = settings.HOUSE_CURRENCY
MARKERS_MIGRATION = import_module("tables.migrations.0013_limit_markers_per_bet_type_and_currency")


@pytest.fixture
def banker_to_3000(table, player, pit_boss):
    """A marker raising Banker's maximum to 3,000 (the table's: 1,000), and its minimum to 100."""
    return limit_marker_grant(
        table=table, player=player, bet_types=["banker"], currency=HOUSE, minimum="100", maximum="3000",
        actor=pit_boss, reason="regular high roller",
    )  # fmt: skip


def placed_together(coup, player, bets: dict) -> object:
    stakes = {bet_type: D(amount) for bet_type, amount in bets.items()}
    [answer] = bets_place_together(
        coup=coup, asked=[PlacementAsked(user=player, stakes=stakes, action="bet_batch_placed")]
    )
    return answer


def placed_one_by_one(coup, player, bets: dict) -> object:
    try:
        return bet_batch_place(user=player, coup=coup, bets=bets)
    except BetRejected as refusal:
        return refusal


@pytest.mark.parametrize("place", [placed_one_by_one, placed_together], ids=["one_by_one", "set_wise"])
def test_a_banker_marker_lets_a_bigger_banker_bet_through_and_leaves_pairs_to_the_table(
    banker_to_3000, player, coup, place
):
    """Seed 000 glossary (personal limit marker) and §6.1.3: Banker follows the marker (2,500 over the table's
    1,000); a 5.00 pair bet keeps the table's pair limits, not the marker's minimum of 100 nor its maximum."""
    placed = place(coup, player, {"banker": "2500"})
    assert placed.own_totals == {"banker": D("2500.00")}
    pair = place(coup, player, {"player_pair": "5"})
    assert pair.own_totals == {"banker": D("2500.00"), "player_pair": D("5.00")}
    over = place(coup, player, {"banker_pair": "60"})
    assert isinstance(over, BetRejected)
    assert (over.code, over.details["limit"], over.details["maximum"]) == ("above_maximum", "table", "50.00")
    too_much = place(coup, player, {"banker": "501"})
    assert (too_much.code, too_much.details["limit"], too_much.details["maximum"]) == (
        "above_maximum",
        "personal limit",
        "3000.00",
    )


def test_without_the_marker_the_same_banker_bet_is_over_the_table_maximum(player, coup):
    """Seed 000 glossary: with no marker, the table's limit applies."""
    assert rejected(player, coup, {"banker": "2500"}).details["limit"] == "table"


def test_the_latest_marker_naming_a_bet_type_wins(banker_to_3000, player, coup, pit_boss):
    """Seed 000 glossary: a later grant for Banker and Player replaces the earlier one for Banker only."""
    limit_marker_grant(
        table=coup.table, player=player, bet_types=["player", "banker"], currency=HOUSE, minimum="10",
        maximum="2000", actor=pit_boss,
    )  # fmt: skip
    error = rejected(player, coup, {"banker": "2500"})
    assert (error.details["limit"], error.details["maximum"]) == ("personal limit", "2000.00")
    bet_batch_place(user=player, coup=coup, bets={"banker": "1500"})


# --- The marker's currency ------------------------------------------------------------------------------


@pytest.fixture
def euro_and_dollar_table(db):
    table = TableFactory()
    limit_set_create(table=table, actor=None, currency="USD", max_differential="5000")
    for bet_type in ("player", "banker"):
        bet_limit_set(table=table, actor=None, currency="USD", bet_type=bet_type, minimum="2", maximum="200")
    return table


@pytest.mark.parametrize("place", [placed_one_by_one, placed_together], ids=["one_by_one", "set_wise"])
def test_a_marker_in_one_currency_does_not_apply_to_bets_in_another(euro_and_dollar_table, pit_boss, place):
    """Seed 000 glossary, §6.1: a marker is in one of the table's currencies; a bet in another keeps that
    currency's table limits."""
    assert HOUSE != "USD"
    dollars = player_make(partner_wallet_set(partner=partner_make("yankee"), mode="transfer", currency="USD"))
    limit_marker_grant(
        table=euro_and_dollar_table, player=dollars.user, bet_types=["banker"], currency=HOUSE, minimum="1",
        maximum="3000", actor=pit_boss,
    )  # fmt: skip
    coup = CoupFactory(table=euro_and_dollar_table)
    refused = place(coup, dollars.user, {"banker": "250"})
    assert isinstance(refused, BetRejected)
    assert (refused.code, refused.details["limit"], refused.details["maximum"]) == ("above_maximum", "table", "200.00")

    limit_marker_grant(
        table=euro_and_dollar_table, player=dollars.user, bet_types=["banker"], currency="USD", minimum="1",
        maximum="300", actor=pit_boss,
    )  # fmt: skip
    assert place(coup, dollars.user, {"banker": "250"}).currency == "USD"


# --- Granting: every bad input refused, nothing written ------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "code"),
    [
        ({"bet_types": []}, "marker_bet_types_required"),
        ({"bet_types": "banker"}, "marker_bet_types_required"),
        ({"bet_types": None}, "marker_bet_types_required"),
        ({"bet_types": ["banker", "dragon"]}, "bet_type_not_offered"),
        ({"bet_types": ["either_pair"]}, "bet_type_not_offered"),  # a side bet this table does not offer
        ({"bet_types": [["banker"]]}, "bet_type_not_offered"),
        ({"currency": "USD"}, "marker_currency_not_offered"),  # the table has no USD limits
        ({"currency": "usd"}, "marker_currency_not_offered"),
        ({"currency": ""}, "marker_currency_not_offered"),
        ({"minimum": "3000", "maximum": "100"}, "maximum_below_minimum"),
        ({"minimum": "-5"}, None),
        ({"maximum": "1e3"}, None),
        ({"valid_until": timezone.now() - timedelta(days=1)}, "invalid_period"),
    ],
)
def test_a_bad_grant_is_refused_and_writes_nothing(table, player, pit_boss, fields, code):
    """Seed 000 glossary: a marker is granted only as the pit meant it; anything else changes nothing."""
    grant = {"bet_types": ["banker"], "currency": HOUSE, "minimum": "100", "maximum": "3000"} | fields
    with pytest.raises(TableError) as refused:
        limit_marker_grant(table=table, player=player, actor=pit_boss, **grant)
    assert code is None or refused.value.code == code
    assert not PersonalLimitMarker.objects.exists()
    assert not AuditLog.objects.filter(action="limit_marker_granted").exists()


def test_a_marker_names_its_currency_at_a_table_with_several(euro_and_dollar_table, player, pit_boss):
    """Seed 000 glossary: at a table with limits in EUR and USD the pit says which; with one, it is that one."""
    with pytest.raises(TableError) as refused:
        limit_marker_grant(table=euro_and_dollar_table, player=player, minimum="1", maximum="2000", actor=pit_boss)
    assert refused.value.code == "marker_currency_not_offered"
    marker = limit_marker_grant(table=TableFactory(), player=player, minimum="1", maximum="2000", actor=pit_boss)
    assert (marker.currency, marker.bet_types) == (HOUSE, ["player", "banker"])


def test_a_marker_is_granted_to_a_player_not_to_staff(table, pit_boss):
    """Seed 000 glossary: a marker is given to a customer."""
    with pytest.raises(TableError) as refused:
        limit_marker_grant(table=table, player=pit_boss, minimum="1", maximum="2000", actor=pit_boss)
    assert refused.value.code == "not_a_player"


def test_the_grant_is_audited_with_its_bet_types_and_currency(banker_to_3000, pit_boss):
    """Seed 000 glossary: the audit says what was granted."""
    entry = AuditLog.objects.get(action="limit_marker_granted")
    assert entry.actor == pit_boss
    assert entry.after | {"bet_types": ["banker"], "currency": HOUSE, "max": "3000.00"} == entry.after


# --- Shown to the player who holds one, and to nobody else ----------------------------------------------


def table_page(user, table) -> dict:
    client = Client()
    client.force_login(user)
    response = client.get(reverse("play:table", args=[table.code]))
    assert response.status_code == 200
    return response


def test_the_player_holding_a_marker_sees_their_limits_on_the_table_page(banker_to_3000, player, table):
    """Seed 000 glossary: the marker is the player's own: the Limits panel shows "Your limits" for Banker."""
    page = table_page(player, table)
    assert page.context["personal_limits"] == {"banker": {"min": "100.00", "max": "3000.00"}}
    assert '"banker": {"min": "100.00", "max": "3000.00"}' in page.content.decode()
    assert "Your limits" in page.content.decode()


def test_another_player_never_sees_your_marker(banker_to_3000, table):
    """Seed 000 glossary (attacker): another player's page carries no trace of the marker."""
    other = UserFactory()
    fund(other, "100.00")
    page = table_page(other, table)
    assert page.context["personal_limits"] == {}
    assert "3000.00" not in page.content.decode()


def test_a_revoked_marker_is_no_longer_shown_nor_applied(banker_to_3000, player, table, coup, pit_boss):
    """Seed 000 glossary: revoked, the table's limits apply again."""
    limit_marker_revoke(marker=banker_to_3000, actor=pit_boss, reason="left")
    assert table_page(player, table).context["personal_limits"] == {}
    assert rejected(player, coup, {"banker": "2500"}).details["limit"] == "table"


# --- Only a pit boss grants or revokes (attacker tests) ----------------------------------------------


def staff_in_role(username: str, role: str) -> Client:
    user = get_user_model().objects.create_user(username=username, password="x", is_staff=True)
    user.groups.add(roles_ensure()[role])
    return staff_login(Client(), user)


def grant_form(table, player) -> dict:
    return {
        "table": table.pk, "player": player.pk, "currency": HOUSE, "bet_types": ["banker"], "minimum": "1",
        "maximum": "99999", "reason": "me",
    }  # fmt: skip


@pytest.mark.parametrize("role", [DEALER, SURVEILLANCE])
def test_a_dealer_or_surveillance_cannot_grant_or_revoke_a_marker(banker_to_3000, table, player, role):
    """Seed 000 glossary: "on condition the request has been granted", by the pit; not by a dealer or by
    surveillance (read-only)."""
    client = staff_in_role("someone", role)
    assert client.post(reverse("admin:tables_personallimitmarker_add"), grant_form(table, player)).status_code == 403
    revoke = {"action": "revoke_markers", "_selected_action": [banker_to_3000.pk], "confirmed": "yes", "reason": "x"}
    response = client.post(reverse("admin:tables_personallimitmarker_changelist"), revoke)
    assert response.status_code == 403
    assert list(PersonalLimitMarker.objects.values_list("revoked_at", flat=True)) == [None]


def test_a_player_cannot_grant_themselves_a_marker(table, player):
    """Seed 000 glossary (attacker): a player posting the admin's form is sent to the staff sign-in."""
    client = Client()
    client.force_login(player)
    response = client.post(reverse("admin:tables_personallimitmarker_add"), grant_form(table, player))
    assert response.status_code == 302 and "/login/" in response["Location"]
    assert not PersonalLimitMarker.objects.exists()


def test_a_pit_boss_grants_one_for_a_bet_type_in_the_admin(table, player):
    """Seed 000 glossary: the admin's form names the bet types and the currency."""
    client = staff_in_role("floor-boss", PIT_BOSS)
    form = grant_form(table, player) | {"maximum": "3000", "bet_types": ["banker", "tie"]}
    assert client.post(reverse("admin:tables_personallimitmarker_add"), form).status_code == 302
    marker = PersonalLimitMarker.objects.get()
    assert (marker.bet_types, marker.currency, marker.maximum) == (["banker", "tie"], HOUSE, D("3000.00"))
    refused = client.post(reverse("admin:tables_personallimitmarker_add"), form | {"currency": "USD"})
    assert refused.status_code == 302  # the service's refusal, shown as a message
    assert PersonalLimitMarker.objects.count() == 1


# --- Markers granted before: the migration ----------------------------------------------------------------


def test_markers_granted_before_apply_to_player_and_banker_in_each_currency_of_the_table(euro_and_dollar_table):
    """Seed 000 glossary, §6.1.3: an old marker (every bet, any currency) becomes Player and Banker in the house
    currency, copied into the table's other currencies while valid; a revoked one is not copied."""
    player = UserFactory()
    old = {"table": euro_and_dollar_table, "player": player, "currency": "", "bet_types": [], "minimum": D("50")}
    valid = PersonalLimitMarker.objects.create(
        **old, maximum=D("9000"), valid_from=timezone.now(), reason="high roller"
    )
    revoked = PersonalLimitMarker.objects.create(
        **old, maximum=D("8000"), valid_from=timezone.now(), revoked_at=timezone.now()
    )
    MARKERS_MIGRATION.markers_per_currency(apps, None)

    rows = PersonalLimitMarker.objects.order_by("pk").values_list("currency", "bet_types", "maximum", "reason")
    assert list(rows.filter(pk__in=[valid.pk, revoked.pk])) == [
        (HOUSE, ["player", "banker"], D("9000.00"), "high roller"),
        (HOUSE, ["player", "banker"], D("8000.00"), ""),
    ]
    copies = rows.exclude(pk__in=[valid.pk, revoked.pk])
    assert list(copies) == [
        ("USD", ["player", "banker"], D("9000.00"), "high roller (copied into USD by migration 0013)")
    ]


def test_a_groups_markers_are_those_valid_now_at_the_table_for_its_players_in_their_order(db):
    """The group commit's read (one statement for any number of players): a marker expired, revoked, not yet
    valid, of another table or of a player not in the group is none of theirs."""
    table, elsewhere = TableFactory(), TableFactory()
    ann, bob, cat = UserFactory(), UserFactory(), UserFactory()
    now = timezone.now()

    def marker(player, table=table, *, since=-2, until=None, revoked=False, maximum="2000"):
        return PersonalLimitMarker.objects.create(
            table=table,
            player=player,
            currency=HOUSE,
            bet_types=["banker"],
            minimum=D("10"),
            maximum=D(maximum),
            valid_from=now + timedelta(hours=since),
            valid_until=None if until is None else now + timedelta(hours=until),
            revoked_at=now if revoked else None,
        )

    later, earlier = marker(ann, since=-1, maximum="3000"), marker(ann, since=-3, until=1)
    marker(ann, until=-1)  # expired
    marker(ann, revoked=True)
    marker(ann, since=1)  # not yet valid
    marker(bob, table=elsewhere)
    marker(cat)  # not asked for
    held = personal_limit_markers(table_id=table.pk, user_ids={ann.pk, bob.pk}, at=now)
    assert list(held) == [ann.pk]
    assert [m.pk for m in held[ann.pk].markers] == [earlier.pk, later.pk]
    assert held[ann.pk].markers[1].maximum == D("3000.00") and held[ann.pk].markers[1].bet_types == ["banker"]
    assert personal_limit_markers(table_id=table.pk, user_ids=set(), at=now) == {}
