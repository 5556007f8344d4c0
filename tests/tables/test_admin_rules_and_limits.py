"""The pit-boss admin's forms for a table's rules, its limits and personal limit markers: through the
services, with a reason, audited; amounts in ASCII digits; only who operates tables changes limits."""

from decimal import Decimal

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.urls import reverse

from tables.limit_sets import DEFAULT_LIMITS
from tables.models import AuditLog, PersonalLimitMarker, Table
from tables.roles import DEALER, SURVEILLANCE
from tables.selectors import table_currencies
from tests.factories import staff_client
from tests.tables.conftest import audit_entry, run_action

pytestmark = pytest.mark.django_db


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


def test_only_who_operates_tables_changes_their_limits(auto_table):
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


def test_the_patrons_hold_the_shoe_only_at_a_dealer_table(boss, auto_table, dealer_table):
    """Seed 002's big table is a rule like the tie's payout: an RNG table, with no seats, is refused it."""
    url = reverse("admin:tables_table_change", args=[auto_table.pk])
    response = boss.post(url, change_form_data(boss.get(url), patrons_hold_shoe="on", reason="big table"))
    assert "The patrons hold the shoe only at a dealer table" in response.content.decode()
    assert Table.objects.get(pk=auto_table.pk).patrons_hold_shoe is False
    url = reverse("admin:tables_table_change", args=[dealer_table.pk])
    page = boss.get(url)
    assert "the patrons hold the shoe in turn (seed 002)" in page.content.decode()
    assert boss.post(url, change_form_data(page, patrons_hold_shoe="on", reason="big table")).status_code == 302
    table = Table.objects.get(pk=dealer_table.pk)
    assert (table.patrons_hold_shoe, table.tie_shoe_stays) == (True, True)
    assert audit_entry("rules_changed").after["patrons_hold_shoe"] is True


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
