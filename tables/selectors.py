"""Reads of the floor: no writes here."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from functools import cache

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import connection
from django.db.models import Max, Prefetch, Q, QuerySet

from baccarat.cards import Card
from baccarat.coup import CoupDeal
from baccarat.fairness import commitment_matches
from baccarat.rules import BetLimits, CoupRules, CurrencyLimits, TableRules
from baccarat.shoe import ShoeDealer, ShoeState, burn_count
from kernel.errors import ErrorCode
from kernel.raw_rows import columns_sql, orm_values, prepared_cursor, sql_literal
from tables.errors import TableError
from tables.models import (
    BetLimit,
    Coup,
    CoupVoidRequest,
    DealerSession,
    LimitSet,
    Pit,
    PlayerProfile,
    SeatSession,
    Shoe,
    Table,
)
from tables.players import default_display_name


def table_coup_rules(*, table: Table) -> CoupRules:
    """The rules and limits a coup opened now at the table would play by."""
    return CoupRules(
        table=TableRules(
            decks=table.decks,
            burn=table.burn_procedure,
            cut_card_from_bottom=table.cut_card_from_bottom,
            cut_card_rule=table.cut_card_rule,
            commission=table.commission,
            tie_pays=table.tie_pays,
            side_bets=tuple(table.side_bets),
            forbid_player_and_banker=table.forbid_player_and_banker,
            patrons_hold_shoe=table.patrons_hold_shoe,
            tie_shoe_stays=table.tie_shoe_stays,
        ),
        betting_seconds=table.betting_seconds,
        currencies=_table_limits(table_id=table.pk),
    )


def _table_limits(*, table_id: int) -> dict[str, CurrencyLimits]:
    """The table's limits by currency (its limit sets and their bet limits, in the models' order), in one raw
    statement: every coup opened reads them (a private coup at each deal), two ORM queries cost ten times more."""
    limits: dict[str, tuple[Decimal, dict[str, BetLimits]]] = {}
    with prepared_cursor() as cursor:
        cursor.execute(_table_limits_sql(), [table_id])
        rows = cursor.fetchall()
    for row in rows:
        currency, max_differential = orm_values(LimitSet, _LIMIT_SET_READ, row[:2])
        _, by_type = limits.setdefault(currency, (max_differential, {}))
        if row[2] is not None:  # a limit set of no bet limits yet
            bet_type, minimum, maximum, table_maximum = orm_values(BetLimit, _BET_LIMIT_READ, row[2:])
            by_type[bet_type] = BetLimits(minimum=minimum, maximum=maximum, table_maximum=table_maximum)
    return {
        currency: CurrencyLimits(max_differential=max_differential, limits=by_type)
        for currency, (max_differential, by_type) in limits.items()
    }


_LIMIT_SET_READ = ("currency", "max_differential")
_BET_LIMIT_READ = ("bet_type", "minimum", "maximum", "table_maximum")


@cache
def _table_limits_sql() -> str:
    quote = connection.ops.quote_name  # names of ours, not input
    limit_sets, bet_limits = quote(LimitSet._meta.db_table), quote(BetLimit._meta.db_table)
    return (
        f"SELECT {columns_sql(LimitSet, _LIMIT_SET_READ, alias='s')}, "  # noqa: S608
        f"{columns_sql(BetLimit, _BET_LIMIT_READ, alias='l')} "
        f"FROM {limit_sets} s LEFT JOIN {bet_limits} l ON l.limit_set_id = s.id "
        "WHERE s.table_id = %s ORDER BY s.currency, l.id"
    )


def coup_rules(*, coup: Coup) -> CoupRules:
    """The rules and limits the coup plays by, as frozen when it opened."""
    return rules_from_snapshot(coup.rules)


def rules_from_snapshot(snapshot: dict) -> CoupRules:
    """A coup's stored rules (``Coup.rules``); the oldest snapshots had their limits in the house currency."""
    return CoupRules.from_json(snapshot, legacy_currency=settings.HOUSE_CURRENCY)


