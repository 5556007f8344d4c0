"""The pit-boss admin: actions behind a confirmation with a reason, audited; roles respected."""

from decimal import Decimal

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.messages import get_messages
from django.test import Client
from django.urls import reverse

from casino import lifecycle
from tables.coups import coup_open
from tables.limit_sets import DEFAULT_LIMITS
from tables.models import AuditLog, Coup, DealerSession, PersonalLimitMarker, Shoe, Table
from tables.roles import DEALER, PIT_BOSS, SURVEILLANCE, roles_ensure
from tables.selectors import table_currencies
from tables.shoes import shoe_finish, shoe_prepare, shoe_start
from tests.factories import staff_login
from wagering.placement import bet_batch_place
from wagering.selectors import wallet_balance
from wagering.wallets import wallet_deposit

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff_client(db):
    """A logged-in client for a new staff user in the given role (or a superuser)."""
    groups = roles_ensure()

    def login(username: str, role: str | None = None) -> Client:
        users = get_user_model().objects
        if role is None:
            user = users.create_superuser(username=username, password="x")
        else:
            user = users.create_user(username=username, password="x", is_staff=True)
            user.groups.add(groups[role])
        client = staff_login(Client(), user)
        client.user = user
        return client

    return login


@pytest.fixture
def boss(staff_client):
    return staff_client("floor-boss", PIT_BOSS)


@pytest.fixture
def live_coup(auto_table, pit_boss):
    shoe_start(shoe=shoe_prepare(table=auto_table, actor=pit_boss))
    return coup_open(table=auto_table, actor=pit_boss)


def changelist(model) -> str:
    return reverse(f"admin:tables_{model._meta.model_name}_changelist")


def run_action(client: Client, model, action: str, objects, **form) -> object:
    """Post an action from the changelist; with ``form`` data, confirm it on the confirmation page."""
    data = {"action": action, "_selected_action": [obj.pk for obj in objects]}
    data.update({"confirmed": "yes", **form} if form else {"index": "0"})
    return client.post(changelist(model), data)


def audit_entry(action: str) -> AuditLog:
    return AuditLog.objects.get(action=action)


def form_data(form) -> dict:
    """What a browser would post back for an unchanged (bound or unbound) form."""
    data = {}
    for field in form:
        value = field.value()
        if value is not None and value is not False:
            data[field.html_name] = "on" if value is True else value
    return data


def change_form_data(response, **changes) -> dict:
    """The admin change form as rendered, with its inlines, and ``changes`` applied."""
    data = form_data(response.context["adminform"].form)
    for inline in response.context["inline_admin_formsets"]:
        data.update(form_data(inline.formset.management_form))
        for form in inline.formset.forms:
            data.update(form_data(form))
    data.update(changes)
    return data


# --- Actions with a confirmation and a reason --------------------------------------------------


def test_voiding_a_coup_asks_for_a_reason_then_refunds_its_bets(boss, live_coup):
    player = get_user_model().objects.create_user(username="punter")
    wallet_deposit(user=player, amount="100.00", idempotency_key="test-punter")
    bet_batch_place(user=player, coup=live_coup, bets={"player": "10.00"})
    assert wallet_balance(user=player) == Decimal("90.00")

    page = run_action(boss, Coup, "void_coups", [live_coup])
    assert page.status_code == 200
    assert page.templates[0].name == "admin/tables/action_confirmation.html"
    assert live_coup.round_id in page.content.decode()

    refused = run_action(boss, Coup, "void_coups", [live_coup], reason="")
    assert refused.status_code == 200
    assert "Choose a dealing error or write a reason." in refused.content.decode()
    live_coup.refresh_from_db()
    assert live_coup.state == Coup.State.BETTING
    assert not AuditLog.objects.filter(action="coup_voided").exists()

    done = run_action(boss, Coup, "void_coups", [live_coup], reason="card exposed")
    assert done.status_code == 302
    live_coup.refresh_from_db()
    assert live_coup.state == Coup.State.VOID
    assert live_coup.void_reason == "card exposed"
    assert wallet_balance(user=player) == Decimal("100.00")
    entry = audit_entry("coup_voided")
    assert (entry.actor, entry.reason) == (boss.user, "card exposed")


