"""The partners' bets: a transfer-wallet player's batch through the table's group commit
(``kernel.group_commit``: a run of them checked against the running totals and written set-wise, one
alone by ``bet_batch_place``), a seamless wallet's paid by the partner first; once per Idempotency-Key."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from decimal import Decimal

from django.db import IntegrityError

from kernel.errors import ErrorCode
from kernel.group_commit import BatchRetry, group_commit_submit
from partners.models import Partner, PartnerIdempotencyKey, PartnerPlayer
from partners.seamless import seamless_bet_place
from partners.services import (
    PartnerRequestResult,
    idempotency_conflict,
    idempotency_key_check,
    partner_request_once,
    partner_request_once_claimed,
    player_of_partner_check,
)
from tables.models import Coup, Table
from tables.selectors import table_with_live_coup_for_batch
from wagering.amounts import amount_checked
from wagering.errors import BetConflict, BetRejected, WageringError
from wagering.ledger import rows_insert
from wagering.models import LedgerTransaction
from wagering.placement import PlacedBatch, bet_batch_place, bet_stakes_checked, coup_betting_locked
from wagering.placement_together import PlacementAsked, bets_place_together


def partner_bet_batch_place(
    *,
    partner: Partner,
    player: PartnerPlayer,
    table: Table,
    live: Coup | None,
    bets: Mapping[str, Decimal | int | str],
    idempotency_key: str,
    round_id: str = "",
) -> PartnerRequestResult:
    """Place a batch of bets for the player on the coup taking bets at the table (``round_id``, if
    given, must be that coup): all accepted or none, by every limit of ``bet_batch_place``. ``live``: the
    table's live coup as the caller read it with the table (``tables.selectors.table_with_live_coup``), handed
    to the batch (``_batch_live``). A table dealt on demand has no coup taking bets: its players deal
    (``POST /api/v1/tables/{code}/deal/``)."""
    player_of_partner_check(partner=partner, player=player)
    if table.dealt_on_demand:
        deal = f"/api/v1/tables/{table.code}/deal/"
        raise BetRejected(
            f"table {table.code} is dealt on demand and takes no bets: its players deal (POST {deal})",
            code=ErrorCode.DEALT_ON_DEMAND,
            details={"table": table.code, "deal": deal},
        )
    stakes = {
        bet_type: str(amount_checked(stake, error=BetRejected, what=f"the {bet_type} stake"))
        for bet_type, stake in sorted(bets.items())
    }
    request = {
        "operation": "bet",
        "player_id": player.external_id,
        "table": table.code,
        "round_id": round_id,
        "bets": stakes,
    }

    if partner.is_seamless:
        return _seamless_bet_batch_place(
            partner=partner,
            player=player,
            coup_find=lambda: _coup_in_play(table, live, round_id),
            request=request,
            key=idempotency_key,
            stakes=stakes,
        )
    asked = PartnerBetRequest(
        partner=partner,
        player=player,
        table=table,
        live=live,
        stakes=stakes,
        round_id=round_id,
        key=idempotency_key,
        request=request,
    )
    return group_commit_submit(table_code=table.code, request=asked, handler=PARTNER_BETS).result()


@dataclass(frozen=True)
class PartnerBetRequest:
    """A transfer-wallet player's bet batch, as the partner sent it (``stakes``: amounts checked, as strings;
    ``request``: what its Idempotency-Key is recorded with; ``live``: the table's live coup as the request's
    thread read it with the table)."""

    partner: Partner
    player: PartnerPlayer
    table: Table
    live: Coup | None
    stakes: dict[str, str]
    round_id: str
    key: str
    request: dict


class _PartnerBets:
    """The group commit's handler of the partners' bets: a bet alone by ``bet_batch_place``, a run of them
    together (``partner_bets_place_together``)."""

    def carry_out(self, table_code: str, requests: list[PartnerBetRequest]) -> list[object]:
        if len(requests) > 1:
            return partner_bets_place_together(requests)
        try:
            return [_placed_alone(requests[0], _batch_live(requests))]
        except WageringError as refusal:
            return [refusal]

    def failed(self, error: BaseException) -> BaseException:
        return error  # the API answers it as any error of the request's own (a DatabaseError: 503)


PARTNER_BETS = _PartnerBets()


def _batch_live(requests: list[PartnerBetRequest]) -> Coup | None:
    """The live coup a batch is carried out on, as the table page's batches."""
    reads = [(asked.table, asked.live) for asked in requests]
    return table_with_live_coup_for_batch(code=requests[0].table.code, reads=reads)[1]


def _placed_alone(asked: PartnerBetRequest, live: Coup | None) -> PartnerRequestResult:
    placed: list[PlacedBatch] = []

    def place() -> LedgerTransaction:
        coup = _coup_in_play(asked.table, live, asked.round_id)
        placed.append(bet_batch_place(user=asked.player.user, coup=coup, bets=asked.stakes))
        return placed[0].batch.placement

    result = partner_request_once(
        partner=asked.partner,
        key=asked.key,
        request=asked.request,
        perform=place,
        lock_first=None if live is None else lambda: coup_betting_locked(live),
    )
    return replace(result, placed=placed[0]) if placed else result


