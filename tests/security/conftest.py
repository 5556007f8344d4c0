"""A floor with something for every privileged action, and a client for every role."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from decimal import Decimal

import pytest
from axes.models import AccessAttempt
from django.apps import apps
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.test import Client
from django.utils import timezone

from casino import lifecycle
from casino.lifecycle.rng import rng_shoe_ready
from casino.lifecycle.settlement import coup_settle
from partners import services as partner_services
from partners import wallet_sending, webhooks
from partners.api.throttling import PartnerRateThrottle
from partners.models import WebhookDelivery
from tables import corrections, holds
from tables.coups import coup_open
from tables.dealing import coup_deal_card
from tables.pits import pit_create
from tables.roles import DEALER, PIT_BOSS, SURVEILLANCE, roles_ensure
from tables.services import dealer_login, limit_marker_grant, no_bet_coups_order, table_create, table_open
from tables.shoes import shoe_prepare, shoe_start
from tests.factories import CoupFactory, TableFactory, coup_deal_and_resolve, physical_shoe_start, staff_login
from wagering.placement import bet_batch_place
from wagering.protection.services import protection_limits_set
from wagering.reports import shoe_report_build, table_day_report_build
from wagering.wallets import wallet_deposit

ANONYMOUS, PLAYER, PARTNER, OTHER_PARTNER = "anonymous", "player", "partner", "other partner"
DEALER_ROLE, PIT_BOSS_ROLE, SURVEILLANCE_ROLE, SUPERUSER = "dealer", "pit boss", "surveillance", "superuser"
ROLES = (ANONYMOUS, PLAYER, PARTNER, OTHER_PARTNER, DEALER_ROLE, PIT_BOSS_ROLE, SURVEILLANCE_ROLE, SUPERUSER)
STAFF_ROLES = (DEALER_ROLE, PIT_BOSS_ROLE, SURVEILLANCE_ROLE, SUPERUSER)
GROUP_OF_ROLE = {DEALER_ROLE: DEALER, PIT_BOSS_ROLE: PIT_BOSS, SURVEILLANCE_ROLE: SURVEILLANCE}
# The roles that read the floor's records (the admin's changelists, the reports, the surveillance pages).
VIEWERS = frozenset({PIT_BOSS_ROLE, SURVEILLANCE_ROLE, SUPERUSER})


@dataclass
class Floor:
    """One of everything a privileged action acts on."""

    users: dict
    open_table: object
    closed_table: object
    staffed_dealer_table: object
    unstaffed_dealer_table: object
    live_coup: object
    settled_coup: object
    pending_correction: object
    held_coup: object  # held by a card entered for the wrong hand
    pending_void_request: object  # a coup whose first cards were seen, its void requested by the pit boss
    coup_held_by_hand: object
    marker: object
    pit: object  # the dealer tables' pit, supervised by the pit boss
    partner: object
    partner_player: object
    partner_rng_shoe: object  # the partner's player's private shoe at a table dealt on demand (rng5)
    api_key: object
    other_api_key: object
    endpoint: object
    failed_delivery: object
    pending_wallet_transaction: object  # a credit its partner's wallet has not acknowledged
    sign_in_attempt: object


def _user(username: str, role: str | None):
    users = get_user_model().objects
    if role == SUPERUSER:
        return users.create_superuser(username=username, password=None)
    user = users.create_user(username=username, password=None, is_staff=role in GROUP_OF_ROLE)
    if role in GROUP_OF_ROLE:
        user.groups.add(roles_ensure()[GROUP_OF_ROLE[role]])
    return user


def _partner(code: str):
    partner = partner_services.partner_create(code=code, name=code.capitalize())
    cache.delete(PartnerRateThrottle.cache_format % {"scope": PartnerRateThrottle.scope, "ident": partner.pk})
    return partner, partner_services.partner_api_key_create(partner=partner, name="tests")


@pytest.fixture
def floor_state(db) -> Floor:
    users = {role: _user(role.replace(" ", "-"), role) for role in (PLAYER, *STAFF_ROLES)}
    boss = users[PIT_BOSS_ROLE]
    wallet_deposit(user=users[PLAYER], amount=Decimal("500.00"), idempotency_key=uuid.uuid4().hex)
    protection_limits_set(user=users[PLAYER], limits={"deposit_month": Decimal("100000.00")})

    open_table = table_open(table=table_create(code="pb1", name="Punto 1", actor=boss), actor=boss)
    shoe_start(shoe=shoe_prepare(table=open_table, actor=boss))
    live_coup = coup_open(table=open_table, actor=boss)
    bet_batch_place(user=users[PLAYER], coup=live_coup, bets={"banker": "10.00"})
    table_day_report_build(table_id=open_table.pk, day=timezone.now().date())
    shoe_report_build(shoe_id=live_coup.shoe_id)
    closed_table = table_create(code="pb2", name="Punto 2", actor=boss)
    settled_table = TableFactory(code="pb3")
    settled_coup, corrected_coup = (_settled_coup(settled_table, users[PLAYER]) for _ in range(2))
    pending_correction = corrections.result_correction_request(
        coup=corrected_coup,
        player_cards="TS 2D 2S",
        banker_cards="6H KC",
        reason="card misread",
        actor=_user("second-pit-boss", PIT_BOSS_ROLE),
    )
    staffed, unstaffed = (
        table_open(table=table_create(code=code, name=code, actor=boss, dealing_mode="dealer"), actor=boss)
        for code in ("d1", "d2")
    )
    dealer_login(table=staffed, dealer=users[DEALER_ROLE], actor=boss)
    pit = pit_create(
        code="main", name="Main pit", tables=[staffed, unstaffed], bosses=[boss], actor=users[SUPERUSER], reason="x"
    )
    held_coup, coup_held_by_hand = (
        _coup_held(table, boss, wrong_hand) for table, wrong_hand in ((staffed, True), (unstaffed, False))
    )
    marker = limit_marker_grant(
        table=open_table, player=users[PLAYER], minimum="50", maximum="5000", actor=boss, reason="regular"
    )
    no_bet_coups_order(table=closed_table, actor=boss, count=2, reason="§3.1.2")
    pending_void_request = _void_requested(boss)
    cut_table = table_create(code="d3", name="d3", actor=boss, dealing_mode="dealer")
    physical_shoe_start(table=table_open(table=cut_table, actor=boss), actor=boss, burn_card="5H")  # no coup yet

    partner, issued = _partner("acme")
    _, other_issued = _partner("globex")
    partner_player, _ = partner_services.partner_player_create(partner=partner, external_id="p-1")
    partner_services.partner_wallet_deposit(
        partner=partner, player=partner_player, amount="100.00", idempotency_key=uuid.uuid4().hex
    )
    partner_rng_shoe = rng_shoe_ready(table=TableFactory(code="rng5", dealing_mode="rng"), player=partner_player.user)
    endpoint = webhooks.webhook_endpoint_create(partner=partner, url="https://hooks.acme.example/punto").endpoint
    failed_delivery = WebhookDelivery.objects.create(
        endpoint=endpoint,
        event_id=uuid.uuid4(),
        event_type=WebhookDelivery.EventType.choices[0][0],
        coup=live_coup,
        payload={},
        status=WebhookDelivery.Status.FAILED,
    )
    pending_wallet_transaction = wallet_sending.wallet_transaction_record(
        kind="credit", player=partner_player, amount=Decimal("5.00"), coup=settled_coup, extra={"round_id": "x"}
    )
    sign_in_attempt = AccessAttempt.objects.create(
        username="someone",
        ip_address="203.0.113.1",
        user_agent="",
        get_data="",
        post_data="",
        http_accept="",
        path_info="/accounts/login/",
        failures_since_start=2,
    )
    return Floor(
        users=users,
        open_table=open_table,
        closed_table=closed_table,
        staffed_dealer_table=staffed,
        unstaffed_dealer_table=unstaffed,
        live_coup=live_coup,
        settled_coup=settled_coup,
        pending_correction=pending_correction,
        held_coup=held_coup,
        pending_void_request=pending_void_request,
        coup_held_by_hand=coup_held_by_hand,
        marker=marker,
        pit=pit,
        partner=partner,
        partner_player=partner_player,
        partner_rng_shoe=partner_rng_shoe,
        api_key=issued,
        other_api_key=other_issued,
        endpoint=endpoint,
        failed_delivery=failed_delivery,
        pending_wallet_transaction=pending_wallet_transaction,
        sign_in_attempt=sign_in_attempt,
    )


def _settled_coup(table, player):
    coup = CoupFactory(table=table)
    bet_batch_place(user=player, coup=coup, bets={"player": "10.00"})
    coup_deal_and_resolve(coup, "9S 2H KD 3C")
    coup_settle(coup_id=coup.pk)
    return coup


def _coup_held(table, boss, wrong_hand: bool):
    """A dealer table's coup after no more bets, held by a first card for the wrong hand, or by hand."""
    physical_shoe_start(table=table, actor=boss, burn_card="5H")
    coup = lifecycle.coup_close_betting(coup=coup_open(table=table, actor=boss), actor=boss)
    if wrong_hand:
        coup_deal_card(coup=coup, card="9S", hand="banker", actor=boss)
    else:
        holds.coup_hold(coup=coup, actor=boss, reason="surveillance asked")
    coup.refresh_from_db()
    return coup


