"""The floor's tables: creation, opening and closing, rules and limits, no-bet coups, personal limit
markers, dealers and players' nicknames. One transaction each, validated and audited; live events
go out on commit. Shoes are in ``tables.shoes``, coups in ``tables.coups`` and ``tables.dealing``,
and the lifecycle that composes them with money, roads and partners in ``casino.lifecycle``.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from baccarat import rules as game_rules
from baccarat.coup import BANKER, PLAYER
from kernel.errors import ErrorCode
from kernel.live import table_event_send
from tables.audit import audit_record
from tables.errors import TableError
from tables.limit_sets import DEFAULT_MAX_DIFFERENTIAL, limit_set_write, table_amount
from tables.locks import table_locked
from tables.models import DealerSession, PersonalLimitMarker, PlayerProfile, Seat, Shoe, Table
from tables.players import dealer_display_name, nickname_problem
from tables.selectors import table_currencies, table_dealer, table_supervised_by
from tables.shoe_holders import shoe_holder_after_setting

User = AbstractBaseUser


RULE_FIELDS = (
    "decks",
    "burn_procedure",
    "cut_card_from_bottom",
    "cut_card_rule",
    "commission",
    "tie_pays",
    "side_bets",
    "forbid_player_and_banker",
    "patrons_hold_shoe",
    "tie_shoe_stays",
    "betting_seconds",
    "chip_values",
    "video_url",
    "dealing_mode",
    "name",
)


def _rules_of(table: Table) -> dict:
    return {field: getattr(table, field) for field in RULE_FIELDS}


def _rules_known(rules: dict) -> None:
    unknown = set(rules) - set(RULE_FIELDS)
    if unknown:
        raise TableError(f"unknown rule(s): {', '.join(sorted(unknown))}", code=ErrorCode.UNKNOWN_RULE)


def _rules_check(table: Table) -> None:
    """The table's fields are valid and its rules make a game."""
    try:
        table.full_clean()
        table.game_rules()
    except (ValidationError, ValueError, TypeError) as error:
        raise TableError(f"invalid rules: {error}", code=ErrorCode.INVALID_RULES) from error


# --- Tables, rules and limits ---------------------------------------------------------------


@transaction.atomic
def table_create(*, code: str, name: str, actor: User | None = None, **rules: object) -> Table:
    _rules_known(rules)
    if rules.get("dealing_mode") == Table.DealingMode.RNG:
        rules.setdefault("decks", RNG_TABLE_DECKS)  # seed 004: "Baccarat uses a four deck shoe"
    table = Table(code=code, name=name, **rules)
    _rules_check(table)
    table.save()
    Seat.objects.bulk_create([Seat(table=table, number=n) for n in range(1, Seat.SEATS_PER_TABLE + 1)])
    limit_set_write(table=table, currency=settings.HOUSE_CURRENCY, max_differential=DEFAULT_MAX_DIFFERENTIAL)
    audit_record(action="table_created", actor=actor, table=table, obj=table, after=_rules_of(table))
    return table


@transaction.atomic
def table_open(*, table: Table, actor: User | None = None, reason: str = "") -> Table:
    table = table_locked(table.pk)
    if table.is_open:
        raise TableError(f"table {table.code} is already open", code=ErrorCode.ALREADY_OPEN)
    table.is_open = True
    table.save(update_fields=["is_open"])
    audit_record(action="table_opened", actor=actor, table=table, obj=table, reason=reason)
    table_event_send(table_code=table.code, event_type="table_opened", data={})
    return table


@transaction.atomic
def table_close(*, table: Table, actor: User | None = None, reason: str = "") -> Table:
    """Close a table: no new coup opens; a coup already dealing is finished."""
    table = table_locked(table.pk)
    if not table.is_open:
        raise TableError(f"table {table.code} is already closed", code=ErrorCode.ALREADY_CLOSED)
    table.is_open = False
    table.save(update_fields=["is_open"])
    audit_record(action="table_closed", actor=actor, table=table, obj=table, reason=reason)
    table_event_send(table_code=table.code, event_type="table_closed", data={"reason": reason})
    return table


