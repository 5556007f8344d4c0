"""Every change to the floor: one transaction each, validated and audited.

The table loop, the dealer console and the pit-boss admin all call these.
Live events and the settlement task go out on commit.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal, InvalidOperation

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from baccarat import rules as game_rules
from baccarat.cards import Card
from baccarat.coup import HANDS, CoupDeal
from baccarat.fairness import new_salt, shoe_commitment
from baccarat.shoe import ShoeDealer, ShoeState, burn_count, new_shoe_order
from casino.encryption import encrypt, reencrypt
from casino.live import table_event_send
from partners.webhooks import VOID, webhook_events_enqueue
from roadmaps.services import shoe_road_add_coup
from tables.audit import audit_record
from tables.models import (
    BetLimit,
    Coup,
    DealerSession,
    DealtCard,
    HeldCard,
    PersonalLimitMarker,
    PlayerProfile,
    Seat,
    Shoe,
    Table,
    VoidReason,
)
from tables.players import dealer_display_name, nickname_problem
from tables.selectors import (
    coup_deal_state,
    coup_public,
    coup_rules_snapshot,
    player_display_names,
    table_live_coup,
    table_shoe_in_play,
)

User = AbstractBaseUser


class TableError(ValueError):
    """A table operation refused: the message says why."""


DEFAULT_LIMITS = {
    "player": ("1.00", "1000.00", None),
    "banker": ("1.00", "1000.00", None),
    "tie": ("1.00", "100.00", "500.00"),
    "player_pair": ("1.00", "50.00", "500.00"),
    "banker_pair": ("1.00", "50.00", "500.00"),
    "either_pair": ("1.00", "50.00", "500.00"),
    "perfect_pair": ("1.00", "25.00", "250.00"),
    "player_bonus": ("1.00", "50.00", "500.00"),
    "banker_bonus": ("1.00", "50.00", "500.00"),
    "small": ("1.00", "100.00", "1000.00"),
    "big": ("1.00", "100.00", "1000.00"),
}
RULE_FIELDS = (
    "decks",
    "burn_procedure",
    "cut_card_from_bottom",
    "cut_card_rule",
    "commission",
    "tie_pays",
    "side_bets",
    "forbid_player_and_banker",
    "betting_seconds",
    "max_differential",
    "dealing_mode",
    "name",
)


def _money(value: object, what: str) -> Decimal:
    try:
        amount = Decimal(str(value))
    except (InvalidOperation, ValueError):
        raise TableError(f"{what} must be an amount, not {value!r}") from None
    if not amount.is_finite() or amount <= 0 or amount != amount.quantize(Decimal("0.01")):
        raise TableError(f"{what} must be a positive amount with at most 2 decimals, not {value!r}")
    return amount.quantize(Decimal("0.01"))


def _rules_of(table: Table) -> dict:
    return {
        field: str(getattr(table, field)) if field == "max_differential" else getattr(table, field)
        for field in RULE_FIELDS
    }


def _rules_check(table: Table) -> None:
    """The table's fields are valid and its rules make a game."""
    try:
        table.full_clean()
        table.game_rules()
    except (ValidationError, ValueError, TypeError) as error:
        raise TableError(f"invalid rules: {error}") from error


def _locked(table: Table) -> Table:
    return Table.objects.select_for_update().get(pk=table.pk)


# --- Tables, rules and limits ---------------------------------------------------------------


@transaction.atomic
def table_create(*, code: str, name: str, actor: User | None = None, **rules: object) -> Table:
    unknown = set(rules) - set(RULE_FIELDS)
    if unknown:
        raise TableError(f"unknown rule(s): {', '.join(sorted(unknown))}")
    table = Table(code=code, name=name, **rules)
    _rules_check(table)
    table.save()
    Seat.objects.bulk_create([Seat(table=table, number=n) for n in range(1, Seat.SEATS_PER_TABLE + 1)])
    BetLimit.objects.bulk_create(
        [
            BetLimit(
                table=table,
                bet_type=bet,
                minimum=Decimal(lo),
                maximum=Decimal(hi),
                table_maximum=tmax and Decimal(tmax),
            )
            for bet, (lo, hi, tmax) in DEFAULT_LIMITS.items()
        ]
    )
    audit_record(action="table_created", actor=actor, table=table, obj=table, after=_rules_of(table))
    return table


