"""Reads for the partner API: keys, players, tables with their exact odds, rounds, history, shoes.

No writes here. Amounts are ``Decimal`` (the API renders them as strings).
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache
from operator import attrgetter
from typing import TYPE_CHECKING

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Prefetch, QuerySet

from baccarat.odds import ShoeComposition, analyze
from baccarat.rules import CoupRules, TableRules
from partners.identifiers import api_key_parse, api_key_secret_hash
from partners.models import Partner, PartnerApiKey, PartnerPlayer, WalletTransaction, WebhookEndpoint
from roadmaps.selectors import shoe_roadmap
from tables.models import Coup, DealtCard, Shoe, Table
from tables.players import dealer_display_name
from tables.selectors import (
    coup_public,
    shoe_verify,
    table_coup_rules,
    table_current_coup,
    table_dealer,
    table_shoe_in_play,
)
from wagering.models import Account, Bet, BetBatch, LedgerEntry, LedgerTransaction, money
from wagering.selectors import wallet_balance

if TYPE_CHECKING:
    from wagering.placement import PlacedBatch

RTP_PLACES = Decimal("0.00000001")
TABLE_CLOSED, TABLE_OPEN = "closed", "open"  # the table's state between coups


# --- Keys and players ----------------------------------------------------------------------------


def partner_api_key_find(*, key: str) -> PartnerApiKey | None:
    """The unrevoked key a partner sent, or None (the secret is compared in constant time)."""
    parts = api_key_parse(key)
    if parts is None:
        return None
    api_key = PartnerApiKey.objects.select_related("partner").filter(prefix=parts.prefix, revoked_at=None).first()
    if api_key is None or not hmac.compare_digest(api_key.secret_hash, api_key_secret_hash(parts.secret)):
        return None
    return api_key


def partner_player_find(*, partner: Partner, external_id: str) -> PartnerPlayer | None:
    player = PartnerPlayer.objects.select_related("user").filter(partner=partner, external_id=external_id).first()
    if player is not None:
        player.partner = partner  # the asking partner: its currency and wallet mode, without reading it again
    return player


def partner_player_record(*, player: PartnerPlayer) -> dict:
    return {
        "player_id": player.external_id,
        "currency": player.partner.currency,
        "balance": None if player.partner.is_seamless else wallet_balance(user=player.user),
        "created_at": player.created_at,
    }


def transfer_record(*, ledger_transaction: LedgerTransaction, player: PartnerPlayer) -> dict:
    """A deposit or withdrawal as it was: the amount and the wallet's balance just after."""
    wallet_leg = ledger_transaction.entries.get(account__user=player.user)
    return {
        "transaction_id": ledger_transaction.pk,
        "kind": ledger_transaction.kind,
        "player_id": player.external_id,
        "currency": player.partner.currency,
        "amount": abs(wallet_leg.amount),
        "balance": wallet_leg.balance_after,
        "created_at": ledger_transaction.created_at,
    }


def bet_batch_record(*, ledger_transaction: LedgerTransaction, player: PartnerPlayer) -> dict:
    """A batch of bets as it was placed (by its placement): the bets, their total, the balance just after."""
    batch = BetBatch.objects.select_related("coup__table").get(placement=ledger_transaction)
    debit = WalletTransaction.objects.filter(batch=batch).first()  # paid by a seamless wallet
    if debit is not None:
        balance = debit.partner_balance
    else:
        balance = ledger_transaction.entries.get(account__user=player.user).balance_after
    bets = list(batch.bets.order_by("pk"))
    return _bet_batch_record(batch=batch, bets=bets, player=player, balance=balance)


def placed_batch_record(*, placed: PlacedBatch, player: PartnerPlayer) -> dict:
    """``bet_batch_record`` of a placement just made, from what the service answered (no reads)."""
    bets = sorted(placed.bets, key=attrgetter("pk"))
    return _bet_batch_record(batch=placed.batch, bets=bets, player=player, balance=placed.balance)