def _void_requested(boss):
    """A dealer table's coup dealt its four first cards, its void (§4.2) requested by the pit boss."""
    table = table_open(table=table_create(code="d4", name="d4", actor=boss, dealing_mode="dealer"), actor=boss)
    physical_shoe_start(table=table, actor=boss, burn_card="5H")
    coup = lifecycle.coup_close_betting(coup=coup_open(table=table, actor=boss), actor=boss)
    for card in ("9S", "2H", "KD", "3C"):
        coup_deal_card(coup=coup, card=card, actor=boss)
    return lifecycle.coup_void(
        coup=coup, actor=boss, dealing_error="order_not_restorable", reason="cards fell under the shoe"
    )


@pytest.fixture
def client_as(floor_state):
    """A client for a role: a session for the users, a Bearer key for the partners."""

    def make(role: str) -> Client:
        if role in (PARTNER, OTHER_PARTNER):
            issued = floor_state.api_key if role == PARTNER else floor_state.other_api_key
            return Client(HTTP_AUTHORIZATION=f"Bearer {issued.key}")
        client = Client()
        if role in STAFF_ROLES:
            staff_login(client, floor_state.users[role])
        elif role != ANONYMOUS:
            client.force_login(floor_state.users[role])
        return client

    return make


WATCHED_MODELS = (
    "tables.Pit",
    "tables.Table",
    "tables.LimitSet",
    "tables.BetLimit",
    "tables.Shoe",
    "tables.Coup",
    "tables.DealtCard",
    "tables.HeldCard",
    "tables.DealerSession",
    "tables.PersonalLimitMarker",
    "tables.AuditLog",
    "tables.ResultCorrection",
    "tables.CoupVoidRequest",
    "tables.SeatSession",
    "wagering.Account",
    "wagering.LedgerTransaction",
    "wagering.LedgerEntry",
    "wagering.Bet",
    "wagering.BetAdjustment",
    "wagering.PlayerAdjustment",
    "wagering.TableDayReport",
    "wagering.ShoeReport",
    "wagering.ChipMovement",
    "wagering.TrayCount",
    "partners.Partner",
    "partners.PartnerApiKey",
    "partners.PartnerPlayer",
    "partners.WebhookEndpoint",
    "partners.WebhookDelivery",
    "partners.WalletTransaction",
    "partners.LaunchToken",
    "roadmaps.ShoeRoad",
    "auth.User",
    "auth.Group",
    "axes.AccessAttempt",
)


def database_state() -> dict[str, list[tuple]]:
    """Every row of every model a privileged action could change (sessions and sign-in logs aside)."""
    state = {}
    for label in WATCHED_MODELS:
        model = apps.get_model(label)
        fields = [field.attname for field in model._meta.concrete_fields if field.attname != "last_login"]
        state[label] = list(model.objects.order_by("pk").values_list(*fields))
    return state


def refused_as(role: str, response, *, forbidden: tuple[str, ...] = STAFF_ROLES) -> None:
    """Staff without the permission get 403; anyone else (partner keys included) the staff sign-in."""
    if role in forbidden:
        assert response.status_code == 403, (role, response.status_code)
    else:
        assert response.status_code == 302 and response["Location"].startswith("/admin/login/?next="), role