@transaction.atomic
def table_open(*, table: Table, actor: User | None = None, reason: str = "") -> Table:
    table = _locked(table)
    if table.is_open:
        raise TableError(f"table {table.code} is already open")
    table.is_open = True
    table.save(update_fields=["is_open"])
    audit_record(action="table_opened", actor=actor, table=table, obj=table, reason=reason)
    table_event_send(table_code=table.code, event_type="table_opened", data={})
    return table


@transaction.atomic
def table_close(*, table: Table, actor: User | None = None, reason: str = "") -> Table:
    """Close a table: no new coup opens; a coup already dealing is finished."""
    table = _locked(table)
    if not table.is_open:
        raise TableError(f"table {table.code} is already closed")
    table.is_open = False
    table.save(update_fields=["is_open"])
    audit_record(action="table_closed", actor=actor, table=table, obj=table, reason=reason)
    table_event_send(table_code=table.code, event_type="table_closed", data={"reason": reason})
    return table


@transaction.atomic
def table_rules_update(*, table: Table, actor: User | None, changes: dict, reason: str) -> Table:
    """Change rules; they take effect at the next coup (each coup plays by its own snapshot)."""
    unknown = set(changes) - set(RULE_FIELDS)
    if unknown:
        raise TableError(f"unknown rule(s): {', '.join(sorted(unknown))}")
    table = _locked(table)
    mode = changes.get("dealing_mode", table.dealing_mode)
    if mode != table.dealing_mode and table.shoes.filter(state__in=[Shoe.State.PREPARED, Shoe.State.IN_PLAY]).exists():
        raise TableError("the dealing mode changes only between shoes: finish or replace the shoe first")
    before = _rules_of(table)
    for field, value in changes.items():
        setattr(table, field, _money(value, "the maximum differential") if field == "max_differential" else value)
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
    return table


@transaction.atomic
def bet_limit_set(
    *,
    table: Table,
    actor: User | None,
    bet_type: str,
    minimum: object,
    maximum: object,
    table_maximum: object = None,
    reason: str = "",
) -> BetLimit:
    if bet_type not in game_rules.MAIN_BETS + game_rules.SIDE_BETS:
        raise TableError(f"unknown bet type {bet_type!r}")
    low, high = _money(minimum, "the minimum"), _money(maximum, "the maximum")
    if high < low:
        raise TableError(f"the maximum {high} is below the minimum {low}")
    table_high = None if table_maximum in (None, "") else _money(table_maximum, "the table maximum")
    limit = BetLimit.objects.select_for_update().filter(table=table, bet_type=bet_type).first()
    before = (
        None
        if limit is None
        else {"min": str(limit.minimum), "max": str(limit.maximum), "table_max": str(limit.table_maximum)}
    )
    limit = limit or BetLimit(table=table, bet_type=bet_type)
    limit.minimum, limit.maximum, limit.table_maximum = low, high, table_high
    limit.save()
    after = {"min": str(low), "max": str(high), "table_max": str(table_high)}
    audit_record(action="limit_changed", actor=actor, table=table, obj=limit, before=before, after=after, reason=reason)
    return limit


@transaction.atomic
def no_bet_coups_order(*, table: Table, actor: User | None, count: int, reason: str) -> Table:
    """The next ``count`` coups take no bets (seed 000 §3.1.2, §5.1.6)."""
    if not isinstance(count, int) or not 1 <= count <= 10:
        raise TableError("order between 1 and 10 no-bet coups")
    table = _locked(table)
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


# --- Personal limit markers and dealers ---------------------------------------------------