def table_currencies(*, table: Table) -> list[str]:
    """The currencies the table takes bets in: those it has limits for."""
    return list(table.limit_sets.values_list("currency", flat=True))


def table_chips(*, table: Table, currency: str) -> list[int]:
    """The chips offered to a player betting in ``currency``: the table's up to its highest maximum stake
    there (the smallest chip at least)."""
    highest = BetLimit.objects.filter(limit_set__table=table, limit_set__currency=currency).aggregate(
        highest=Max("maximum")
    )["highest"]
    if highest is None:
        return list(table.chip_values)
    return [value for value in table.chip_values if value <= highest] or table.chip_values[:1]


def table_live_coup(*, table: Table) -> Coup | None:
    """The table's coup in progress (a private coup of a table dealt on demand is never one)."""
    return table.coups.table_wide().filter(state__in=Coup.LIVE_STATES).first()


def table_live_coup_named(*, table: Table, round_id: str) -> Coup:
    """The coup in progress at the table, if it is the one a page showed (``round_id``): a stale page or a
    double submit never acts on another coup (``TableError`` page_out_of_date)."""
    coup = table_live_coup(table=table)
    if coup is None or coup.round_id != round_id:
        raise TableError(
            f"coup {round_id} is no longer the coup in progress: the page was out of date",
            code=ErrorCode.PAGE_OUT_OF_DATE,
        )
    return coup


# What a bet request reads of its table and live coup (the coup's rules included), in the models' field order
# (``Model.from_db`` takes them so); any other field is read from the database if asked for (deferred).
_TABLE_READ = ("id", "code", "name", "dealing_mode")  # the mode: a table dealt on demand takes no bets
_COUP_READ = (
    *("id", "table_id", "shoe_id", "player_id", "number", "round_id"),
    *("state", "no_bet", "rules", "betting_closes_at", "opened_at"),
)


def table_with_live_coup(*, code: str) -> tuple[Table | None, Coup | None]:
    """The table by its code and its live coup, in one statement of raw columns: every bet request reads them,
    and an ORM query costs ten times as much to build as to run."""
    with prepared_cursor() as cursor:
        cursor.execute(_table_with_live_coup_sql(), [code])
        row = cursor.fetchone()
    if row is None:
        return None, None
    table = Table.from_db(connection.alias, _TABLE_READ, row[: len(_TABLE_READ)])
    values = row[len(_TABLE_READ) :]
    if values[0] is None:
        return table, None
    coup = Coup.from_db(connection.alias, _COUP_READ, orm_values(Coup, _COUP_READ, values))
    coup.table = table
    return table, coup


def table_with_live_coup_for_batch(
    *, code: str, reads: list[tuple[Table | None, Coup | None]]
) -> tuple[Table | None, Coup | None]:
    """The table and live coup a batch of bet requests is carried out on: as its requests' threads read them
    (``reads``: then the first of them itself) if each did and all found the same coup (its state is read again
    under its lock); else read once here, for all. A batch never holds two coups' locks: requests that read a coup
    which rolled over meanwhile are carried out on the new one, as when every batch read it."""
    coups_read = {live.pk if live is not None else None for _, live in reads}
    if all(table is not None for table, _ in reads) and len(coups_read) == 1:
        return reads[0]
    return table_with_live_coup(code=code)


@cache
def _table_with_live_coup_sql() -> str:
    quote = connection.ops.quote_name
    states = ", ".join(sql_literal(state.value) for state in Coup.LIVE_STATES)  # one_live_coup_per_table's
    table_columns = columns_sql(Table, _TABLE_READ, alias="t")
    coup_columns = columns_sql(Coup, _COUP_READ, alias="c")
    tables, coups = quote(Table._meta.db_table), quote(Coup._meta.db_table)  # names of ours, not input
    return (
        f"SELECT {table_columns}, {coup_columns} FROM {tables} t LEFT JOIN {coups} c"  # noqa: S608
        f" ON c.table_id = t.id AND c.state IN ({states}) AND c.player_id IS NULL WHERE t.code = %s"
    )


