"""A player's bet requests at a table: place a batch, undo the last one, remove all, rebet. The table's
socket and the table page's endpoints both come here, so that each request is carried out the same way
whatever brought it.

A request may carry a ``request_id`` (the client's idempotency key, at most 64 characters): carried out
once, and answered the same again, accepted or refused (``wagering.BetRequest``). For a player whose money
is in our wallet, the request's record is written in the request's own transaction: a request that did not
commit left nothing, one that did is answered from its record. A seamless wallet's bet calls the partner
outside any transaction of ours, so its record is claimed first and filled in by the placement's
transaction: asked again meanwhile (or after a crash), it answers ``request_in_progress``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from decimal import Decimal

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, connection, transaction

from casino.lifecycle.rng import PARTNER_REQUEST_ID_PREFIX
from kernel.errors import ErrorCode
from kernel.group_commit import BatchRetry
from kernel.raw_rows import row_update
from partners.identifiers import WalletUnavailable
from partners.models import PartnerPlayer
from partners.seamless import batches_rollback, seamless_bet_place
from tables.models import Coup, Table
from wagering.cancellation import bet_batch_undo, bet_remove_all
from wagering.errors import BetConflict, BetRejected, IdempotencyConflict, WageringError
from wagering.idempotency import refusal_record, request_once
from wagering.ledger import rows_insert
from wagering.models import Bet, BetBatch, BetRequest
from wagering.placement import (
    PlacedBatch,
    bet_batch_place,
    bet_rebet,
    bet_rebet_stakes,
    bet_stakes_checked,
    coup_betting_locked,
)
from wagering.placement_together import PlacementAsked, bets_place_together
from wagering.selectors import coup_bet_totals, wallet_balance, wallet_currency

User = AbstractBaseUser
KINDS = ("bet", "undo", "remove", "rebet")
MAX_REQUEST_ID_LENGTH = 64


@dataclass(frozen=True)
class BetRequestAnswer:
    """What a request did: the round, the stakes it placed (undo and remove: took off), the player's balance
    after it (None: a partner's wallet holds it) and stakes on the coup, all in ``currency``."""

    round_id: str
    bets: dict[str, str]
    balance: str | None
    own_totals: dict[str, str]
    currency: str
    replayed: bool = False

    def as_data(self) -> dict:
        """The answer as sent and recorded, built field by field (``asdict`` deep-copies: it cost 12% of a
        socket bet's CPU)."""
        return {
            "round_id": self.round_id,
            "bets": self.bets,
            "balance": self.balance,
            "own_totals": self.own_totals,
            "currency": self.currency,
        }


@dataclass(frozen=True)
class PlayerBetRequest:
    """One request: who asks (``seamless``: the partner's player, for a launched seamless-wallet session),
    what (``kind``, with ``bets`` for a batch and ``multiplier`` for a rebet), on which coup."""

    user: User
    seamless: PartnerPlayer | None
    coup: Coup
    kind: str
    bets: dict | None = None
    multiplier: object = 1
    request_id: str | None = None


def bet_request_answer(request: PlayerBetRequest) -> BetRequestAnswer:
    """Carry out the request (once per ``request_id``, if it has one); ``WageringError`` if it is refused."""
    if request.kind not in KINDS:
        raise BetRejected(
            f"a bet request is one of {', '.join(KINDS)}",
            code=ErrorCode.UNKNOWN_REQUEST,
            details={"kind": request.kind},
        )
    if request.request_id is None:
        return _carry_out(request)
    key = request_id_checked(request.request_id)
    parameters = _parameters(request)
    scope = {"user": request.user.pk}
    if request.seamless is not None and request.kind in ("bet", "rebet"):
        return _seamless_once(request, key=key, parameters=parameters)

    def coup_locked() -> None:  # the record claimed under the coup's lock (wagering.idempotency, lock_first)
        coup_betting_locked(request.coup)

    try:
        outcome = request_once(
            model=BetRequest,
            scope=scope,
            key=key,
            request=parameters,
            perform=lambda: _carry_out(request),
            conflict=lambda record: _conflict(key, record),
            fields={"kind": request.kind},
            remember=_answer_remember,
            replay=_replay,
            lock_first=coup_locked,
        )
    except IdempotencyConflict:
        raise
    except WageringError as error:
        recorded = refusal_record(
            model=BetRequest,
            scope=scope,
            key=key,
            request=parameters,
            fields={"kind": request.kind, **_refused(error)},
            lock_first=coup_locked,
        )
        if recorded is not None:
            return _replay(recorded)
        raise
    return outcome.result


def bet_requests_answer_together(requests: list[PlayerBetRequest]) -> list[BetRequestAnswer | WageringError]:
    """Bet and rebet requests on one coup from players' own wallets (``together``), answered as
    ``bet_request_answer`` answers them one after another, in one go: their records read and written in one
    statement each, their placements by ``bets_place_together``. ``BatchRetry`` if a request_id was recorded
    by another transaction meanwhile: the group commit rolls back and asks again (it is then a replay)."""
    coup = requests[0].coup
    outcomes: list[BetRequestAnswer | WageringError | None] = [None] * len(requests)
    keys: dict[int, tuple[int, str]] = {}
    for index, request in enumerate(requests):
        if request.request_id is not None:
            try:
                keys[index] = (request.user.pk, request_id_checked(request.request_id))
            except WageringError as error:
                outcomes[index] = error
    recorded = _records(set(keys.values()))
    first_asked: dict[tuple[int, str], int] = {}
    for index, key in keys.items():
        if key not in recorded:
            first_asked.setdefault(key, index)
    asked, placing = [], []
    for index, request in enumerate(requests):
        if outcomes[index] is None and (index not in keys or first_asked.get(keys[index]) == index):
            try:
                asked.append(PlacementAsked(user=request.user, stakes=_stakes(request), action=_action(request)))
                placing.append(index)
            except WageringError as error:
                outcomes[index] = error
    for index, placed in zip(placing, bets_place_together(coup=coup, asked=asked), strict=True):
        outcomes[index] = placed if isinstance(placed, WageringError) else _placed_answer(coup, placed)
    _records_write([(requests[index], keys[index][1], outcomes[index]) for index in first_asked.values()])
    for index, key in keys.items():  # a request_id recorded earlier, or asked twice here
        if outcomes[index] is None:
            first = first_asked.get(key)
            try:
                outcomes[index] = _again(
                    requests[index],
                    key[1],
                    recorded.get(key),
                    None if first is None else (requests[first], outcomes[first]),
                )
            except WageringError as error:
                outcomes[index] = error
    return outcomes


def together(request: PlayerBetRequest) -> bool:
    """Whether ``bet_requests_answer_together`` may take the request: a bet or rebet from our own wallet."""
    return request.seamless is None and request.kind in ("bet", "rebet")


# The records of exact (user, request_id) pairs, one probe of their unique index a pair, however long the
# table's retention: given the pairs as a list to join, PostgreSQL hashes them and scans the whole table (its
# estimate of a probe's cost wins over a scan up to ~100,000 rows), so each pair is looked up by a LATERAL
# subquery its LIMIT keeps from being flattened into that join; SQLite probes the index for a plain join.
RECORDS_SQL = {
    "postgresql": "SELECT b.* FROM (VALUES {pairs}) k CROSS JOIN LATERAL "
    "(SELECT * FROM {table} WHERE user_id = k.column1 AND key = k.column2 LIMIT 1) b",
    "sqlite": "SELECT b.* FROM (VALUES {pairs}) k JOIN {table} b ON b.user_id = k.column1 AND b.key = k.column2",
}


def _records(keys: set[tuple[int, str]]) -> dict[tuple[int, str], BetRequest]:
    if not keys:
        return {}
    sql = RECORDS_SQL[connection.vendor].format(
        pairs=", ".join(["(%s, %s)"] * len(keys)), table=connection.ops.quote_name(BetRequest._meta.db_table)
    )
    found = BetRequest.objects.raw(sql, [value for key in keys for value in key])
    return {(record.user_id, record.key): record for record in found}


def _stakes(request: PlayerBetRequest) -> dict[str, Decimal]:
    return bet_stakes_checked(_bets(request)) if request.kind == "bet" else _rebet_stakes(request)


def _action(request: PlayerBetRequest) -> str:
    return "bet_batch_placed" if request.kind == "bet" else f"bet_rebet_x{request.multiplier}"


def _records_write(answered: list[tuple[PlayerBetRequest, str, BetRequestAnswer | WageringError]]) -> None:
    """The requests' records with their answers, in one statement (``BatchRetry``: one was taken meanwhile)."""
    rows = []
    for request, key, outcome in answered:
        accepted = not isinstance(outcome, WageringError)
        answer = outcome.as_data() if accepted else outcome.as_dict()
        rows.append(
            (request.user.pk, key, request.kind, json.dumps(_parameters(request)), json.dumps(answer), accepted)
        )
    try:
        rows_insert(BetRequest, ("user", "key", "kind", "request", "answer", "accepted"), rows)
    except IntegrityError as taken:
        raise BatchRetry from taken


def _again(
    request: PlayerBetRequest,
    key: str,
    record: BetRequest | None,
    first: tuple[PlayerBetRequest, BetRequestAnswer | WageringError] | None,
) -> BetRequestAnswer:
    """The answer to a request_id recorded earlier (``record``), or asked first in this run (``first``)."""
    parameters = _parameters(request)
    if record is None:
        first_request, first_outcome = first
        record = BetRequest(key=key, request=_parameters(first_request))
        if record.request == parameters:
            if isinstance(first_outcome, WageringError):
                raise first_outcome
            return replace(first_outcome, replayed=True)
    if record.request != parameters:
        raise _conflict(key, record)
    return _replay(record)


def request_coup(*, table: Table, live: Coup | None, round_id: object) -> Coup:
    """The table's live coup, which must be the round the player was looking at (``round_id``, if sent)."""
    if live is None:
        raise BetConflict(
            f"there is no coup on {table.name} right now: wait for the next one",
            code=ErrorCode.NO_LIVE_COUP,
            details={"table": table.code},
        )
    if round_id is not None and round_id != live.round_id:
        raise BetConflict(
            f"round {str(round_id)[:40]} is over: the table is on round {live.round_id}",
            code=ErrorCode.ROUND_CHANGED,
            details={"round_id": str(round_id)[:40], "live_round_id": live.round_id},
        )
    return live


def bet_request_replayed(
    *, user: User, kind: str, request_id: object, round_id: object, bets: object, multiplier: object
) -> BetRequestAnswer | None:
    """The first answer to a request_id the player's request carried out before its coup moved on: a request
    sent again after a reconnect names the round it was made for, no longer the table's live one, and gets
    the answer it got then (or its refusal again), never ``round_changed`` for a bet the books hold. ``None`` if
    that request_id was never carried out."""
    if not isinstance(request_id, str):
        return None
    record = BetRequest.objects.filter(user_id=user.pk, key=request_id).first()
    if record is None:
        return None
    named = round_id if round_id is not None else record.request.get("round_id")
    if record.request != _parameters_of(kind, named, bets, multiplier):
        raise _conflict(request_id, record)
    return _replay(record)


def request_id_checked(request_id: object) -> str:
    if (
        not isinstance(request_id, str)
        or not 0 < len(request_id) <= MAX_REQUEST_ID_LENGTH
        or not request_id.isprintable()
        or request_id.startswith(PARTNER_REQUEST_ID_PREFIX)
    ):
        raise BetRejected(
            f"a request_id is 1 to {MAX_REQUEST_ID_LENGTH} printable characters (a UUID), "
            f"not starting {PARTNER_REQUEST_ID_PREFIX!r}",
            code=ErrorCode.INVALID_REQUEST_ID,
        )
    return request_id


def _carry_out(request: PlayerBetRequest) -> BetRequestAnswer:
    if request.kind in ("bet", "rebet"):
        return _placed_answer(request.coup, _place(request))
    with transaction.atomic():
        user, coup = request.user, request.coup
        batches = (
            [bet_batch_undo(user=user, coup=coup)] if request.kind == "undo" else bet_remove_all(user=user, coup=coup)
        )
        batches_rollback(batches=batches)  # a seamless wallet's debits of them, given back
    return _taken_off_answer(request, batches)


def _place(request: PlayerBetRequest, placed_record=None) -> PlacedBatch:
    user, coup = request.user, request.coup
    if request.seamless is not None:
        stakes = _bets(request) if request.kind == "bet" else _rebet_stakes(request)
        return seamless_bet_place(player=request.seamless, coup=coup, bets=stakes, placed_record=placed_record)
    if request.kind == "bet":
        return bet_batch_place(user=user, coup=coup, bets=_bets(request))
    return bet_rebet(user=user, coup=coup, multiplier=_multiplier(request))


def _bets(request: PlayerBetRequest) -> dict:
    if not isinstance(request.bets, dict):
        raise BetRejected('send the bets as {"player": "10.00", ...}', code=ErrorCode.BAD_BETS)
    return request.bets


def _multiplier(request: PlayerBetRequest) -> int:
    multiplier = request.multiplier
    if isinstance(multiplier, bool) or not isinstance(multiplier, int):  # 1 or 2; not true, 2.0 or "2"
        raise BetRejected(
            f"rebet is ×1 or ×2, not {multiplier!r}",
            code=ErrorCode.INVALID_MULTIPLIER,
            details={"multiplier": str(multiplier)},
        )
    return multiplier


def _rebet_stakes(request: PlayerBetRequest) -> dict[str, Decimal]:
    return bet_rebet_stakes(user=request.user, coup=request.coup, multiplier=_multiplier(request))


def _placed_answer(coup: Coup, placed: PlacedBatch) -> BetRequestAnswer:
    return BetRequestAnswer(
        round_id=coup.round_id,
        bets={bet_type: str(stake) for bet_type, stake in placed.stakes.items()},
        balance=None if placed.balance is None else str(placed.balance),
        own_totals={bet_type: str(total) for bet_type, total in placed.own_totals.items()},
        currency=placed.currency,
    )


def _taken_off_answer(request: PlayerBetRequest, batches: list[BetBatch]) -> BetRequestAnswer:
    taken: dict[str, Decimal] = {}
    for bet_type, stake in Bet.objects.filter(batch__in=batches).values_list("bet_type", "stake"):
        taken[bet_type] = taken.get(bet_type, Decimal(0)) + stake
    user = request.user
    seamless = request.seamless
    return BetRequestAnswer(
        round_id=request.coup.round_id,
        bets={bet_type: str(total) for bet_type, total in taken.items()},
        balance=None if seamless is not None else str(wallet_balance(user=user)),
        own_totals={k: str(v) for k, v in coup_bet_totals(coup=request.coup, user=user).items()},
        currency=seamless.partner.currency if seamless is not None else wallet_currency(user=user),
    )


def _seamless_once(request: PlayerBetRequest, *, key: str, parameters: dict) -> BetRequestAnswer:
    """A seamless wallet's bet: the record claimed first, filled in by the placement's transaction."""
    scope = {"user": request.user.pk}
    recorded = refusal_record(model=BetRequest, scope=scope, key=key, request=parameters, fields={"kind": request.kind})
    if recorded is not None:
        if recorded.request != parameters:
            raise _conflict(key, recorded)
        return _replay(recorded)
    record = BetRequest.objects.get(user=request.user, key=key)

    def answer_record(placed: PlacedBatch) -> None:
        _answer_remember(BetRequest, record.pk, _placed_answer(request.coup, placed))

    try:
        placed = _place(request, placed_record=answer_record)
    except WageringError as error:
        BetRequest.objects.filter(pk=record.pk, answer__isnull=True).update(**_refused(error))
        raise
    return _placed_answer(request.coup, placed)


def _parameters(request: PlayerBetRequest) -> dict:
    return _parameters_of(request.kind, request.coup.round_id, request.bets, request.multiplier)


def _parameters_of(kind: str, round_id: object, bets: object, multiplier: object) -> dict:
    """What a request_id is recorded with: a resend must ask the same."""
    parameters = {"kind": kind, "round_id": round_id}
    if kind == "bet":
        parameters["bets"] = {str(k): str(v) for k, v in bets.items()} if isinstance(bets, dict) else str(bets)
    if kind == "rebet":
        parameters["multiplier"] = str(multiplier)
    return parameters


def _answer_remember(model: type[BetRequest], record_id: int, answer: BetRequestAnswer) -> None:
    row_update(model, record_id, answer=answer.as_data(), accepted=True)  # prepared once: every bet request


def _refused(error: WageringError) -> dict:
    return {"answer": error.as_dict(), "accepted": False}


def _replay(record: BetRequest) -> BetRequestAnswer:
    if record.answer is None:
        raise IdempotencyConflict(
            f"request {record.key} is still being carried out (or was interrupted): send a new request_id to try again",
            code=ErrorCode.REQUEST_IN_PROGRESS,
            details={"request_id": record.key},
        )
    if not record.accepted:
        raise _refusal_again(record.answer)
    return BetRequestAnswer(**record.answer, replayed=True)


def _refusal_again(answer: dict) -> WageringError:
    """A refusal recorded under a request_id, raised again as what it was: its class, so its status, by its
    code (the refusals a request's placement may record that answer other than 400)."""
    code = answer["code"]
    if code in BetConflict.codes:
        kind = BetConflict
    elif code == WalletUnavailable.default_code:
        kind = WalletUnavailable
    else:
        kind = WageringError
    return kind(answer["message"], code=code, details=answer.get("details", {}))


def _conflict(key: str, record: BetRequest) -> IdempotencyConflict:
    return IdempotencyConflict(
        f"request_id {key!r} was used for another request ({record.request.get('kind')} on "
        f"{record.request.get('round_id')})",
        code=ErrorCode.IDEMPOTENCY_CONFLICT,
        details={"request_id": key},
    )