@transaction.atomic
def limit_marker_grant(
    *,
    table: Table,
    player: User,
    minimum: object,
    maximum: object,
    actor: User | None,
    valid_from: datetime | None = None,
    valid_until: datetime | None = None,
    reason: str = "",
) -> PersonalLimitMarker:
    low, high = _money(minimum, "the minimum"), _money(maximum, "the maximum")
    if high < low:
        raise TableError(f"the maximum {high} is below the minimum {low}")
    valid_from = valid_from or timezone.now()
    if valid_until is not None and valid_until <= valid_from:
        raise TableError("a marker must end after it starts")
    marker = PersonalLimitMarker.objects.create(
        table=table,
        player=player,
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
        after={"player": player.get_username(), "min": str(low), "max": str(high)},
        reason=reason,
    )
    return marker


@transaction.atomic
def limit_marker_revoke(*, marker: PersonalLimitMarker, actor: User | None, reason: str) -> PersonalLimitMarker:
    marker = PersonalLimitMarker.objects.select_for_update().get(pk=marker.pk)
    if marker.revoked_at is not None:
        raise TableError("this marker is already revoked")
    marker.revoked_at = timezone.now()
    marker.save(update_fields=["revoked_at"])
    audit_record(action="limit_marker_revoked", actor=actor, table=marker.table, obj=marker, reason=reason)
    return marker


@transaction.atomic
def dealer_login(*, table: Table, dealer: User, actor: User | None = None) -> DealerSession:
    """A dealer takes the table; the one before (if any) is logged out (rotation)."""
    table = _locked(table)
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
    table = _locked(table)
    session = table.dealer_sessions.filter(ended_at__isnull=True).first()
    if session is None:
        raise TableError(f"no dealer is logged in at {table.code}")
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
        raise TableError("a nickname is text")
    nickname = nickname.strip()
    if not user.is_authenticated or user.is_staff:
        raise TableError("only players have a nickname")
    if nickname:
        staff = get_user_model().objects.filter(is_staff=True).values_list("username", flat=True)
        problem = nickname_problem(nickname, staff_usernames={username.casefold() for username in staff})
        if problem:
            raise TableError(problem)
    profile, _ = PlayerProfile.objects.select_for_update().get_or_create(user=user)
    before = profile.nickname
    profile.nickname = nickname
    profile.save(update_fields=["nickname", "updated_at"])
    audit_record(
        action="player_nickname_set", actor=user, obj=profile, before={"nickname": before}, after={"nickname": nickname}
    )
    return profile


# --- Shoes -------------------------------------------------------------------------------


@transaction.atomic
def shoe_prepare(
    *, table: Table, actor: User | None = None, shuffle_method: str | None = None, seal_number: str = ""
) -> Shoe:
    """A new shoe for the table: an RNG order for automatic tables, a physical shoe for dealer tables."""
    table = _locked(table)
    automatic = table.dealing_mode == Table.DealingMode.AUTOMATIC
    method = shuffle_method or (Shoe.ShuffleMethod.RNG if automatic else Shoe.ShuffleMethod.TABLE)
    if automatic != (method == Shoe.ShuffleMethod.RNG):
        raise TableError("automatic tables use RNG shoes; dealer tables use physical shoes")
    if method == Shoe.ShuffleMethod.PRELIMINARY and not seal_number:
        raise TableError("a preliminary (sealed) shuffle needs its seal number")
    table.shoes.filter(state=Shoe.State.PREPARED).update(state=Shoe.State.DISCARDED)
    last = table.shoes.order_by("-number").values_list("number", flat=True).first() or 0
    order, salt = (new_shoe_order(table.decks), new_salt()) if automatic else ([], "")
    shoe = Shoe.objects.create(
        table=table,
        number=last + 1,
        decks=table.decks,
        shuffle_method=method,
        seal_number=seal_number,
        card_order_encrypted=encrypt(" ".join(card.code for card in order)),
        commitment=shoe_commitment(order, salt) if automatic else "",
        salt_encrypted=encrypt(salt),
        cut_card_position=table.decks * 52 - table.cut_card_from_bottom,
        cut_card_rule=table.cut_card_rule,
        prepared_by=actor if actor is not None and actor.is_authenticated else None,
    )
    audit_record(
        action="shoe_prepared",
        actor=actor,
        table=table,
        obj=shoe,
        after={
            "number": shoe.number,
            "decks": shoe.decks,
            "shuffle": method,
            "seal": seal_number,
            "commitment": shoe.commitment,
        },
    )
    return shoe