def table_current_coup(*, table: Table) -> Coup | None:
    """The live coup, else the latest one."""
    return table_live_coup(table=table) or table.coups.table_wide().order_by("-id").first()


def table_shoe_in_play(*, table: Table) -> Shoe | None:
    """The table's shoe in play (a player's private shoe at a table dealt on demand is never the table's)."""
    return table.shoes.table_wide().filter(state=Shoe.State.IN_PLAY).first()


def table_shoe_shuffled(*, table: Table) -> Shoe | None:
    """A physical shoe shuffled (its shuffle recorded) and waiting for its cut: its cut was cancelled."""
    waiting = table.shoes.filter(state=Shoe.State.PREPARED, card_order_encrypted="", decks_complete__isnull=False)
    return waiting.order_by("-number").first()


def table_dealer(*, table: Table) -> DealerSession | None:
    return table.dealer_sessions.filter(ended_at__isnull=True).select_related("dealer").first()


@dataclass(frozen=True)
class PitTables:
    """A pit and its tables, open ones first; ``pit`` None: the tables in no pit."""

    pit: Pit | None
    tables: list[Table]


def user_oversees_floor(*, user: AbstractBaseUser) -> bool:
    """A floor manager, who sets up the pits (``tables.change_pit``; a superuser has it), oversees every pit."""
    return user.has_perm("tables.change_pit")


def pits_supervised(*, user: AbstractBaseUser) -> list[PitTables]:
    """The pits the user supervises with their tables (a floor manager's: every pit), then the tables in no pit,
    which are every pit boss's care as in ``table_supervised_by``: a floor upgraded before its pits are set up
    keeps its pit screen."""
    everything = user_oversees_floor(user=user)
    pits = Pit.objects.all() if everything else Pit.objects.filter(bosses=user)
    by_state = Table.objects.order_by("-is_open", "code")
    pits = pits.prefetch_related(Prefetch("tables", queryset=by_state))
    groups = [PitTables(pit=pit, tables=list(pit.tables.all())) for pit in pits]
    loose = list(by_state.filter(pit=None))
    if loose:
        groups.append(PitTables(pit=None, tables=loose))
    return groups


def table_supervised_by(*, table: Table, user: AbstractBaseUser) -> bool:
    """The table is in the user's care: in a pit they supervise, or in no pit (any pit boss's until a floor
    manager puts it in one); a floor manager's, anywhere. Whether they are a pit boss at all is the caller's."""
    if table.pit_id is None or user_oversees_floor(user=user):
        return True
    return Pit.objects.filter(pk=table.pit_id, bosses=user).exists()


def tables_supervised_by(*, user: AbstractBaseUser) -> QuerySet[Table]:
    """The tables in the user's care, as ``table_supervised_by`` says of one."""
    if user_oversees_floor(user=user):
        return Table.objects.all()
    return Table.objects.filter(Q(pit=None) | Q(pit__bosses=user)).distinct()


def table_seated(*, table: Table) -> list[SeatSession]:
    """The patrons seated at the table now, by seat."""
    sessions = SeatSession.objects.filter(table=table, ended_at__isnull=True).select_related("seat", "player")
    return list(sessions.order_by("seat__number"))


def table_seats_public(*, table: Table) -> list[dict]:
    """Who sits where, as players see it: a known player by display name, a guest as "Seat 4 guest"."""
    seated = table_seated(table=table)
    names = player_display_names(users=[session.player for session in seated if session.player is not None])
    return [
        {
            "seat": session.seat.number,
            "patron": names[session.player_id] if session.player_id else f"Seat {session.seat.number} guest",
            "guest": session.player_id is None,
        }
        for session in seated
    ]