def test_a_refused_action_changes_nothing_and_says_why(boss, live_coup, pit_boss):
    other = lifecycle.coup_void(coup=live_coup, actor=pit_boss, reason="first void")
    response = run_action(boss, Coup, "void_coups", [other], reason="again")
    messages = [str(m) for m in get_messages(response.wsgi_request)]
    assert messages == [f"Nothing was changed: coup {other.round_id} is void and cannot be voided"]
    assert AuditLog.objects.filter(action="coup_voided").count() == 1


def test_ordering_no_bet_coups(boss, auto_table):
    assert run_action(boss, Table, "order_no_bet_coups", [auto_table], count="2", reason="").status_code == 200
    auto_table.refresh_from_db()
    assert auto_table.no_bet_coups_ordered == 0

    response = run_action(boss, Table, "order_no_bet_coups", [auto_table], count="2", reason="§3.3 B after a misdeal")
    assert response.status_code == 302
    auto_table.refresh_from_db()
    assert auto_table.no_bet_coups_ordered == 2
    entry = audit_entry("no_bet_coups_ordered")
    assert (entry.actor, entry.reason, entry.after) == (boss.user, "§3.3 B after a misdeal", {"no_bet_coups": 2})


def test_replacing_the_cards_voids_the_coup_and_prepares_a_new_shoe(boss, live_coup):
    old_shoe = live_coup.shoe
    assert run_action(boss, Table, "replace_cards", [live_coup.table], reason="").status_code == 200
    assert Shoe.objects.get(pk=old_shoe.pk).state == Shoe.State.IN_PLAY

    response = run_action(boss, Table, "replace_cards", [live_coup.table], reason="marked card")
    assert response.status_code == 302
    live_coup.refresh_from_db()
    assert live_coup.state == Coup.State.VOID
    assert Shoe.objects.get(pk=old_shoe.pk).state == Shoe.State.DISCARDED
    assert live_coup.table.shoes.get(state=Shoe.State.PREPARED).number == old_shoe.number + 1
    entry = audit_entry("cards_replaced")
    assert (entry.actor, entry.reason) == (boss.user, "marked card")


def test_closing_and_opening_a_table(boss, auto_table):
    assert run_action(boss, Table, "close_tables", [auto_table], reason="").status_code == 200
    assert Table.objects.get(pk=auto_table.pk).is_open

    run_action(boss, Table, "close_tables", [auto_table], reason="end of the session")
    assert not Table.objects.get(pk=auto_table.pk).is_open
    run_action(boss, Table, "open_tables", [auto_table], reason="evening session")
    assert Table.objects.get(pk=auto_table.pk).is_open
    closed, opened = audit_entry("table_closed"), AuditLog.objects.filter(action="table_opened").latest("id")
    assert (closed.actor, closed.reason) == (boss.user, "end of the session")
    assert (opened.actor, opened.reason) == (boss.user, "evening session")


def test_logging_a_dealer_in_and_out(boss, staff_client, dealer_table):
    dealer = staff_client("carla", DEALER).user
    page = run_action(boss, Table, "log_dealer_in", [dealer_table])
    assert list(page.context["form"].fields["dealer"].queryset) == [dealer, boss.user]

    run_action(boss, Table, "log_dealer_in", [dealer_table], dealer=str(dealer.pk))
    session = DealerSession.objects.get(table=dealer_table, ended_at__isnull=True)
    assert session.dealer == dealer
    assert audit_entry("dealer_login").actor == boss.user

    run_action(boss, Table, "log_dealer_out", [dealer_table], confirmed="yes")
    session.refresh_from_db()
    assert session.ended_at is not None
    assert audit_entry("dealer_logout").actor == boss.user