@transaction.atomic
def shoe_start(*, shoe: Shoe, actor: User | None = None, burn_card: str | None = None) -> Shoe:
    """Put a prepared shoe in play with the table's burn procedure.

    Burn by card (seed 000 §3.1.1): an RNG shoe burns from its order; at a dealer table
    the dealer enters the card shown and burns that many. Or three no-bet coups (§3.1.2).
    """
    shoe = Shoe.objects.select_for_update().select_related("table").get(pk=shoe.pk)
    table = _locked(shoe.table)
    if shoe.state != Shoe.State.PREPARED:
        raise TableError(f"shoe {shoe.number} is {shoe.state}, not prepared")
    if table_shoe_in_play(table=table) is not None:
        raise TableError(f"table {table.code} already has a shoe in play")
    if table.burn_procedure == game_rules.BURN_NO_BET_COUPS:
        table.no_bet_coups_ordered += game_rules.NO_BET_COUPS_AT_START
        table.save(update_fields=["no_bet_coups_ordered"])
    elif shoe.has_card_order:
        dealer = ShoeDealer(shoe.cards, cut_card_position=shoe.cut_card_position, cut_card_rule=shoe.cut_card_rule)
        burn = dealer.burn()
        shoe.burn_shown, shoe.burned_cards_encrypted = burn.shown.code, encrypt(" ".join(c.code for c in burn.burned))
        shoe.position, shoe.last_coup = dealer.state.position, dealer.state.last_coup
    else:
        if burn_card is None:
            raise TableError("enter the card shown for the burn")
        shown = Card.parse(burn_card)
        shoe.burn_shown, shoe.position = shown.code, 1 + burn_count(shown)
    shoe.state, shoe.started_at = Shoe.State.IN_PLAY, timezone.now()
    shoe.save()
    audit_record(
        action="shoe_started",
        actor=actor,
        table=table,
        obj=shoe,
        after={
            "number": shoe.number,
            "burn_shown": shoe.burn_shown,
            "burned": shoe.position,
            "burn": table.burn_procedure,
        },
    )
    table_event_send(
        table_code=table.code,
        event_type="shoe_change",
        data={"shoe": shoe.number, "burn_shown": shoe.burn_shown, "commitment": shoe.commitment},
    )
    return shoe


@transaction.atomic
def shoe_finish(*, shoe: Shoe, actor: User | None = None, discard: bool = False, reason: str = "") -> Shoe:
    shoe = Shoe.objects.select_for_update().get(pk=shoe.pk)
    if shoe.state in (Shoe.State.FINISHED, Shoe.State.DISCARDED):
        raise TableError(f"shoe {shoe.number} is already {shoe.state}")
    if shoe.coups.filter(state__in=Coup.LIVE_STATES).exists():
        raise TableError(f"shoe {shoe.number} has a coup in progress")
    from tables.holds import kept_card_discard

    kept_card_discard(shoe=shoe, actor=actor)
    shoe.state = Shoe.State.DISCARDED if discard else Shoe.State.FINISHED
    shoe.finished_at = timezone.now()
    shoe.save(update_fields=["state", "finished_at"])
    audit_record(
        action="shoe_discarded" if discard else "shoe_finished",
        actor=actor,
        table=shoe.table,
        obj=shoe,
        after={"number": shoe.number, "coups": shoe.coups_started, "cards_used": shoe.position},
        reason=reason,
    )
    return shoe