def table_shoe_holder_public(*, table: Table) -> dict:
    """Who holds the shoe, as players see it (the snapshot's and the ``shoe_holder`` event's): the seat, or None
    (the croupier)."""
    if table.shoe_holder_id is None:
        return {"seat": None}
    return {"seat": SeatSession.objects.filter(pk=table.shoe_holder_id).values_list("seat__number", flat=True).get()}


def player_display_names(*, users: Iterable[AbstractBaseUser]) -> dict[int, str]:
    """How each player appears to the others (``tables.players``), by user id: one query."""
    users = {user.pk: user for user in users}
    nicknames = dict(
        PlayerProfile.objects.filter(user_id__in=users).exclude(nickname="").values_list("user_id", "nickname")
    )
    return {
        user_id: nicknames.get(user_id) or default_display_name(user_id=user_id, username=user.get_username())
        for user_id, user in users.items()
    }


def player_display_name(*, user: AbstractBaseUser) -> str:
    return player_display_names(users=[user])[user.pk]


def coup_shown_by(*, coup: Coup) -> dict[str, str]:
    """Who shows each hand (seed 000 §5.1), as the table sees them: an online player by display name (never
    a username), a seated patron by seat ("Seat 3"), else "dealer"."""
    users = [user for user in (coup.player_shown_by, coup.banker_shown_by) if user is not None]
    names = player_display_names(users=users)
    shown_by = {}
    for hand in ("player", "banker"):
        user, seat = getattr(coup, f"{hand}_shown_by"), getattr(coup, f"{hand}_shown_by_seat")
        shown_by[hand] = names[user.pk] if user else f"Seat {seat.seat.number}" if seat else "dealer"
    return shown_by


def coup_hands_shown_by_players(*, coup: Coup) -> dict[int, list[str]]:
    """The hands each online player shows, by user id (told to them alone: their ``you_show`` event)."""
    hands_shown: dict[int, list[str]] = {}
    for hand in ("player", "banker"):
        user_id = getattr(coup, f"{hand}_shown_by_id")
        if user_id is not None:
            hands_shown.setdefault(user_id, []).append(hand)
    return hands_shown


def coup_public(*, coup: Coup) -> dict:
    """A coup as players see it: never the shoe's card order."""
    if coup.corrected_at is not None:  # the corrected cards; the dealt ones stay on record in the admin
        cards = [
            {"position": position, "hand": hand, "card": card.code}
            for position, (hand, card) in enumerate(coup.result().dealing_order())
        ]
    else:
        cards = [{"position": c.position, "hand": c.hand, "card": c.card} for c in coup.cards.all()]
    return {
        "round_id": coup.round_id,
        "number": coup.number,
        "shoe": coup.shoe.number,
        "state": coup.state,
        "no_bet": coup.no_bet,
        "betting_closes_at": coup.betting_closes_at.isoformat() if coup.betting_closes_at else None,
        "cards": cards,
        "player_total": coup.player_total,
        "banker_total": coup.banker_total,
        "winner": coup.winner or None,
        "player_pair": coup.player_pair,
        "banker_pair": coup.banker_pair,
        "natural": coup.natural,
        "shown_by": None if coup.state in (Coup.State.BETTING, Coup.State.VOID) else coup_shown_by(coup=coup),
        "banker_shown_first": coup.banker_shown_first,
    }


# Seed 000 §4.1: cards 1-4 are the Player's and the Banker's first two, dealt P B P B before any third card.
FIRST_CARDS = 4


def coup_first_cards_seen(*, coup: Coup) -> bool:
    """The players have seen a card of the Player's or the Banker's first two. Every dealt card goes to the
    table face up as it is recorded (``card`` event, ``coup_public``; the one player who squeezes a hand gets it
    face down, everyone else face up); a card held for the pit (entered for the wrong hand) is not shown."""
    return coup.cards.filter(position__lt=FIRST_CARDS).exists()