def test_a_dealer_is_logged_in_at_one_table_at_a_time(boss, staff_client, auto_table, dealer_table):
    dealer = staff_client("carla", DEALER).user
    run_action(boss, Table, "log_dealer_in", [auto_table, dealer_table], dealer=str(dealer.pk))
    assert not DealerSession.objects.exists()


# --- Rules, limits and markers ---------------------------------------------------------------


def test_rules_and_limits_change_through_the_services_with_a_reason(boss, auto_table):
    url = reverse("admin:tables_table_change", args=[auto_table.pk])
    page = boss.get(url)
    assert "Changes take effect at the next coup" in page.content.decode()
    refused = boss.post(url, change_form_data(page, tie_pays="9"))
    assert refused.status_code == 200
    assert refused.context["adminform"].form.errors == {"reason": ["This field is required."]}
    assert Table.objects.get(pk=auto_table.pk).tie_pays == 8
    assert boss.post(url, change_form_data(page, tie_pays="9", reason="high-limit evening")).status_code == 302
    assert Table.objects.get(pk=auto_table.pk).tie_pays == 9

    limit_set = auto_table.limit_sets.get(currency="EUR")
    assert reverse("admin:tables_limitset_change", args=[limit_set.pk]) in page.content.decode()
    url = reverse("admin:tables_limitset_change", args=[limit_set.pk])
    page = boss.get(url)
    player_limit = limit_set.limits.get(bet_type="player")
    limit_field = f"limits-{list(limit_set.limits.all()).index(player_limit)}-maximum"
    refused = boss.post(url, change_form_data(page, max_differential="3000", **{limit_field: "2000.00"}))
    assert refused.status_code == 200 and "reason" in refused.context["adminform"].form.errors
    data = change_form_data(page, max_differential="3000", reason="high-limit evening", **{limit_field: "2000.00"})
    assert boss.post(url, data).status_code == 302
    player_limit.refresh_from_db()
    limit_set.refresh_from_db()
    assert (player_limit.maximum, limit_set.max_differential) == (Decimal("2000.00"), Decimal("3000.00"))
    rules, limit = audit_entry("rules_changed"), audit_entry("limit_changed")
    assert (rules.actor, rules.reason, rules.before["tie_pays"], rules.after["tie_pays"]) == (
        boss.user,
        "high-limit evening",
        8,
        9,
    )
    assert (limit.actor, limit.reason, limit.after["max"], limit.after["currency"]) == (
        boss.user,
        "high-limit evening",
        "2000.00",
        "EUR",
    )
    differential = audit_entry("limit_set_changed")
    assert (differential.before["max_differential"], differential.after["max_differential"]) == ("5000.00", "3000.00")


def test_a_pit_boss_adds_a_currency_to_a_table_with_its_own_limits(boss, auto_table):
    url = reverse("admin:tables_limitset_add")
    data = {"table": auto_table.pk, "currency": "USD", "max_differential": "6000"}
    assert boss.post(url, data).status_code == 200  # no reason
    assert boss.post(url, {**data, "currency": "JPY", "reason": "asia"}).status_code == 200  # no cents: refused
    assert boss.post(url, {**data, "currency": "EUR", "reason": "again"}).status_code == 200  # has EUR already
    assert list(auto_table.limit_sets.values_list("currency", flat=True)) == ["EUR"]

    assert boss.post(url, {**data, "reason": "american partner"}).status_code == 302
    usd = auto_table.limit_sets.get(currency="USD")
    assert usd.max_differential == Decimal("6000.00")
    assert set(usd.limits.values_list("bet_type", flat=True)) == set(DEFAULT_LIMITS)
    created = audit_entry("limit_set_created")
    assert (created.actor, created.reason, created.after) == (
        boss.user,
        "american partner",
        {"currency": "USD", "max_differential": "6000.00"},
    )
    assert table_currencies(table=auto_table) == ["EUR", "USD"]


