"""No staff screen is an oracle for a secret: a changelist filters only through the admin's own filters.

Django's admin applies any query-string lookup on a local field, so ``?card_order__regex=^KC`` would
list the shoe in play only when its next card is K♣. Every registered ModelAdmin refuses (400) any
lookup its ``list_filter`` and ``date_hierarchy`` do not send; none of them shows, searches, sorts or
filters on a shoe's order, burned cards or salt, a webhook secret or an API key hash.
"""

from __future__ import annotations

import re

import pytest
from django.contrib import admin
from django.contrib.admin.utils import get_fields_from_path
from django.core.exceptions import FieldDoesNotExist
from django.urls import reverse

from kernel.admin_base import StrictLookupsMixin
from kernel.encryption import decrypt
from partners.models import Partner, PartnerApiKey, WebhookEndpoint
from tables.models import Shoe
from tests.security.conftest import DEALER_ROLE, PIT_BOSS_ROLE, SUPERUSER, SURVEILLANCE_ROLE

pytestmark = pytest.mark.django_db

WATCHERS = (SURVEILLANCE_ROLE, PIT_BOSS_ROLE, SUPERUSER)
SECRET_TARGETS = (Shoe, WebhookEndpoint, Partner)
# The columns, and the names they had before they were encrypted (a lookup on either is refused).
SECRET_FIELDS = {
    Shoe: {"card_order_encrypted", "salt_encrypted", "burned_cards_encrypted"},
    WebhookEndpoint: {"secret_encrypted"},
    PartnerApiKey: {"secret_hash"},
    Partner: {"wallet_secret_encrypted"},
}
FORMER_NAMES = {Shoe: ("card_order", "salt", "burned_cards"), WebhookEndpoint: ("secret",)}
LOOKUPS = ("regex", "startswith", "exact", "contains")


def changelist(model) -> str:
    return reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")


def shoe_in_play(floor_state) -> Shoe:
    return Shoe.objects.get(table=floor_state.open_table, state=Shoe.State.IN_PLAY)


def finding_urls(floor_state) -> list[str]:
    """The finding's requests, each one listing its target only when the guess is right."""
    shoe = shoe_in_play(floor_state)
    next_card = shoe.cards[shoe.position].code
    skip = f"^(.{{3}}){{{shoe.position}}}{next_card}"
    return [
        f"{changelist(Shoe)}?state__exact=in_play&card_order__regex={skip}",
        f"{changelist(Shoe)}?state__exact=in_play&card_order_encrypted__regex=.",
        f"{changelist(Shoe)}?salt__startswith=",
        f"{changelist(Shoe)}?burned_cards__contains=",
        f"{reverse('admin:tables_coup_changelist')}?shoe__card_order__regex={skip}",
        f"{reverse('admin:tables_table_changelist')}?shoes__card_order__regex={skip}",
        f"{changelist(WebhookEndpoint)}?secret__startswith=whsec_",
        f"{changelist(WebhookEndpoint)}?secret_encrypted__startswith=",
        f"{reverse('admin:partners_webhookdelivery_changelist')}?endpoint__secret__startswith=whsec_",
        f"{reverse('admin:partners_partner_changelist')}?webhook_endpoints__secret__startswith=whsec_",
        f"{reverse('admin:partners_partnerapikey_changelist')}?secret_hash__startswith=",
        f"{reverse('admin:auth_user_changelist')}?password__startswith=",
    ]


@pytest.mark.parametrize("role", WATCHERS)
def test_the_findings_lookups_are_refused_and_list_nothing(client_as, floor_state, role):
    client = client_as(role)
    for url in finding_urls(floor_state):
        response = client.get(url)
        allowed = response.status_code != 403  # surveillance and the pit boss do not see the users
        assert response.status_code == (400 if allowed else 403), url
        assert str(shoe_in_play(floor_state)) not in response.content.decode(), url


def test_every_registered_admin_is_strict():
    lax = [
        type(model_admin).__name__
        for model_admin in admin.site._registry.values()
        if not isinstance(model_admin, StrictLookupsMixin)
    ]
    assert lax == []


def test_every_registered_admin_refuses_a_lookup_on_any_of_its_fields(client_as):
    client = client_as(SUPERUSER)
    for model in admin.site._registry:
        for field in model._meta.concrete_fields:
            for lookup in ("regex", "startswith", "contains"):  # none of Django's filters sends these
                url = f"{changelist(model)}?{field.name}__{lookup}=."
                assert client.get(url).status_code == 400, url


def filter_links(page) -> set[str]:
    """The page's links that filter (or drill into its date hierarchy): their query strings."""
    return {link.replace("&amp;", "&") for link in re.findall(r'href="(\?[^"]*__[^"]*)"', page.content.decode())}


def test_every_filter_and_date_link_an_admin_shows_still_filters(client_as, floor_state):
    """The strict check keeps what the admin offers: each link of its filters and date hierarchy works."""
    client = client_as(SUPERUSER)
    followed = 0
    for model in admin.site._registry:
        links = filter_links(client.get(changelist(model)))
        for link in links:
            page = client.get(changelist(model) + link)
            assert page.status_code == 200, (model, link)
            if "__year=" in link:  # a year of the date hierarchy: its months
                months = [deeper for deeper in filter_links(page) if "__month=" in deeper]
                assert all(client.get(changelist(model) + month).status_code == 200 for month in months)
                followed += len(months)
        followed += len(links)
    assert followed > 40