@transaction.atomic
def shoe_replace(*, table: Table, actor: User | None, reason: str) -> Shoe:
    """Replace the cards (seed 000 §3.3 A): void a coup in progress, discard the shoe, prepare a new one.

    A coup in progress is void for the listed dealing error "cards replaced", the reason as its note.
    """
    if not reason:
        raise TableError("replacing the cards needs a reason")
    table = _locked(table)
    live = table_live_coup(table=table)
    if live is not None:
        coup_void(coup=live, actor=actor, dealing_error=VoidReason.CARDS_REPLACED, reason=reason)
    shoe = table_shoe_in_play(table=table)
    if shoe is not None:
        shoe_finish(shoe=shoe, actor=actor, discard=True, reason=reason)
    new = shoe_prepare(table=table, actor=actor)
    audit_record(action="cards_replaced", actor=actor, table=table, obj=new, reason=reason)
    return new


@transaction.atomic
def shoe_secrets_reencrypt(*, actor: User | None = None) -> int:
    """Key rotation: every RNG shoe's order, salt and burned cards encrypted again with the first key."""
    shoes = list(Shoe.objects.select_for_update().exclude(card_order_encrypted="").order_by("pk"))
    for shoe in shoes:
        shoe.card_order_encrypted = reencrypt(shoe.card_order_encrypted)
        shoe.salt_encrypted = reencrypt(shoe.salt_encrypted)
        shoe.burned_cards_encrypted = reencrypt(shoe.burned_cards_encrypted)
    Shoe.objects.bulk_update(shoes, ["card_order_encrypted", "salt_encrypted", "burned_cards_encrypted"])
    audit_record(action="shoe_secrets_reencrypted", actor=actor, actor_label="system", after={"shoes": len(shoes)})
    return len(shoes)


# --- Coups -------------------------------------------------------------------------------


def _shoe_dealer(shoe: Shoe, cards_in_coup: int = 0) -> ShoeDealer:
    state = ShoeState(
        position=shoe.position, coups_started=shoe.coups_started, cards_in_coup=cards_in_coup, last_coup=shoe.last_coup
    )
    return ShoeDealer(
        shoe.cards, cut_card_position=shoe.cut_card_position, cut_card_rule=shoe.cut_card_rule, state=state
    )


def shoe_is_finished(*, shoe: Shoe) -> bool:
    """Whether the cut card rule (or, for an RNG shoe, the last card) has ended the shoe."""
    if shoe.last_coup is not None and shoe.coups_started >= shoe.last_coup:
        return True
    return shoe.has_card_order and _shoe_dealer(shoe).finished


@transaction.atomic
def shoe_cut_card_out(*, shoe: Shoe, actor: User | None) -> Shoe:
    """The dealer reports the cut card of a physical shoe (an RNG shoe knows where its cut card is).

    Out before a coup's first card: that coup is the last; during a coup: by the table's rule.
    """
    shoe = Shoe.objects.select_for_update().select_related("table").get(pk=shoe.pk)
    if shoe.state != Shoe.State.IN_PLAY or shoe.has_card_order:
        raise TableError("only a physical shoe in play reports its cut card")
    if shoe.last_coup is not None:
        raise TableError(f"the cut card of shoe {shoe.number} is already out")
    live = table_live_coup(table=shoe.table)
    if live is None or not live.cards.exists():
        shoe.last_coup = shoe.coups_started + (0 if live is not None else 1)
    elif shoe.cut_card_rule == game_rules.CUT_END_OF_COUP:
        shoe.last_coup = live.number
    else:
        shoe.last_coup = live.number + 1
    shoe.save(update_fields=["last_coup"])
    audit_record(action="cut_card_out", actor=actor, table=shoe.table, obj=shoe, after={"last_coup": shoe.last_coup})
    return shoe