def test_only_who_operates_tables_changes_their_limits(staff_client, auto_table):
    limit_set = auto_table.limit_sets.get()
    for role in (DEALER, SURVEILLANCE):
        client = staff_client(f"{role}-limits", role)
        add = client.post(
            reverse("admin:tables_limitset_add"),
            {"table": auto_table.pk, "currency": "USD", "max_differential": "1", "reason": "x"},
        )
        assert add.status_code == 403
        change = reverse("admin:tables_limitset_change", args=[limit_set.pk])
        assert client.post(change, {"max_differential": "1", "reason": "x"}).status_code in (302, 403)
    limit_set.refresh_from_db()
    assert limit_set.max_differential == Decimal("5000.00")
    assert auto_table.limit_sets.count() == 1


def test_rules_that_make_no_game_are_refused(boss, auto_table):
    url = reverse("admin:tables_table_change", args=[auto_table.pk])
    data = change_form_data(boss.get(url), decks="1", reason="short shoe")  # the cut card 52 from the bottom
    response = boss.post(url, data)
    assert "These rules do not make a game" in response.content.decode()
    assert Table.objects.get(pk=auto_table.pk).decks == 8
    assert not AuditLog.objects.filter(action="rules_changed").exists()


def test_granting_and_revoking_a_personal_limit_marker(boss, auto_table):
    player = get_user_model().objects.create_user(username="whale")
    data = {
        "table": auto_table.pk,
        "player": player.pk,
        "currency": settings.HOUSE_CURRENCY,
        "bet_types": ["player", "banker"],
        "minimum": "50",
        "maximum": "20000",
    }
    url = reverse("admin:tables_personallimitmarker_add")
    assert boss.post(url, data).status_code == 200  # no reason
    assert not PersonalLimitMarker.objects.exists()

    assert boss.post(url, {**data, "reason": "regular high roller"}).status_code == 302
    marker = PersonalLimitMarker.objects.get()
    assert (marker.player, marker.maximum, marker.granted_by) == (player, Decimal("20000.00"), boss.user)
    assert (marker.currency, marker.bet_types) == (settings.HOUSE_CURRENCY, ["player", "banker"])
    granted = audit_entry("limit_marker_granted")
    assert (granted.actor, granted.reason) == (boss.user, "regular high roller")

    run_action(boss, PersonalLimitMarker, "revoke_markers", [marker], reason="")
    marker.refresh_from_db()
    assert marker.revoked_at is None
    run_action(boss, PersonalLimitMarker, "revoke_markers", [marker], reason="left the casino")
    marker.refresh_from_db()
    assert marker.revoked_at is not None
    revoked = audit_entry("limit_marker_revoked")
    assert (revoked.actor, revoked.reason) == (boss.user, "left the casino")


@pytest.mark.parametrize("amount", ["1_000", "1e3", "١٠٠"])
def test_amounts_in_the_rules_and_limit_forms_are_written_in_ascii_digits(boss, auto_table, amount):
    limit_set = auto_table.limit_sets.get()
    url = reverse("admin:tables_limitset_change", args=[limit_set.pk])
    page = boss.get(url)
    limits = limit_set.limits.order_by("pk").values_list("minimum", "maximum", "table_maximum")
    before = list(limits)
    for field in ("max_differential", "limits-0-minimum", "limits-0-maximum", "limits-0-table_maximum"):
        refused = boss.post(url, change_form_data(page, reason="typo", **{field: amount}))
        assert refused.status_code == 200
        assert "Write the amount in digits, e.g. 25.50." in refused.content.decode()
    assert list(limits.all()) == before
    limit_set.refresh_from_db()
    assert limit_set.max_differential == Decimal("5000.00")
    assert not AuditLog.objects.filter(action__in=("limit_set_changed", "limit_changed")).exists()

    player = get_user_model().objects.create_user(username="whale")
    data = {
        "table": auto_table.pk,
        "player": player.pk,
        "currency": settings.HOUSE_CURRENCY,
        "bet_types": ["banker"],
        "reason": "regular high roller",
    }
    for field in ("minimum", "maximum"):
        marker = {"minimum": "50", "maximum": "20000", field: amount}
        refused = boss.post(reverse("admin:tables_personallimitmarker_add"), {**data, **marker})
        assert refused.status_code == 200
        assert refused.context["adminform"].form.errors == {field: ["Write the amount in digits, e.g. 25.50."]}
    assert not PersonalLimitMarker.objects.exists()