def coup_void_request_pending(*, coup: Coup) -> CoupVoidRequest | None:
    """The coup's void request waiting for a decision (at most one)."""
    return coup.void_requests.filter(state=CoupVoidRequest.State.PENDING).select_related("requested_by").first()


def shoe_public(*, shoe: Shoe | None) -> dict | None:
    """The shoe as players see it: its number, the burn card shown and how many cards it burned face down,
    and once the cut card is out the number of the last coup (seed 000; never where the cut card lies)."""
    if shoe is None:
        return None
    return {
        "number": shoe.number,
        "burn_shown": shoe.burn_shown or None,
        "burned": burn_count(Card.parse(shoe.burn_shown)) if shoe.burn_shown else 0,
        "last_coup": shoe.last_coup,
    }


def coup_deal_state(*, coup: Coup) -> CoupDeal:
    """The coup's cards so far, replayed through the dealing order (it says which hand is next)."""
    deal = CoupDeal()
    for dealt in coup.cards.all():
        deal.add(Card.parse(dealt.card), hand=dealt.hand)
    return deal


@dataclass(frozen=True)
class ShoeVerification:
    commitment_ok: bool
    coups_checked: int
    mismatches: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return self.commitment_ok and not self.mismatches


def shoe_verify(*, shoe: Shoe) -> ShoeVerification:
    """Check a revealed RNG shoe: its commitment, and every card dealt and coup result against the order."""
    revealed = shoe.reveal()
    order = [Card.parse(code) for code in revealed.card_order]
    mismatches = []
    burned = [shoe.burn_shown, *revealed.burned_cards] if shoe.burn_shown else []
    if [c.code for c in order[: len(burned)]] != burned:
        mismatches.append("the burn does not match the order")
    coups = list(shoe.coups.prefetch_related("cards").order_by("number"))
    for coup in coups:
        for dealt in coup.cards.all():
            if dealt.shoe_position >= len(order) or order[dealt.shoe_position].code != dealt.card:
                mismatches.append(f"{coup.round_id}: {dealt.card} at shoe position {dealt.shoe_position}")
        result = coup.dealt_result()
        if coup.corrected_at is not None:  # four eyes changed it, but an RNG shoe's order is what was dealt
            dealt_winner = result.winner if result else "nothing"
            mismatches.append(f"{coup.round_id}: result corrected to {coup.winner}; the order dealt {dealt_winner}")
        elif coup.winner and (result is None or result.winner != coup.winner):
            mismatches.append(f"{coup.round_id}: recorded winner {coup.winner} is not the cards' result")
    return ShoeVerification(
        commitment_ok=commitment_matches(order, revealed.salt, shoe.commitment),
        coups_checked=len(coups),
        mismatches=tuple(mismatches),
    )


def coups_held() -> list[Coup]:
    """Coups held for the pit's decision, oldest first, with their table: the admin's and consoles' alert."""
    return list(Coup.objects.filter(state=Coup.State.HELD).select_related("table").order_by("held_at", "pk"))


def shoe_dealer(shoe: Shoe, cards_in_coup: int = 0) -> ShoeDealer:
    """The game core's dealer over an RNG shoe's order, where the shoe stands (decrypts the order)."""
    state = ShoeState(
        position=shoe.position, coups_started=shoe.coups_started, cards_in_coup=cards_in_coup, last_coup=shoe.last_coup
    )
    return ShoeDealer(
        shoe.cards, cut_card_position=shoe.cut_card_position, cut_card_rule=shoe.cut_card_rule, state=state
    )


def shoe_is_finished(*, shoe: Shoe, dealer: ShoeDealer | None = None) -> bool:
    """Whether the cut card rule (or, for an RNG shoe, the last card) has ended the shoe. ``dealer``: the
    caller's over the shoe where it stands, if it has one (its order not decrypted again)."""
    if shoe.last_coup is not None and shoe.coups_started >= shoe.last_coup:
        return True
    return shoe.has_card_order and (dealer or shoe_dealer(shoe)).finished