@transaction.atomic
def coup_open(*, table: Table, actor: User | None = None) -> Coup:
    """Open the next coup for betting, with a server deadline (no-bet coups close at once)."""
    table = _locked(table)
    if not table.is_open:
        raise TableError(f"table {table.code} is closed")
    if table_live_coup(table=table) is not None:
        raise TableError(f"table {table.code} already has a coup in progress")
    shoe = table_shoe_in_play(table=table)
    if shoe is None:
        raise TableError(f"table {table.code} has no shoe in play")
    shoe = Shoe.objects.select_for_update().get(pk=shoe.pk)
    if shoe_is_finished(shoe=shoe):
        raise TableError(f"shoe {shoe.number} is finished: the cut card has come out")
    no_bet = table.no_bet_coups_ordered > 0
    if no_bet:
        table.no_bet_coups_ordered -= 1
        table.save(update_fields=["no_bet_coups_ordered"])
    shoe.coups_started += 1
    shoe.save(update_fields=["coups_started"])
    now = timezone.now()
    session = table.dealer_sessions.filter(ended_at__isnull=True).first()
    coup = Coup.objects.create(
        table=table,
        shoe=shoe,
        number=shoe.coups_started,
        round_id=Coup.new_round_id(table.code),
        no_bet=no_bet,
        rules=coup_rules_snapshot(table=table),
        betting_closes_at=now if no_bet else now + timedelta(seconds=table.betting_seconds),
        dealer=session.dealer if session else None,
    )
    if no_bet:
        audit_record(action="no_bet_coup", actor=actor, table=table, obj=coup, after={"round_id": coup.round_id})
    table_event_send(table_code=table.code, event_type="betting_open", data=coup_public(coup=coup))
    return coup


def coup_locked(coup: Coup) -> Coup:
    """Lock the coup's table, its shoe and the coup, in that order (the documented lock order: a coup locked
    before its table could deadlock with a pit boss's hold or a shoe change). The table and the shoe are
    locked FOR NO KEY UPDATE: a placement holding the coup's lock still takes the key share its rows'
    foreign keys need (an exclusive lock here would make a void and a placement wait for each other)."""
    Table.objects.select_for_update(no_key=True).filter(pk=coup.table_id).values_list("pk").get()
    Shoe.objects.select_for_update(no_key=True).filter(pk=coup.shoe_id).values_list("pk").get()
    return Coup.objects.select_for_update(of=("self",)).select_related("table", "shoe").get(pk=coup.pk)


@transaction.atomic
def coup_close_betting(*, coup: Coup, actor: User | None = None) -> Coup:
    """'No more bets' (seed 000 §6.1.4): from now bets can be neither made, changed nor removed."""
    from tables.holds import kept_card_deal
    from wagering.selectors import coup_top_bettors

    coup = coup_locked(coup)
    if coup.state != Coup.State.BETTING:
        raise TableError(f"coup {coup.round_id} is {coup.state}, not taking bets")
    shown_by = coup_top_bettors(coup=coup)  # seed 000 §5.1: the highest bet on each hand shows it
    coup.player_shown_by, coup.banker_shown_by = shown_by.get("player"), shown_by.get("banker")
    coup.state, coup.closed_at = Coup.State.NO_MORE_BETS, timezone.now()
    coup.save(update_fields=["state", "closed_at", "player_shown_by", "banker_shown_by"])
    table_event_send(
        table_code=coup.table.code,
        event_type="no_more_bets",
        data={"round_id": coup.round_id, "shown_by": _shown_by(coup)},
    )
    kept_card_deal(coup=coup)  # a card the pit kept for this coup (seed 000 §4.3) is its first
    return coup


def _shown_by(coup: Coup) -> dict:
    """Who shows each hand, as the table sees them: players by display name, never by username."""
    shown_by = {"player": coup.player_shown_by, "banker": coup.banker_shown_by}
    names = player_display_names(users=[user for user in shown_by.values() if user is not None])
    return {hand: names[user.pk] if user else "dealer" for hand, user in shown_by.items()}