# --- Roles -------------------------------------------------------------------------------------


def test_a_dealer_cannot_void_a_coup(staff_client, live_coup):
    dealer = staff_client("carla", DEALER)
    page = dealer.get(changelist(Coup))
    assert page.status_code == 200
    assert "void_coups" not in page.content.decode()
    assert run_action(dealer, Coup, "void_coups", [live_coup]).status_code == 403
    assert run_action(dealer, Coup, "void_coups", [live_coup], reason="sneaky").status_code == 403
    live_coup.refresh_from_db()
    assert live_coup.state == Coup.State.BETTING


def test_surveillance_views_everything_and_changes_nothing(staff_client, live_coup):
    watcher = staff_client("eye", SURVEILLANCE)
    table = live_coup.table
    for model in (Table, Coup, Shoe, PersonalLimitMarker, DealerSession, AuditLog):
        page = watcher.get(changelist(model))
        assert page.status_code == 200, model
        assert page.context["action_form"] is None, model  # no action offered
    table_page = watcher.get(reverse("admin:tables_table_change", args=[table.pk]))
    assert table_page.status_code == 200
    assert 'name="_save"' not in table_page.content.decode()
    assert watcher.get(reverse("admin:tables_coup_change", args=[live_coup.pk])).status_code == 200

    assert watcher.post(reverse("admin:tables_table_change", args=[table.pk]), {"tie_pays": "9"}).status_code == 403
    assert run_action(watcher, Table, "close_tables", [table], reason="x").status_code == 403
    assert run_action(watcher, Coup, "void_coups", [live_coup], reason="x").status_code == 403
    assert watcher.get(reverse("admin:tables_personallimitmarker_add")).status_code == 403
    assert Table.objects.get(pk=table.pk).is_open
    assert Coup.objects.get(pk=live_coup.pk).state == Coup.State.BETTING


def test_nobody_edits_or_deletes_the_audit_log(staff_client, auto_table):
    root = staff_client("root")
    entry = AuditLog.objects.filter(table=auto_table).first()
    assert root.get(changelist(AuditLog)).status_code == 200
    assert root.get(reverse("admin:tables_auditlog_change", args=[entry.pk])).status_code == 200
    assert root.get(reverse("admin:tables_auditlog_add")).status_code == 403
    assert root.post(reverse("admin:tables_auditlog_change", args=[entry.pk]), {"reason": "edited"}).status_code == 403
    assert root.post(reverse("admin:tables_auditlog_delete", args=[entry.pk]), {"post": "yes"}).status_code == 403
    assert run_action(root, AuditLog, "delete_selected", [entry], post="yes").status_code == 403
    entry.refresh_from_db()
    assert entry.reason == ""


def test_the_card_order_of_a_shoe_in_play_is_not_shown(staff_client, auto_table, pit_boss):
    root = staff_client("root")
    shoe = shoe_start(shoe=shoe_prepare(table=auto_table, actor=pit_boss))
    unseen = [card.code for card in shoe.cards[shoe.position : shoe.position + 12]]
    url = reverse("admin:tables_shoe_change", args=[shoe.pk])
    for page in (root.get(url), root.get(changelist(Shoe))):
        assert page.status_code == 200
        assert " ".join(unseen) not in page.content.decode()
    assert "hidden until the shoe is finished or discarded" in root.get(url).content.decode()

    shoe_finish(shoe=shoe, actor=pit_boss)
    assert " ".join(unseen) in root.get(url).content.decode()