@transaction.atomic
def table_rules_update(*, table: Table, actor: User | None, changes: dict, reason: str) -> Table:
    """Change rules; they take effect at the next coup (each coup plays by its own snapshot)."""
    _rules_known(changes)
    table = table_locked(table.pk)
    mode = changes.get("dealing_mode", table.dealing_mode)
    if mode != table.dealing_mode and table.shoes.filter(state__in=[Shoe.State.PREPARED, Shoe.State.IN_PLAY]).exists():
        raise TableError(
            "the dealing mode changes only between shoes: finish or replace the shoe first", code=ErrorCode.SHOE_IN_PLAY
        )
    before = _rules_of(table)
    for field, value in changes.items():
        setattr(table, field, value)
    _rules_check(table)
    table.save()
    audit_record(
        action="rules_changed",
        actor=actor,
        table=table,
        obj=table,
        before=before,
        after=_rules_of(table),
        reason=reason,
    )
    if table.video_url != before["video_url"]:
        table_event_send(table_code=table.code, event_type="video", data={"url": table.video_url})
    if table.patrons_hold_shoe != before["patrons_hold_shoe"]:
        shoe_holder_after_setting(table=table, actor=actor)
    return table


@transaction.atomic
def no_bet_coups_order(*, table: Table, actor: User | None, count: int, reason: str) -> Table:
    """The next ``count`` coups take no bets (seed 000 §3.1.2, §5.1.6)."""
    if not isinstance(count, int) or not 1 <= count <= 10:
        raise TableError("order between 1 and 10 no-bet coups", code=ErrorCode.NO_BET_COUPS_OUT_OF_RANGE)
    table = table_locked(table.pk)
    before = table.no_bet_coups_ordered
    table.no_bet_coups_ordered += count
    table.save(update_fields=["no_bet_coups_ordered"])
    audit_record(
        action="no_bet_coups_ordered",
        actor=actor,
        table=table,
        obj=table,
        before={"no_bet_coups": before},
        after={"no_bet_coups": table.no_bet_coups_ordered},
        reason=reason,
    )
    return table


def no_bet_coups_reduce(*, table: Table, actor: User | None, count: int, reason: str) -> Table:
    """Take ``count`` coups off the no-bet coups still to play (seed 000 §3.1.2: a player who wants to bet
    may play the remaining ones later). The reason says why; the audit keeps the count before and after."""
    if not isinstance(count, int) or isinstance(count, bool) or count < 1:
        raise TableError("reduce by at least one no-bet coup", code=ErrorCode.NO_BET_COUPS_OUT_OF_RANGE)
    return _no_bet_coups_lower(table=table, actor=actor, count=count, reason=reason)


def no_bet_coups_cancel(*, table: Table, actor: User | None, reason: str) -> Table:
    """Cancel every no-bet coup still to play (seed 000 §3.1.2; §3.3 C: the game continues as normal)."""
    return _no_bet_coups_lower(table=table, actor=actor, count=None, reason=reason)


@transaction.atomic
def _no_bet_coups_lower(*, table: Table, actor: User | None, count: int | None, reason: str) -> Table:
    """``count`` fewer no-bet coups to play (None: none left), under the table's lock."""
    if not isinstance(reason, str) or not reason.strip():
        raise TableError("give the reason for changing the no-bet coups ordered", code=ErrorCode.REASON_REQUIRED)
    table = table_locked(table.pk)
    before = table.no_bet_coups_ordered
    if before == 0:
        raise TableError(f"table {table.code} has no no-bet coups to play", code=ErrorCode.NO_BET_COUPS_NONE)
    if count is not None and count > before:
        raise TableError(
            f"table {table.code} has {before} no-bet coup(s) to play, fewer than {count}",
            code=ErrorCode.NO_BET_COUPS_OUT_OF_RANGE,
        )
    table.no_bet_coups_ordered = 0 if count is None else before - count
    table.save(update_fields=["no_bet_coups_ordered"])
    audit_record(
        action="no_bet_coups_cancelled" if count is None else "no_bet_coups_reduced",
        actor=actor,
        table=table,
        obj=table,
        before={"no_bet_coups": before},
        after={"no_bet_coups": table.no_bet_coups_ordered},
        reason=reason.strip(),
    )
    return table