@transaction.atomic
def coup_deal_card(
    *, coup: Coup, card: str | None = None, hand: str | None = None, actor: User | None = None
) -> DealtCard | HeldCard:
    """Deal the next card: from the RNG shoe, or as a dealer enters it (``card``, ``hand``).

    A card entered for the wrong hand is not re-ordered here: it has left the shoe, and the coup is
    held until a pit boss decides (seed 000 §4.2-4.3, ``tables.holds``); it is returned as a ``HeldCard``.
    """
    from tables.holds import coup_hold_for_card

    if hand not in (None, *HANDS):
        raise TableError(f"a card is dealt to the player or the banker hand, not {hand!r}")
    coup = coup_locked(coup)
    if coup.state not in (Coup.State.NO_MORE_BETS, Coup.State.DEALING):
        raise TableError(f"coup {coup.round_id} is {coup.get_state_display().lower()}: no card can be dealt")
    shoe = Shoe.objects.select_for_update().get(pk=coup.shoe_id)
    deal = coup_deal_state(coup=coup)
    expected = deal.next_hand()
    if expected is None:
        raise TableError(f"coup {coup.round_id} is complete: resolve it")
    if shoe.has_card_order:
        if card is not None or hand is not None:
            raise TableError("an automatic table deals from its RNG shoe: no card is entered")
        dealer = _shoe_dealer(shoe, cards_in_coup=len(deal.order))
        drawn = dealer.draw()
        shoe.position, shoe.last_coup = dealer.state.position, dealer.state.last_coup
    else:
        if card is None:
            raise TableError("enter the card dealt")
        drawn = Card.parse(card)
        _card_copies_check(shoe=shoe, card=drawn)
        if hand not in (None, expected):
            return coup_hold_for_card(
                coup=coup, shoe=shoe, card=drawn, entered_for=hand, next_hand=expected, actor=actor
            )
        if actor is not None:
            audit_record(
                action="card_entered",
                actor=actor,
                table=coup.table,
                obj=coup,
                after={"card": drawn.code, "hand": expected},
            )
        shoe.position += 1
    deal.add(drawn)
    dealt = DealtCard.objects.create(
        coup=coup,
        shoe=shoe,
        position=len(deal.order) - 1,
        shoe_position=shoe.position - 1,
        hand=expected,
        card=drawn.code,
        entered_by=actor if actor is not None and actor.is_authenticated else None,
    )
    shoe.save(update_fields=["position", "last_coup"])
    if coup.state != Coup.State.DEALING:
        coup.state = Coup.State.DEALING
        coup.save(update_fields=["state"])
    if shoe.last_coup is not None and shoe.last_coup == coup.number and len(deal.order) == 1:
        audit_record(action="cut_card_out", table=coup.table, obj=shoe, after={"last_coup": shoe.last_coup})
    card_event_send(coup=coup, dealt=dealt, deal=deal)
    return dealt


def _card_copies_check(*, shoe: Shoe, card: Card) -> None:
    """A physical shoe holds ``decks`` copies of each card: one more cannot have come out of it."""
    out = (
        DealtCard.objects.filter(shoe=shoe, card=card.code).count()
        + HeldCard.objects.filter(shoe=shoe, card=card.code, dealt_card__isnull=True).count()
        + (shoe.burn_shown == card.code)
    )
    if out >= shoe.decks:
        raise TableError(
            f"{card.code} cannot come out of shoe {shoe.number}: its {shoe.decks} decks hold {shoe.decks} "
            f"and {out} are already out"
        )


def card_event_send(*, coup: Coup, dealt: DealtCard, deal: CoupDeal) -> None:
    table_event_send(
        table_code=coup.table.code,
        event_type="card",
        data={
            "round_id": coup.round_id,
            "position": dealt.position,
            "hand": dealt.hand,
            "card": dealt.card,
            "player_total": sum(c.value for c in deal.player) % 10,
            "banker_total": sum(c.value for c in deal.banker) % 10,
            "next": deal.next_hand(),
        },
    )