def _bet_batch_record(*, batch: BetBatch, bets: list[Bet], player: PartnerPlayer, balance: Decimal | None) -> dict:
    return {
        "batch_id": batch.pk,
        "round_id": batch.coup.round_id,
        "table": batch.coup.table.code,
        "player_id": player.external_id,
        "bets": bets,
        "currency": player.partner.currency,
        "total": money(sum(bet.stake for bet in bets)),
        "balance": balance,
        "placed_at": batch.created_at,
    }


def partner_webhook_endpoints(*, partner: Partner) -> QuerySet[WebhookEndpoint]:
    return WebhookEndpoint.objects.filter(partner=partner, is_active=True).order_by("pk")


# --- Tables --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BetRtp:
    bet_type: str
    label: str
    house_edge: Fraction
    rtp: Fraction


@lru_cache(maxsize=128)
def table_rules_bet_odds(rules: TableRules) -> tuple[BetRtp, ...]:
    """The exact house edge and RTP of every bet the rules offer, on a full shoe of their decks.

    Cached per rules: an analysis costs about a millisecond, after a one-time set-up of about 100 ms.
    """
    paytables = rules.paytables()
    analysis = analyze(ShoeComposition.full(rules.decks), paytables=paytables)
    return tuple(
        BetRtp(bet_type=bet, label=odds.label, house_edge=odds.house_edge, rtp=odds.rtp)
        for bet, odds in analysis.bets.items()
    )


def fraction_decimal(value: Fraction) -> Decimal:
    """A fraction to 8 decimal places, for display (the fraction itself is exact)."""
    return (Decimal(value.numerator) / Decimal(value.denominator)).quantize(RTP_PLACES)


def table_find(*, code: str) -> Table | None:
    return Table.objects.filter(code=code).first()


def tables_on_offer() -> QuerySet[Table]:
    return Table.objects.order_by("code")


def table_overview(*, table: Table, currency: str) -> dict:
    """A table as a partner lists it: rules, limits in the partner's currency and paytables of the bets on
    offer, the currencies it takes bets in, state, current coup."""
    return _table_overview(table, table_coup_rules(table=table), currency)


def table_detail(*, table: Table, currency: str) -> dict:
    """The overview, the roads of the shoe in play and the exact RTP of every bet on offer."""
    rules = table_coup_rules(table=table)
    return {
        **_table_overview(table, rules, currency),
        "roads": shoe_roadmap(shoe=table_shoe_in_play(table=table)),
        "odds": [
            {
                "bet_type": odds.bet_type,
                "label": odds.label,
                "house_edge": fraction_decimal(odds.house_edge),
                "rtp": fraction_decimal(odds.rtp),
                "rtp_exact": f"{odds.rtp.numerator}/{odds.rtp.denominator}",
            }
            for odds in table_rules_bet_odds(rules.table)
        ],
    }


def _table_overview(table: Table, coup_rules: CoupRules, currency: str) -> dict:
    rules, snapshot = coup_rules.table, coup_rules.to_json()
    in_currency = coup_rules.currencies.get(currency)
    coup = table_current_coup(table=table)
    shoe = table_shoe_in_play(table=table)
    session = table_dealer(table=table)
    live = coup is not None and coup.state in Coup.LIVE_STATES
    return {
        "code": table.code,
        "name": table.name,
        "is_open": table.is_open,
        "state": coup.state if live else (TABLE_OPEN if table.is_open else TABLE_CLOSED),
        "dealing_mode": table.dealing_mode,
        "dealer": dealer_display_name(session.dealer) if session else None,
        "currency": currency,
        "currencies": sorted(coup_rules.currencies),
        "rules": {
            **{name: value for name, value in snapshot.items() if name != "currencies"},
            "max_differential": in_currency.max_differential if in_currency is not None else None,
        },
        "limits": [
            {
                "bet_type": bet_type,
                "minimum": limits.minimum,
                "maximum": limits.maximum,
                "table_maximum": limits.table_maximum,
            }
            for bet_type, limits in coup_rules.offered_limits(currency).items()
        ],
        "paytables": [
            {
                "bet_type": bet_type,
                "label": paytable.label,
                "description": paytable.description,
                "pays": dict(paytable.pays),
                "odds": paytable.odds_label(),
            }
            for bet_type, paytable in rules.paytables().items()
        ],
        "shoe": None if shoe is None else {"number": shoe.number, "commitment": shoe.commitment or None},
        "current_coup": coup_record(coup=coup) if coup is not None else None,
    }