# --- Personal limit markers and dealers ---------------------------------------------------


MARKER_BET_TYPES_DEFAULT = (PLAYER, BANKER)
RNG_TABLE_DECKS = 4


@transaction.atomic
def limit_marker_grant(
    *,
    table: Table,
    player: User,
    minimum: object,
    maximum: object,
    actor: User | None,
    bet_types: Sequence[str] = MARKER_BET_TYPES_DEFAULT,
    currency: str | None = None,
    valid_from: datetime | None = None,
    valid_until: datetime | None = None,
    reason: str = "",
) -> PersonalLimitMarker:
    """A personal limit marker (seed 000 glossary): the player's own minimum and maximum for ``bet_types``
    (Player and Banker unless named), in ``currency``, one of the table's (None: the table's only one)."""
    low, high = table_amount(minimum, "the minimum"), table_amount(maximum, "the maximum")
    if high < low:
        raise TableError(f"the maximum {high} is below the minimum {low}", code=ErrorCode.MAXIMUM_BELOW_MINIMUM)
    if not player.is_active or player.is_staff:
        raise TableError("a personal limit marker is granted to a player", code=ErrorCode.NOT_A_PLAYER)
    covered = _marker_bet_types(table=table, bet_types=bet_types)
    currency = _marker_currency(table=table, currency=currency)
    valid_from = valid_from or timezone.now()
    if valid_until is not None and valid_until <= valid_from:
        raise TableError("a marker must end after it starts", code=ErrorCode.INVALID_PERIOD)
    marker = PersonalLimitMarker.objects.create(
        table=table,
        player=player,
        currency=currency,
        bet_types=covered,
        minimum=low,
        maximum=high,
        valid_from=valid_from,
        valid_until=valid_until,
        granted_by=actor,
        reason=reason,
    )
    audit_record(
        action="limit_marker_granted",
        actor=actor,
        table=table,
        obj=marker,
        after={
            "player": player.get_username(),
            "bet_types": covered,
            "currency": currency,
            "min": str(low),
            "max": str(high),
        },
        reason=reason,
    )
    return marker


def _marker_bet_types(*, table: Table, bet_types: object) -> list[str]:
    """The bet types named, each offered at the table, in the table's order (``TableError`` otherwise)."""
    if isinstance(bet_types, str) or not isinstance(bet_types, Sequence | set | frozenset) or not bet_types:
        raise TableError("name the bet types the marker applies to", code=ErrorCode.MARKER_BET_TYPES_REQUIRED)
    offered = [*game_rules.MAIN_BETS, *table.side_bets]
    unknown = [str(bet_type)[:30] for bet_type in bet_types if bet_type not in offered]
    if unknown:
        raise TableError(
            f"not offered at table {table.code}: {', '.join(unknown)} (it offers {', '.join(offered)})",
            code=ErrorCode.BET_TYPE_NOT_OFFERED,
        )
    return [bet_type for bet_type in offered if bet_type in bet_types]


def _marker_currency(*, table: Table, currency: object) -> str:
    """One of the table's currencies: a marker is in the currency of one of its limit sets."""
    offered = table_currencies(table=table)
    if currency is None and len(offered) == 1:
        return offered[0]
    if currency not in offered:
        raise TableError(
            f"name the marker's currency, one of table {table.code}'s: {', '.join(offered)}"
            + (f" (not {str(currency)[:10]})" if currency is not None else ""),
            code=ErrorCode.MARKER_CURRENCY_NOT_OFFERED,
        )
    return currency


