"""Webhooks: a partner's endpoints, and a signed event for every settlement, void and result correction
of its players' bets.

The events are written in the transaction that settles or voids the coup (an outbox: no event
for a settlement that rolled back, none lost for one that committed) and sent once it commits,
one Celery task per delivery. A failed attempt (no answer, or not 2xx) is retried with exponential
backoff, ``WEBHOOK_ATTEMPTS`` attempts in all; every attempt is recorded on the delivery. Delivery
is at least once: receivers drop an event id they have already handled.

Each request carries ``Punto-Signature: t=<unix seconds>,v1=<hex>``, the HMAC-SHA256 of
``"<t>.<body>"`` keyed with the endpoint's secret (re-signed at every attempt). The secret is shown
to the partner once, at registration, and stored encrypted (kernel.encryption): only signing decrypts it.

Targets are https URLs of public addresses only, checked at registration and again at every attempt,
which connects to the address it checked (``partners.webhook_http``: a name may come to resolve
elsewhere): the platform never posts into its own network. ``WEBHOOK_ALLOW_PRIVATE_TARGETS`` lifts both
rules, for development and tests. An attempt has one deadline (connect, TLS, request and answer) and
reads a bounded answer, and the deliveries have a Celery queue and workers of their own (``webhooks``):
a slow receiver never holds up a settlement.
"""

from __future__ import annotations

import secrets
import uuid
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cache

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from django.db import connection, transaction
from django.utils import timezone

from kernel.encryption import encrypt, reencrypt
from kernel.errors import ErrorCode
from kernel.raw_rows import prepared_cursor, sql_literal
from partners.identifiers import PartnerConflict, PartnerRejected, partner_actor_label
from partners.models import Partner, PartnerPlayer, WebhookDelivery, WebhookEndpoint, all_event_types
from partners.tasks import webhook_delivery_send
from partners.webhook_http import WebhookTargetRefused, webhook_target_resolve
from tables.audit import audit_record
from tables.models import Coup, ResultCorrection
from tables.selectors import coup_public
from wagering.models import Account, Bet, BetAdjustment, PlayerAdjustment

User = AbstractBaseUser
MAX_ACTIVE_ENDPOINTS = 10
MAX_URL_LENGTH = 500
SETTLEMENT, VOID = "settlement", "void"
EVENT_TYPES = {SETTLEMENT: WebhookDelivery.EventType.ROUND_SETTLED, VOID: WebhookDelivery.EventType.ROUND_VOIDED}
_CLOSED_BET_STATE = {SETTLEMENT: Bet.State.SETTLED, VOID: Bet.State.REFUNDED}


# --- Targets -------------------------------------------------------------------------------------


def webhook_target_check(url: str) -> None:
    """Refuse a target inside the platform's network (SSRF), at registration: see ``webhook_target_resolve``."""
    if not settings.WEBHOOK_ALLOW_PRIVATE_TARGETS:
        webhook_target_resolve(url)


# --- Endpoints -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class NewWebhookEndpoint:
    endpoint: WebhookEndpoint
    secret: str  # the signing secret: shown once, stored encrypted


@transaction.atomic
def webhook_endpoint_create(*, partner: Partner, url: str, events: list[str] | None = None) -> NewWebhookEndpoint:
    """Register a URL for the partner's events (``events``: those it receives, all by default), with a new
    signing secret (shown to the partner once)."""
    events = list(dict.fromkeys(events)) if events is not None else all_event_types()
    unknown = [event for event in events if event not in WebhookDelivery.EventType.values]
    if unknown or not events:
        raise PartnerRejected(
            f"events are one or more of {', '.join(WebhookDelivery.EventType.values)}",
            code=ErrorCode.INVALID_EVENTS,
            details={"events": ", ".join(map(str, unknown))[:200]},
        )
    try:
        if not isinstance(url, str) or len(url) > MAX_URL_LENGTH:
            raise ValidationError("too long")
        URLValidator(schemes=["http", "https"])(url)
    except ValidationError:
        raise PartnerRejected(
            f"a webhook URL is an https URL of at most {MAX_URL_LENGTH} characters",
            code=ErrorCode.INVALID_URL,
            details={"url": str(url)},
        ) from None
    try:
        webhook_target_check(url)
    except WebhookTargetRefused as error:
        raise PartnerRejected(str(error), code=ErrorCode.INVALID_URL, details={"url": url}) from None
    partner = Partner.objects.select_for_update(of=("self",)).get(pk=partner.pk)  # one registration at a time
    if WebhookEndpoint.objects.filter(partner=partner, is_active=True).count() >= MAX_ACTIVE_ENDPOINTS:
        raise PartnerRejected(
            f"a partner has at most {MAX_ACTIVE_ENDPOINTS} webhook endpoints: delete one first",
            code=ErrorCode.TOO_MANY_WEBHOOKS,
            details={"maximum": str(MAX_ACTIVE_ENDPOINTS)},
        )
    secret = f"whsec_{secrets.token_hex(24)}"
    endpoint = WebhookEndpoint.objects.create(partner=partner, url=url, secret_encrypted=encrypt(secret), events=events)
    audit_record(
        action="webhook_endpoint_created",
        actor_label=partner_actor_label(partner.code),
        obj=endpoint,
        after={"partner": partner.code, "url": url, "events": events},
    )
    return NewWebhookEndpoint(endpoint=endpoint, secret=secret)