def coup_record(*, coup: Coup) -> dict:
    """A coup as players see it (``coup_public``), its deadline a datetime like every other."""
    return {**coup_public(coup=coup), "betting_closes_at": coup.betting_closes_at}


# --- Shoes ---------------------------------------------------------------------------------------


def table_shoe_find(*, table: Table, number: int) -> Shoe | None:
    return table.shoes.filter(number=number).first()


def shoe_fairness(*, shoe: Shoe) -> dict:
    """A shoe's commitment; once it is out of play, its order, salt and the check of every coup against them."""
    revealed = shoe.has_card_order and shoe.revealed
    shown = shoe.reveal() if revealed else None
    verification = shoe_verify(shoe=shoe) if revealed else None
    return {
        "number": shoe.number,
        "state": shoe.state,
        "decks": shoe.decks,
        "shuffle_method": shoe.shuffle_method,
        "commitment": shoe.commitment or None,
        "started_at": shoe.started_at,
        "finished_at": shoe.finished_at,
        "coups": shoe.coups_started,
        "revealed": revealed,
        "card_order": shown.card_order if shown else None,
        "salt": shown.salt if shown else None,
        "burn_shown": shoe.burn_shown or None,
        "burned_cards": shown.burned_cards if shown else None,
        "verification": None
        if verification is None
        else {
            "ok": verification.ok,
            "commitment_ok": verification.commitment_ok,
            "coups_checked": verification.coups_checked,
            "mismatches": list(verification.mismatches),
        },
    }


# --- Rounds, bets and history --------------------------------------------------------------------


def round_find(*, round_id: str) -> Coup | None:
    return Coup.objects.select_related("table", "shoe").filter(round_id=round_id).first()


def round_record(*, partner: Partner, coup: Coup) -> dict:
    """A coup by its round id, with the bets of the partner's players on it (never another partner's)."""
    bets = Bet.objects.filter(coup=coup, user__partner_player__partner=partner)
    return {
        **table_round_record(coup=coup),
        "bets": list(bets.select_related("coup__table", "settlement", "user__partner_player").order_by("pk")),
    }


def partner_player_bets(
    *, player: PartnerPlayer, table_code: str | None = None, round_id: str | None = None
) -> QuerySet[Bet]:
    """The player's bets, newest coup first."""
    bets = Bet.objects.filter(user=player.user).select_related("coup__table", "settlement", "user__partner_player")
    if table_code:
        bets = bets.filter(coup__table__code=table_code)
    if round_id:
        bets = bets.filter(coup__round_id=round_id)
    return bets.order_by("-coup_id", "pk")


def partner_player_rounds(
    *,
    player: PartnerPlayer,
    table_code: str | None = None,
    date_from: date | None = None,
    date_to: date | None = None,
) -> QuerySet[Coup]:
    """The coups the player bet on, newest first; dates are the UTC days the coups opened, both included."""
    coups = Coup.objects.filter(pk__in=Bet.objects.filter(user=player.user).values("coup_id"))
    if table_code:
        coups = coups.filter(table__code=table_code)
    if date_from is not None:
        coups = coups.filter(opened_at__date__gte=date_from)
    if date_to is not None:
        coups = coups.filter(opened_at__date__lte=date_to)
    cards = Prefetch("cards", queryset=DealtCard.objects.order_by("position"))
    return coups.select_related("table", "shoe").prefetch_related(cards).order_by("-opened_at", "-pk")