def paths_to(model, targets, depth: int = 2, prefix: str = "") -> list[tuple[str, type]]:
    """Every lookup path (forward and reverse relations, up to ``depth`` hops) from ``model`` to a target."""
    found = [(prefix, model)] if model in targets else []
    if depth == 0:
        return found
    for field in model._meta.get_fields():
        if field.is_relation and field.related_model is not None and field.related_model is not model:
            found += paths_to(field.related_model, targets, depth - 1, f"{prefix}{field.name}__")
    return found


@pytest.mark.parametrize("role", WATCHERS)
def test_no_changelist_filters_on_a_secret_field_directly_or_through_a_relation(client_as, role):
    client = client_as(role)
    tried = 0
    for model in admin.site._registry:
        url = changelist(model)
        if client.get(url).status_code == 403:
            continue  # a role that cannot view this admin
        for prefix, target in paths_to(model, SECRET_TARGETS):
            offered = admin.site._registry[model].filter_parameters(None)
            secret_names = [*SECRET_FIELDS[target], *FORMER_NAMES.get(target, ())]
            public_names = [field.name for field in target._meta.concrete_fields if field.name not in secret_names]
            for name, lookups in [(name, LOOKUPS) for name in secret_names] + [
                (name, ("regex",)) for name in public_names
            ]:
                for lookup in lookups:
                    parameter = f"{prefix}{name}__{lookup}"
                    response = client.get(url, {parameter: "whsec_" if lookup != "regex" else "."})
                    assert response.status_code == 400, (url, parameter)
                    tried += 1
            assert not [name for name in offered if any(secret in name for secret in secret_names)]
    assert tried > 500


def field_paths(model_admin, request, obj) -> set[tuple[type, str]]:
    """Every (model, field path) an admin displays, searches, sorts, filters on or puts in its forms."""
    paths = {field.lstrip("^=@") for field in model_admin.get_search_fields(request)}
    for item in model_admin.get_list_filter(request):
        if isinstance(item, (list, tuple)):
            paths.add(item[0])
        elif isinstance(item, str):
            paths.add(item)
    paths.update(item for item in model_admin.get_list_display(request) if isinstance(item, str))
    paths.update(field.lstrip("-") for field in model_admin.get_ordering(request) or ())
    paths.update(model_admin.get_readonly_fields(request, obj))
    paths.add(model_admin.date_hierarchy or "")
    for column in model_admin.get_list_display(request):
        paths.add(getattr(getattr(model_admin, str(column), None), "admin_order_field", None) or "")
    inline_paths = set()
    if obj is not None:
        paths.update(model_admin.get_fields(request, obj))
        for inline in model_admin.get_inline_instances(request, obj):
            inline_paths.update((inline.model, field) for field in inline.get_fields(request, obj))
    return {(model_admin.model, path) for path in paths if path} | inline_paths


def resolves_to_a_secret(model, path: str) -> bool:
    try:
        fields = get_fields_from_path(model, path)
    except (FieldDoesNotExist, AttributeError, LookupError):
        return False  # a display method, not a field
    field = fields[-1]
    return field.name in SECRET_FIELDS.get(field.model, set())


def test_no_admin_shows_searches_sorts_or_filters_on_a_secret(client_as, floor_state, rf):
    request = rf.get("/admin/")
    request.user = floor_state.users[SUPERUSER]
    leaks = []
    for model, model_admin in admin.site._registry.items():
        obj = model.objects.first()
        for shown_model, path in field_paths(model_admin, request, obj):
            if resolves_to_a_secret(shown_model, path):
                leaks.append((model._meta.label, path))
    assert leaks == []


@pytest.mark.parametrize("role", (DEALER_ROLE, SURVEILLANCE_ROLE, PIT_BOSS_ROLE, SUPERUSER))
def test_no_screen_of_the_shoe_in_play_or_the_endpoint_shows_a_secret(client_as, floor_state, role):
    client = client_as(role)
    shoe = shoe_in_play(floor_state)
    unseen = " ".join(card.code for card in shoe.cards[shoe.position : shoe.position + 6])
    endpoint = floor_state.endpoint
    secrets_in_play = [
        unseen,
        decrypt(shoe.salt_encrypted),
        shoe.salt_encrypted,
        shoe.card_order_encrypted,
        decrypt(endpoint.secret_encrypted),
        endpoint.secret_encrypted,
    ]
    pages = [
        changelist(Shoe),
        reverse("admin:tables_shoe_change", args=[shoe.pk]),
        reverse("admin:tables_coup_change", args=[floor_state.live_coup.pk]),
        changelist(WebhookEndpoint),
        reverse("admin:partners_webhookendpoint_change", args=[endpoint.pk]),
        reverse("admin:partners_webhookdelivery_change", args=[floor_state.failed_delivery.pk]),
        f"{changelist(Shoe)}?o=1.2.3.4.5.6.7",
        f"{changelist(Shoe)}?q=KC",
    ]
    for url in pages:
        page = client.get(url).content.decode()
        assert not [secret for secret in secrets_in_play if secret in page], url