@transaction.atomic
def webhook_secrets_reencrypt(*, actor: User | None = None) -> int:
    """Key rotation: every endpoint's signing secret encrypted again with the first key."""
    endpoints = list(WebhookEndpoint.objects.select_for_update(of=("self",)).order_by("pk"))
    for endpoint in endpoints:
        endpoint.secret_encrypted = reencrypt(endpoint.secret_encrypted)
    WebhookEndpoint.objects.bulk_update(endpoints, ["secret_encrypted"])
    audit_record(
        action="webhook_secrets_reencrypted", actor=actor, actor_label="system", after={"endpoints": len(endpoints)}
    )
    return len(endpoints)


@transaction.atomic
def webhook_endpoint_disable(*, endpoint: WebhookEndpoint, actor: User | None = None) -> WebhookEndpoint:
    """Stop sending to the endpoint (its deliveries stay on record; pending ones fail)."""
    endpoint = WebhookEndpoint.objects.select_for_update(of=("self",)).select_related("partner").get(pk=endpoint.pk)
    if not endpoint.is_active:
        raise PartnerConflict(f"webhook endpoint {endpoint.pk} is already deleted", code=ErrorCode.WEBHOOK_DISABLED)
    endpoint.is_active, endpoint.disabled_at = False, timezone.now()
    endpoint.save(update_fields=["is_active", "disabled_at"])
    audit_record(
        action="webhook_endpoint_disabled",
        actor=actor,
        actor_label=partner_actor_label(endpoint.partner.code),
        obj=endpoint,
        after={"partner": endpoint.partner.code, "url": endpoint.url},
    )
    return endpoint


# --- Events --------------------------------------------------------------------------------------


def webhook_events_enqueue(*, coup: Coup, kind: str) -> list[WebhookDelivery]:
    """Write the event of a settlement or a void (``kind``) for every partner with bets on the coup,
    one delivery per active endpoint, sent once the transaction commits. Call it inside the
    transaction that settled or refunded the bets; a second call for the same coup and kind adds nothing.
    """
    event_type = EVENT_TYPES[kind]
    if not _partners_bet_on(coup_id=coup.pk, kind=kind):  # most coups of a table dealt on demand
        return []
    partners_bets = Bet.objects.filter(
        coup_id=coup.pk, state=_CLOSED_BET_STATE[kind], user__partner_player__isnull=False
    )
    with transaction.atomic():
        if WebhookDelivery.objects.filter(coup_id=coup.pk, event_type=event_type).exists():
            return []
        coup = Coup.objects.select_related("table", "shoe").get(pk=coup.pk)  # as settlement left it
        bets = partners_bets.select_related("settlement", "user__partner_player__partner").order_by("pk")
        bets_by_partner: dict[Partner, list[Bet]] = defaultdict(list)
        for bet in bets:
            bets_by_partner[bet.user.partner_player.partner].append(bet)
        balances = dict(
            Account.objects.filter(kind=Account.Kind.PLAYER, user__in={bet.user_id for bet in bets}).values_list(
                "user_id", "balance"
            )
        )
        return _deliveries_write(
            by_partner=bets_by_partner,
            event_type=event_type,
            coup=coup,
            payload=lambda event_id, partner_bets: _event(event_id, event_type, coup, partner_bets, balances),
        )


