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

from collections.abc import Callable
from dataclasses import asdict, dataclass
from decimal import Decimal

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from partners.models import PartnerPlayer
from partners.seamless import batches_rollback, seamless_bet_place
from tables.models import Coup, Table
from wagering.cancellation import bet_batch_undo, bet_remove_all
from wagering.errors import BetRejected, WageringError
from wagering.idempotency import refusal_record, request_once
from wagering.models import Bet, BetBatch, BetRequest
from wagering.placement import PlacedBatch, bet_batch_place, bet_rebet, bet_rebet_stakes
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
        data = asdict(self)
        del data["replayed"]
        return data


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
        raise BetRejected("unknown_request", f"a bet request is one of {', '.join(KINDS)}", {"kind": request.kind})
    if request.request_id is None:
        return _carry_out(request)
    key = request_id_checked(request.request_id)
    parameters = _parameters(request)
    scope = {"user": request.user.pk}
    if request.seamless is not None and request.kind in ("bet", "rebet"):
        return _seamless_once(request, key=key, parameters=parameters)
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
        )
    except WageringError as error:
        if error.code in ("idempotency_conflict", "request_in_progress"):
            raise
        recorded = refusal_record(
            model=BetRequest, scope=scope, key=key, request=parameters, fields={"kind": request.kind, **_refused(error)}
        )
        if recorded is not None:
            return _replay(recorded)
        raise
    return outcome.result


def request_coup(*, table: Table, live: Coup | None, round_id: object) -> Coup:
    """The table's live coup, which must be the round the player was looking at (``round_id``, if sent)."""
    if live is None:
        raise BetRejected(
            "no_live_coup", f"there is no coup on {table.name} right now: wait for the next one", {"table": table.code}
        )
    if round_id is not None and round_id != live.round_id:
        raise BetRejected(
            "round_changed",
            f"round {str(round_id)[:40]} is over: the table is on round {live.round_id}",
            {"round_id": str(round_id)[:40], "live_round_id": live.round_id},
        )
    return live


def request_id_checked(request_id: object) -> str:
    if (
        not isinstance(request_id, str)
        or not 0 < len(request_id) <= MAX_REQUEST_ID_LENGTH
        or not request_id.isprintable()
    ):
        raise BetRejected(
            "invalid_request_id", f"a request_id is 1 to {MAX_REQUEST_ID_LENGTH} printable characters (a UUID)"
        )
    return request_id


def _carry_out(request: PlayerBetRequest) -> BetRequestAnswer:
    coup, user = request.coup, request.user
    if request.kind == "bet":
        if not isinstance(request.bets, dict):
            raise BetRejected("bad_bets", 'send the bets as {"player": "10.00", ...}')
        return _placed_answer(coup, _place(request, lambda: request.bets))
    if request.kind == "rebet":
        multiplier = request.multiplier
        if isinstance(multiplier, bool) or not isinstance(multiplier, int):  # 1 or 2; not true, 2.0 or "2"
            raise BetRejected(
                "invalid_multiplier", f"rebet is ×1 or ×2, not {multiplier!r}", {"multiplier": str(multiplier)}
            )
        if request.seamless is None:
            return _placed_answer(coup, bet_rebet(user=user, coup=coup, multiplier=multiplier))
        return _placed_answer(
            coup, _place(request, lambda: bet_rebet_stakes(user=user, coup=coup, multiplier=multiplier))
        )
    with transaction.atomic():
        batches = (
            [bet_batch_undo(user=user, coup=coup)] if request.kind == "undo" else bet_remove_all(user=user, coup=coup)
        )
        batches_rollback(batches=batches)  # a seamless wallet's debits of them, given back
    return _taken_off_answer(request, batches)


def _place(request: PlayerBetRequest, stakes: Callable[[], dict], placed_record=None) -> PlacedBatch:
    if request.seamless is not None:
        return seamless_bet_place(
            player=request.seamless, coup=request.coup, bets=stakes(), placed_record=placed_record
        )
    return bet_batch_place(user=request.user, coup=request.coup, bets=stakes())


def _placed_answer(coup: Coup, placed: PlacedBatch) -> BetRequestAnswer:
    return BetRequestAnswer(
        round_id=coup.round_id,
        bets={bet.bet_type: str(bet.stake) for bet in placed.bets},
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
        if request.kind == "bet":
            placed = _place(request, lambda: request.bets, placed_record=answer_record)
        else:
            stakes = bet_rebet_stakes(user=request.user, coup=request.coup, multiplier=request.multiplier)
            placed = _place(request, lambda: stakes, placed_record=answer_record)
    except WageringError as error:
        BetRequest.objects.filter(pk=record.pk, answer__isnull=True).update(**_refused(error))
        raise
    return _placed_answer(request.coup, placed)


def _parameters(request: PlayerBetRequest) -> dict:
    parameters = {"kind": request.kind, "round_id": request.coup.round_id}
    if request.kind == "bet":
        parameters["bets"] = (
            {str(k): str(v) for k, v in request.bets.items()} if isinstance(request.bets, dict) else str(request.bets)
        )
    if request.kind == "rebet":
        parameters["multiplier"] = str(request.multiplier)
    return parameters


def _answer_remember(model: type[BetRequest], record_id: int, answer: BetRequestAnswer) -> None:
    model.objects.filter(pk=record_id).update(answer=answer.as_data(), accepted=True)


def _refused(error: WageringError) -> dict:
    return {"answer": error.as_dict(), "accepted": False}


def _replay(record: BetRequest) -> BetRequestAnswer:
    if record.answer is None:
        raise BetRejected(
            "request_in_progress",
            f"request {record.key} is still being carried out (or was interrupted): send a new request_id to try again",
            {"request_id": record.key},
        )
    if not record.accepted:
        raise WageringError(record.answer["code"], record.answer["message"], record.answer.get("details", {}))
    return BetRequestAnswer(**record.answer, replayed=True)


def _conflict(key: str, record: BetRequest) -> BetRejected:
    return BetRejected(
        "idempotency_conflict",
        f"request_id {key!r} was used for another request ({record.request.get('kind')} on "
        f"{record.request.get('round_id')})",
        {"request_id": key},
    )