@transaction.atomic
def coup_resolve(*, coup: Coup) -> Coup:
    """Record the result from the cards actually dealt (seed 000 §7.1) and hand over to settlement."""
    from wagering.tasks import coup_settle

    coup = coup_locked(coup)
    if coup.state != Coup.State.DEALING:
        raise TableError(f"coup {coup.round_id} is {coup.state}, not dealing")
    deal = coup_deal_state(coup=coup)
    if not deal.complete:
        raise TableError(f"coup {coup.round_id} is not complete: the {deal.next_hand()} hand takes another card")
    result = deal.result()
    coup.player_total, coup.banker_total, coup.winner = result.player_total, result.banker_total, result.winner
    coup.player_pair, coup.banker_pair, coup.natural = result.player_pair, result.banker_pair, result.natural
    coup.state, coup.resolved_at = Coup.State.RESOLVED, timezone.now()
    coup.save()
    table_event_send(table_code=coup.table.code, event_type="result", data=coup_public(coup=coup))
    shoe_road_add_coup(coup=coup)
    coup_id = coup.pk
    transaction.on_commit(lambda: coup_settle.delay(coup_id), robust=True)  # broker down: the loop sends it again
    return coup


@transaction.atomic
def coup_mark_settled(*, coup: Coup) -> Coup:
    """Called by settlement, inside its transaction, once every bet is paid."""
    coup = coup_locked(coup)
    if coup.state != Coup.State.RESOLVED:
        raise TableError(f"coup {coup.round_id} is {coup.state}, not resolved")
    coup.state, coup.settled_at = Coup.State.SETTLED, timezone.now()
    coup.save(update_fields=["state", "settled_at"])
    return coup


@transaction.atomic
def coup_void(*, coup: Coup, actor: User | None, reason: str = "", dealing_error: str = "") -> Coup:
    """Void a coup and refund every bet on it, as far as its result's lifecycle allows.

    Before its first card: for any reason. Once a card is out (dealing, or held): only for a listed
    dealing error (``VoidReason``, seed 000 §4, §3.3), ``reason`` being an optional note. Once the
    result is recorded (resolved, settled): never; only a result correction changes it.
    """
    from tables.holds import held_card_discard
    from wagering.services import coup_bets_refund

    if dealing_error and dealing_error not in VoidReason.values:
        raise TableError(f"{dealing_error!r} is not a listed dealing error")
    coup = coup_locked(coup)
    if coup.state in (Coup.State.RESOLVED, Coup.State.SETTLED):
        raise TableError(
            f"coup {coup.round_id} is {coup.state}: its result is recorded and cannot be voided; "
            "only a result correction can change it"
        )
    if coup.state == Coup.State.VOID:
        raise TableError(f"coup {coup.round_id} is void and cannot be voided")
    cards_out = coup.cards.exists() or coup.held_cards.exists()
    if cards_out and not dealing_error:
        listed = "; ".join(str(label) for label in VoidReason.labels)
        raise TableError(f"coup {coup.round_id} has cards out: it is void only for a listed dealing error ({listed})")
    if not (dealing_error or reason.strip()):
        raise TableError("voiding a coup needs a reason")
    text = ": ".join(part for part in (dealing_error and VoidReason(dealing_error).label, reason.strip()) if part)
    before = {"state": coup.state}
    held_card_discard(coup=coup, actor=actor)
    coup_bets_refund(coup=coup)
    coup.state, coup.voided_at, coup.void_reason = Coup.State.VOID, timezone.now(), text
    coup.save(update_fields=["state", "voided_at", "void_reason"])
    webhook_events_enqueue(coup=coup, kind=VOID)
    audit_record(
        action="coup_voided",
        actor=actor,
        table=coup.table,
        obj=coup,
        before=before,
        after={"state": "void", "dealing_error": dealing_error},
        reason=text,
    )
    table_event_send(
        table_code=coup.table.code, event_type="coup_void", data={"round_id": coup.round_id, "reason": text}
    )
    return coup