def _partners_bet_on(*, coup_id: int, kind: str) -> bool:
    """Whether a partner's player has a bet closed by the settlement or void (``kind``) on the coup: one probe,
    a raw statement prepared once (a table dealt on demand settles a coup at every deal)."""
    with prepared_cursor() as cursor:
        cursor.execute(_partners_bet_on_sql(kind), [coup_id])
        return cursor.fetchone() is not None


@cache
def _partners_bet_on_sql(kind: str) -> str:
    quote = connection.ops.quote_name  # names of ours, not input
    bets, players = quote(Bet._meta.db_table), quote(PartnerPlayer._meta.db_table)
    return (
        f"SELECT 1 FROM {bets} b JOIN {players} p ON p.user_id = b.user_id "  # noqa: S608
        f"WHERE b.coup_id = %s AND b.state = {sql_literal(_CLOSED_BET_STATE[kind].value)} LIMIT 1"
    )


def webhook_correction_enqueue(*, correction: ResultCorrection) -> list[WebhookDelivery]:
    """Write the ``round.corrected`` event of an approved correction for every partner whose players' bets
    it re-settled, one delivery per active endpoint, sent on commit. Once per correction: a coup corrected
    twice notifies twice."""
    event_type = WebhookDelivery.EventType.ROUND_CORRECTED
    with transaction.atomic():
        if WebhookDelivery.objects.filter(correction=correction).exists():
            return []
        coup = Coup.objects.select_related("table", "shoe").get(pk=correction.coup_id)
        adjusted = (
            BetAdjustment.objects.filter(correction=correction, bet__user__partner_player__isnull=False)
            .select_related("bet__user__partner_player__partner")
            .order_by("bet_id")
        )
        by_partner: dict[Partner, list[BetAdjustment]] = defaultdict(list)
        for adjustment in adjusted:
            by_partner[adjustment.bet.user.partner_player.partner].append(adjustment)
        players = {
            each.user_id: each
            for each in PlayerAdjustment.objects.filter(correction=correction).select_related(
                "user__partner_player__partner"
            )
        }
        return _deliveries_write(
            by_partner=by_partner,
            event_type=event_type,
            coup=coup,
            correction=correction,
            payload=lambda event_id, adjustments: _correction_event(event_id, coup, correction, adjustments, players),
        )


def _deliveries_write(
    *,
    by_partner: Mapping[Partner, list],
    event_type: str,
    coup: Coup,
    payload: Callable[[uuid.UUID, list], dict],
    correction: ResultCorrection | None = None,
) -> list[WebhookDelivery]:
    """One delivery per active endpoint of each partner in ``by_partner``, its payload made from that
    partner's items; all sent once the transaction commits."""
    endpoints = WebhookEndpoint.objects.filter(partner__in=list(by_partner), is_active=True).order_by("pk")
    deliveries = []
    for endpoint in subscribed(endpoints, event_type):
        event_id = uuid.uuid4()
        deliveries.append(
            WebhookDelivery.objects.create(
                endpoint=endpoint,
                event_id=event_id,
                event_type=event_type,
                coup=coup,
                correction=correction,
                payload=payload(event_id, by_partner[endpoint.partner]),
            )
        )
    deliveries_send_on_commit([delivery.pk for delivery in deliveries])
    return deliveries


def subscribed(endpoints: Iterable[WebhookEndpoint], event_type: str) -> list[WebhookEndpoint]:
    """The endpoints that receive this type of event (read in Python: SQLite has no JSON ``contains``)."""
    return [endpoint for endpoint in endpoints if event_type in endpoint.events]


def deliveries_send_on_commit(delivery_ids: list[int]) -> None:
    transaction.on_commit(lambda: _deliveries_send(delivery_ids), robust=True)