@transaction.atomic
def limit_marker_revoke(*, marker: PersonalLimitMarker, actor: User | None, reason: str) -> PersonalLimitMarker:
    marker = PersonalLimitMarker.objects.select_for_update(of=("self",)).get(pk=marker.pk)
    if marker.revoked_at is not None:
        raise TableError("this marker is already revoked", code=ErrorCode.ALREADY_REVOKED)
    marker.revoked_at = timezone.now()
    marker.save(update_fields=["revoked_at"])
    audit_record(action="limit_marker_revoked", actor=actor, table=marker.table, obj=marker, reason=reason)
    return marker


@transaction.atomic
def dealer_login(*, table: Table, dealer: User, actor: User | None = None) -> DealerSession:
    """A dealer takes the table; the one before (if any) is logged out (rotation). A pit boss deals only at a table
    in their care (``table_supervised_by``): the dealer's session opens every console step there, so one of
    another pit's is refused (``TableError`` not_in_pit)."""
    table = table_locked(table.pk)
    if dealer.has_perm("tables.operate_table") and not table_supervised_by(table=table, user=dealer):
        raise TableError(
            f"{dealer.get_username()} is a pit boss, and {table.code} is in a pit they do not supervise: "
            "a pit boss deals only at their pits' tables or a table in no pit",
            code=ErrorCode.NOT_IN_PIT,
        )
    now = timezone.now()
    for session in table.dealer_sessions.filter(ended_at__isnull=True):
        session.ended_at = now
        session.save(update_fields=["ended_at"])
        audit_record(
            action="dealer_logout",
            actor=actor,
            table=table,
            obj=session,
            after={"dealer": session.dealer.get_username()},
        )
    session = DealerSession.objects.create(table=table, dealer=dealer, started_at=now)
    audit_record(action="dealer_login", actor=actor, table=table, obj=session, after={"dealer": dealer.get_username()})
    table_event_send(table_code=table.code, event_type="dealer_changed", data={"dealer": dealer_display_name(dealer)})
    return session


@transaction.atomic
def dealer_logout(*, table: Table, actor: User | None = None) -> DealerSession:
    table = table_locked(table.pk)
    session = table_dealer(table=table)
    if session is None:
        raise TableError(f"no dealer is logged in at {table.code}", code=ErrorCode.NO_DEALER)
    session.ended_at = timezone.now()
    session.save(update_fields=["ended_at"])
    audit_record(
        action="dealer_logout", actor=actor, table=table, obj=session, after={"dealer": session.dealer.get_username()}
    )
    table_event_send(table_code=table.code, event_type="dealer_changed", data={"dealer": None})
    return session


@transaction.atomic
def player_nickname_set(*, user: User, nickname: str) -> PlayerProfile:
    """The name the player appears under to other players (``tables.players``); an empty one
    goes back to the masked default. Anything else refused (``TableError``) changes nothing."""
    if not isinstance(nickname, str):
        raise TableError("a nickname is text", code=ErrorCode.INVALID_NICKNAME)
    nickname = nickname.strip()
    if not user.is_authenticated or user.is_staff:
        raise TableError("only players have a nickname", code=ErrorCode.NOT_A_PLAYER)
    if nickname:
        staff = get_user_model().objects.filter(is_staff=True).values_list("username", flat=True)
        problem = nickname_problem(nickname, staff_usernames={username.casefold() for username in staff})
        if problem:
            raise TableError(problem, code=ErrorCode.INVALID_NICKNAME)
    profile, _ = PlayerProfile.objects.select_for_update(of=("self",)).get_or_create(user=user)
    before = profile.nickname
    profile.nickname = nickname
    profile.save(update_fields=["nickname", "updated_at"])
    audit_record(
        action="player_nickname_set", actor=user, obj=profile, before={"nickname": before}, after={"nickname": nickname}
    )
    return profile