def player_round_records(*, player: PartnerPlayer, coups: list[Coup]) -> list[dict]:
    """Each coup with the player's bets on it, what they staked and got back, the balance before and after."""
    bets_by_coup: dict[int, list[Bet]] = {}
    for bet in Bet.objects.filter(user=player.user, coup__in=coups).select_related("settlement").order_by("pk"):
        bets_by_coup.setdefault(bet.coup_id, []).append(bet)
    legs_by_coup: dict[int, list[LedgerEntry]] = {}
    legs = LedgerEntry.objects.filter(account__user=player.user, transaction__coup__in=coups).order_by("pk")
    for leg in legs.select_related("transaction"):
        legs_by_coup.setdefault(leg.transaction.coup_id, []).append(leg)
    records = []
    for coup in coups:
        bets, coup_legs = bets_by_coup.get(coup.pk, []), legs_by_coup.get(coup.pk, [])
        standing = [bet for bet in bets if bet.state != Bet.State.CANCELLED]
        settlements = [bet.settlement for bet in standing if hasattr(bet, "settlement")]
        records.append(
            {
                **coup_record(coup=coup),
                "table": coup.table.code,
                "opened_at": coup.opened_at,
                "bets": bets,
                "currency": player.partner.currency,
                "staked": money(sum(bet.stake for bet in standing)),
                "returned": money(sum(settlement.returned for settlement in settlements)),
                "balance_before": coup_legs[0].balance_before if coup_legs else None,
                "balance_after": coup_legs[-1].balance_after if coup_legs else None,
            }
        )
    return records


def seamless_player(*, user: AbstractBaseUser | AnonymousUser) -> PartnerPlayer | None:
    """The partner's player this user is, if its partner keeps the money in a seamless wallet."""
    if not user.is_authenticated:
        return None
    player = PartnerPlayer.objects.filter(user=user, partner__wallet_mode="seamless").select_related("partner")
    return player.first()


# --- The partner's float and a table's rounds ---------------------------------------------------


def partner_float(*, partner: Partner) -> Account | None:
    return Account.objects.filter(kind=Account.Kind.PARTNER_FLOAT, partner_code=partner.code).first()


def partner_float_statement(
    *, partner: Partner, date_from: date | None = None, date_to: date | None = None
) -> QuerySet[LedgerEntry]:
    """The float's movements, newest first (UTC days, both included), with their transaction and round."""
    entries = LedgerEntry.objects.filter(
        account__kind=Account.Kind.PARTNER_FLOAT, account__partner_code=partner.code
    ).select_related("transaction__coup")
    if date_from is not None:
        entries = entries.filter(transaction__created_at__date__gte=date_from)
    if date_to is not None:
        entries = entries.filter(transaction__created_at__date__lte=date_to)
    return entries.order_by("-pk")


def table_rounds(*, table: Table, date_from: date | None = None, date_to: date | None = None) -> QuerySet[Coup]:
    """The table's coups, newest first (UTC days they opened, both included): public, no bets."""
    coups = table.coups.all()
    if date_from is not None:
        coups = coups.filter(opened_at__date__gte=date_from)
    if date_to is not None:
        coups = coups.filter(opened_at__date__lte=date_to)
    cards = Prefetch("cards", queryset=DealtCard.objects.order_by("position"))
    return coups.select_related("table", "shoe").prefetch_related(cards).order_by("-opened_at", "-pk")


def table_round_record(*, coup: Coup) -> dict:
    return {
        **coup_record(coup=coup),
        "table": coup.table.code,
        "opened_at": coup.opened_at,
        "resolved_at": coup.resolved_at,
        "settled_at": coup.settled_at,
        "voided_at": coup.voided_at,
        "void_reason": coup.void_reason or None,
    }


def player_currency(*, user: AbstractBaseUser | AnonymousUser) -> str:
    """The currency a player plays in: their partner's, or the house's."""
    player = PartnerPlayer.objects.filter(user_id=user.pk).select_related("partner").first()
    return player.partner.currency if player is not None else settings.HOUSE_CURRENCY