def _correction_event(
    event_id: uuid.UUID,
    coup: Coup,
    correction: ResultCorrection,
    adjusted: list[BetAdjustment],
    players: dict[int, PlayerAdjustment],
) -> dict:
    user_ids = sorted({adjustment.bet.user_id for adjustment in adjusted})
    return {
        "id": str(event_id),
        "type": WebhookDelivery.EventType.ROUND_CORRECTED,
        "created_at": timezone.now().isoformat(),
        "data": {
            "round": {**coup_public(coup=coup), "table": coup.table.code},
            "currency": adjusted[0].bet.user.partner_player.partner.currency,
            "correction": {
                "id": correction.pk,
                "reason": correction.reason,
                "before": correction.before,
                "after": correction.after,
            },
            "bets": [
                {
                    "bet_id": adjustment.bet_id,
                    "player_id": adjustment.bet.user.partner_player.external_id,
                    "bet_type": adjustment.bet.bet_type,
                    "stake": str(adjustment.bet.stake),
                    "outcome_before": adjustment.outcome_before,
                    "returned_before": str(adjustment.returned_before),
                    "outcome": adjustment.outcome_after,
                    "returned": str(adjustment.returned_after),
                }
                for adjustment in adjusted
            ],
            "players": [
                {
                    "player_id": players[user_id].user.partner_player.external_id,
                    "adjustment": str(players[user_id].adjustment),
                    "owed_change": str(players[user_id].owed_change),
                    # A seamless wallet's balance is the partner's own: null here, as in round.settled.
                    "balance": None
                    if players[user_id].user.partner_player.partner.is_seamless
                    else str(players[user_id].balance_after),
                }
                for user_id in user_ids
            ],
        },
    }


def _event(event_id: uuid.UUID, event_type: str, coup: Coup, bets: list[Bet], balances: dict) -> dict:
    """The JSON event: the round, the partner's bets on it and its players' totals (amounts as strings)."""
    players: dict[str, dict] = {}
    for bet in bets:
        player_id = bet.user.partner_player.external_id
        totals = players.setdefault(player_id, {"player_id": player_id, "staked": 0, "returned": 0})
        totals["staked"] += bet.stake
        totals["returned"] += bet.settlement.returned
        # A seamless wallet's balance is the partner's own: null here.
        totals["balance"] = None if bet.user.partner_player.partner.is_seamless else balances[bet.user_id]
    return {
        "id": str(event_id),
        "type": event_type,
        "created_at": timezone.now().isoformat(),
        "data": {
            "round": {**coup_public(coup=coup), "table": coup.table.code, "void_reason": coup.void_reason or None},
            "currency": bets[0].user.partner_player.partner.currency,
            "bets": [
                {
                    "bet_id": bet.pk,
                    "player_id": bet.user.partner_player.external_id,
                    "bet_type": bet.bet_type,
                    "stake": str(bet.stake),
                    "state": bet.state,
                    "outcome": bet.settlement.outcome,
                    "returned": str(bet.settlement.returned),
                }
                for bet in bets
            ],
            "players": [
                {name: value if name == "player_id" or value is None else str(value) for name, value in totals.items()}
                for totals in players.values()
            ],
        },
    }


def _deliveries_send(delivery_ids: list[int]) -> None:
    """Queue one task per delivery. Robust on commit: a broker down (or, with eager Celery, a partner's
    endpoint down) must not fail the settlement that committed; the deliveries stay on record, pending."""
    for delivery_id in delivery_ids:
        webhook_delivery_send.delay(delivery_id)


@transaction.atomic
def webhook_delivery_resend(*, delivery: WebhookDelivery, actor: User | None) -> WebhookDelivery:
    """Send a failed delivery again (from the admin), with a fresh set of attempts."""
    delivery = WebhookDelivery.objects.select_for_update(of=("self",)).select_related("endpoint").get(pk=delivery.pk)
    if delivery.status != WebhookDelivery.Status.FAILED:
        raise PartnerRejected(
            f"delivery {delivery.pk} is {delivery.status}: only a failed one is resent", code=ErrorCode.NOT_FAILED
        )
    if not delivery.endpoint.is_active:
        raise PartnerConflict(f"webhook endpoint {delivery.endpoint_id} is deleted", code=ErrorCode.WEBHOOK_DISABLED)
    delivery.status = WebhookDelivery.Status.PENDING
    delivery.save(update_fields=["status"])
    audit_record(
        action="webhook_delivery_resent", actor=actor, obj=delivery, after={"event_id": str(delivery.event_id)}
    )
    transaction.on_commit(lambda: _deliveries_send([delivery.pk]), robust=True)
    return delivery
