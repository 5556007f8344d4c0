"""What one placement is checked against, read under the coup's lock in one round trip.

The wallet's currency, the player's personal limit markers at the table, the table's running totals and
bettors in that currency, and the player's open stakes on this coup and any other: the ORM's five queries
cost more CPU to build than PostgreSQL spends running them, and each was a round trip under the lock every
bet at the table waits for. Read after the lock is taken (its own statement: a statement's snapshot is taken
when it starts, so one that waited for the lock would read totals as they stood before the wait).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from functools import cache

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import connection

from kernel.raw_rows import prepared_cursor, sql_literal
from tables.models import Coup, PersonalLimitMarker
from wagering.models import Account, Bet, CoupStakeTotal, money
from wagering.selectors import PlayerMarkers

User = AbstractBaseUser

# One row a fact, in one shape: (kind, id, text, amount, count, amount 2, text 2, time). ``c``: the currency
# (the one asked, else the wallet's, else the house's); ``t``: a running total and its bettors (id NULL);
# ``o``: an open stake (id: its coup; ``bet_open_by_user`` indexes exactly these rows); ``m``: a marker (id,
# currency, minimum, count NULL, maximum, bet types, valid from), in the order granted. The first branch
# types every column: PostgreSQL resolves a UNION's types pair by pair.
_STANDING_SQL = """
WITH wallet AS (
    SELECT COALESCE(%(currency)s, (
        SELECT currency FROM {account} WHERE kind = %(player)s AND user_id = %(user)s ORDER BY id LIMIT 1
    ), %(house)s) AS currency
)
SELECT 'c', CAST(NULL AS BIGINT), currency, CAST(NULL AS NUMERIC), CAST(NULL AS INTEGER), CAST(NULL AS NUMERIC),
    CAST(NULL AS TEXT), CAST(NULL AS TIMESTAMP) FROM wallet
UNION ALL
SELECT 't', NULL, bet_type, total, bettors, NULL, NULL, NULL FROM {stake_total}
WHERE coup_id = %(coup)s AND currency = (SELECT currency FROM wallet) AND (total > 0 OR bettors > 0)
UNION ALL
SELECT 'o', coup_id, bet_type, SUM(stake), NULL, NULL, NULL, NULL FROM {bet}
WHERE user_id = %(user)s AND state = {accepted} GROUP BY coup_id, bet_type
UNION ALL
SELECT 'm', id, currency, minimum, NULL, maximum, CAST(bet_types AS TEXT), valid_from FROM {marker}
WHERE table_id = %(table)s AND player_id = %(user)s AND revoked_at IS NULL AND valid_from <= %(at)s
    AND (valid_until IS NULL OR valid_until > %(at)s)
ORDER BY 1, 8, 2
"""


@dataclass(frozen=True)
class PlacementStanding:
    """A placement's view: the currency its stakes are in, the player's markers (None: the table's limits),
    the whole table's stakes and bettors on the coup in that currency (bettors: only bet types with any), the
    player's own stakes on it, and the player's open stakes on other coups (by coup id), which can still win."""

    currency: str
    marker: PlayerMarkers | None
    table: dict[str, Decimal]
    bettors: dict[str, int]
    own: dict[str, Decimal]
    elsewhere: dict[int, dict[str, Decimal]]


def placement_standing(*, coup: Coup, user: User, currency: str | None, at: datetime) -> PlacementStanding:
    """The placement's ``PlacementStanding`` at ``at``, in ``currency`` (None: the player's wallet's): one query."""
    parameters = {
        "currency": currency,
        "house": settings.HOUSE_CURRENCY,
        "player": Account.Kind.PLAYER.value,
        "user": user.pk,
        "coup": coup.pk,
        "table": coup.table_id,
        "at": connection.ops.adapt_datetimefield_value(at),
    }
    table: dict[str, Decimal] = {}
    bettors: dict[str, int] = {}
    own: dict[str, Decimal] = {}
    elsewhere: dict[int, dict[str, Decimal]] = defaultdict(dict)
    markers: list[PersonalLimitMarker] = []
    bet_types = PersonalLimitMarker._meta.get_field("bet_types")
    with prepared_cursor() as cursor:
        cursor.execute(standing_sql(), parameters)
        for kind, row_id, text, amount, count, maximum, types, _ in cursor.fetchall():
            if kind == "c":
                currency = text
            elif kind == "t":
                if amount > 0:
                    table[text] = money(amount)
                if count > 0:
                    bettors[text] = count
            elif kind == "o":
                (own if row_id == coup.pk else elsewhere[row_id])[text] = money(amount)
            else:
                held = bet_types.from_db_value(types, None, connection)
                markers.append(
                    PersonalLimitMarker(
                        id=row_id, currency=text, bet_types=held, minimum=money(amount), maximum=money(maximum)
                    )
                )
    marker = PlayerMarkers(markers=tuple(markers)) if markers else None
    return PlacementStanding(
        currency=currency, marker=marker, table=table, bettors=bettors, own=own, elsewhere=elsewhere
    )


@cache
def standing_sql() -> str:
    """``_STANDING_SQL`` with its tables' names, from the models (names of ours, not input), and the open bets'
    state written in (``bet_open_by_user``'s predicate: ``kernel.raw_rows.sql_literal``); also run by
    ``bench/placement.py``'s database-only script."""
    quote = connection.ops.quote_name
    names = {"account": Account, "stake_total": CoupStakeTotal, "bet": Bet, "marker": PersonalLimitMarker}
    tables = {key: quote(model._meta.db_table) for key, model in names.items()}
    return _STANDING_SQL.format(**tables, accepted=sql_literal(Bet.State.ACCEPTED.value))