def partner_bets_place_together(requests: list[PartnerBetRequest]) -> list[PartnerRequestResult | WageringError]:
    """Bets of a run, on one table, answered as ``_placed_alone`` answers them one after another, in one go: the
    Idempotency-Keys read and recorded in one statement each, the placements by ``bets_place_together``. A
    key sent twice in the run answers the first one's result (a replay), or its refusal. ``BatchRetry`` if
    a key was recorded by another transaction meanwhile."""
    outcomes: list[PartnerRequestResult | WageringError | None] = [None] * len(requests)
    keys: dict[int, tuple[int, str]] = {}
    for index, asked in enumerate(requests):
        try:
            idempotency_key_check(asked.key)
            keys[index] = (asked.partner.pk, asked.key)
        except WageringError as refusal:
            outcomes[index] = refusal
    recorded = _recorded(set(keys.values()))
    first_asked: dict[tuple[int, str], int] = {}
    for index, key in keys.items():
        if key not in recorded:
            first_asked.setdefault(key, index)
    live = _batch_live(requests)
    placing, placements = [], []
    for index in first_asked.values():
        asked = requests[index]
        try:
            _coup_in_play(asked.table, live, asked.round_id)
            stakes = bet_stakes_checked(asked.stakes)
        except WageringError as refusal:
            outcomes[index] = refusal
            continue
        placing.append(index)
        placements.append(PlacementAsked(user=asked.player.user, stakes=stakes, action="bet_batch_placed"))
    records = []
    for index, placed in zip(placing, bets_place_together(coup=live, asked=placements) if placing else [], strict=True):
        if isinstance(placed, WageringError):
            outcomes[index] = placed
            continue
        outcomes[index] = PartnerRequestResult(transaction=placed.batch.placement, replayed=False, placed=placed)
        asked = requests[index]
        records.append((asked.partner.pk, asked.key, json.dumps(asked.request), placed.batch.placement_id))
    try:
        rows_insert(PartnerIdempotencyKey, ("partner", "key", "request", "transaction"), records)
    except IntegrityError as taken:
        raise BatchRetry from taken
    for index, key in keys.items():  # a key recorded earlier, or sent twice in the run
        if outcomes[index] is None:
            first = first_asked.get(key)
            record = recorded.get(key) or PartnerIdempotencyKey(key=key[1], request=requests[first].request)
            if record.request != requests[index].request:
                outcomes[index] = idempotency_conflict(key=key[1], record=record)
            elif record.pk is not None:
                outcomes[index] = PartnerRequestResult(transaction=record.transaction, replayed=True)
            elif isinstance(outcomes[first], WageringError):
                outcomes[index] = outcomes[first]
            else:
                outcomes[index] = PartnerRequestResult(transaction=outcomes[first].transaction, replayed=True)
    return outcomes


def _recorded(keys: set[tuple[int, str]]) -> dict[tuple[int, str], PartnerIdempotencyKey]:
    if not keys:
        return {}
    found = PartnerIdempotencyKey.objects.filter(
        partner_id__in={partner for partner, _ in keys}, key__in={key for _, key in keys}
    ).select_related("transaction")
    return {(record.partner_id, record.key): record for record in found if (record.partner_id, record.key) in keys}


def _coup_in_play(table: Table, coup: Coup | None, round_id: str) -> Coup:
    """The table's live ``coup``, which must be the round the partner named (``round_id``, if given)."""
    if coup is None:
        raise BetConflict(
            f"no more bets: table {table.code} has no coup taking bets",
            code=ErrorCode.BETTING_CLOSED,
            details={"table": table.code},
        )
    if round_id and coup.round_id != round_id:
        raise BetConflict(
            f"round {round_id} is not the coup in play at table {table.code}: {coup.round_id} is",
            code=ErrorCode.ROUND_NOT_CURRENT,
            details={"round_id": round_id, "current_round_id": coup.round_id},
        )
    return coup


def _seamless_bet_batch_place(
    *,
    partner: Partner,
    player: PartnerPlayer,
    coup_find: Callable[[], Coup],
    request: dict,
    key: str,
    stakes: dict[str, str],
) -> PartnerRequestResult:
    """A bet paid by the partner's seamless wallet, once per ``Idempotency-Key`` (``partner_request_once_claimed``:
    the key claimed and committed before the wallet is called)."""
    placed: list[PlacedBatch] = []

    def place(recorded: Callable[[LedgerTransaction], None]) -> LedgerTransaction:
        def placed_record(batch: PlacedBatch) -> None:
            recorded(batch.batch.placement)

        placed.append(seamless_bet_place(player=player, coup=coup_find(), bets=stakes, placed_record=placed_record))
        return placed[0].batch.placement

    result = partner_request_once_claimed(partner=partner, key=key, request=request, perform=place)
    return replace(result, placed=placed[0]) if placed else result
