"""Many players' placements on one coup at once: the bet intake's group commit, set-wise.

One placement at a time costs about a dozen statements, each under the coup's lock that every bet at the
table waits for. Here a whole group of them costs a fixed dozen: the players' markers, wallets and open
stakes and the coup's running totals read in one query each, every placement checked in arrival order
against them by the same rules as one alone (``stakes_within_rules``, the wallet's funds and
``BalanceBound``), all before the coup's lock; then, under it, the coup's state, the wallets (locked), the
totals and the open stakes read again (checked again only if any moved), and the accepted placements
written together (ledger transactions, their legs chained from
balance to balance, one balance update, batches, bets, stake totals, audit rows). A refused placement writes
nothing and never fails the others. The caller's transaction holds it all: it commits or leaves nothing.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from decimal import Decimal

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.utils import timezone

from baccarat.rules import CoupRules
from tables.models import AuditLog, Coup
from tables.selectors import coup_rules
from wagering.errors import BetRejected
from wagering.ledger import balances_store, rows_insert, rows_insert_returning_ids
from wagering.locks import StakeAccount, system_accounts_locked, wallets_locked
from wagering.models import ZERO, Account, Bet, BetBatch, LedgerEntry, LedgerTransaction, ledger_shard, money
from wagering.placement import (
    PlacedBatch,
    betting_open_check,
    coup_betting_locked,
    placement_refusal,
    stakes_within_rules,
    table_totals_changed,
)
from wagering.placement_writers import (
    BalanceBound,
    PlacementIds,
    bettors_joined,
    placed_ids_given,
    placed_instances,
    placement_audit,
    stake_totals_move,
)
from wagering.protection.guard import bet_refusal, bets_protection_locked, bets_protection_read, losses_added
from wagering.protection.standing import Protection
from wagering.selectors import (
    PlayerMarkers,
    coup_stake_totals,
    coup_stake_totals_and_bettors,
    open_bets_largest_returns,
    personal_limit_markers,
    players_open_stakes,
    players_wallets,
    stakes_largest_return,
)
from wagering.wallets import wallet_events_send

User = AbstractBaseUser


@dataclass(frozen=True)
class PlacementAsked:
    """A player's batch of stakes (checked by ``bet_stakes_checked``) from their wallet; ``action``: the
    audit's name for it (``bet_batch_placed``, ``bet_rebet_x2``...)."""

    user: User
    stakes: dict[str, Decimal]
    action: str


@dataclass
class _Accepted:
    asked: PlacementAsked
    wallet: StakeAccount
    currency: str
    total: Decimal
    balance: Decimal
    own_after: dict[str, Decimal]
    joined: frozenset[str]  # the bet types the player had no stake on yet


@dataclass(frozen=True)
class _Standing:
    """What a group's checks read that other transactions may move until the coup's lock is taken: the
    players' wallets, the table's running totals (by currency) and the players' open stakes (by user id,
    coup id and bet type). Equal under the lock to what was read before it, the answers stand."""

    wallets: dict[int, StakeAccount]
    table: dict[str, dict[str, Decimal]]
    open_stakes: dict[int, dict[int, dict[str, Decimal]]]
    protections: dict[int, Protection]
    losses: dict[int, dict[str, Decimal]]  # the loss-limited players' net losses (``players_losses``)

    def same_as(self, other: _Standing) -> bool:
        def wallets(standing: _Standing) -> dict[int, tuple]:
            return {user_id: (w.pk, w.currency, w.balance) for user_id, w in standing.wallets.items()}

        def moved(standing: _Standing) -> tuple:
            return standing.table, standing.open_stakes, wallets(standing), standing.protections, standing.losses

        return moved(self) == moved(other)


def bets_place_together(*, coup: Coup, asked: Sequence[PlacementAsked]) -> list[PlacedBatch | BetRejected]:
    """Each placement's ``PlacedBatch``, or the ``BetRejected`` refusing it, in the order asked; exactly what
    placing them one after another by ``bet_batch_place`` answers and writes (a test compares the two).

    Every bet at the table waits for the coup's lock: the group is read and checked before it is taken,
    then under it only what may have moved meanwhile is read again (the coup's state, the wallets, which it
    locks, the running totals and the players' open stakes), and checked again only if any of it did. The
    lock is held for those reads, the writes and the commit."""
    user_ids = {placement.user.pk for placement in asked}
    now = timezone.now()
    markers = personal_limit_markers(table_id=coup.table_id, user_ids=user_ids, at=now)
    rules = coup_rules(coup=coup)
    protections, losses = bets_protection_read(user_ids=user_ids, at=now)
    before = _Standing(
        wallets=players_wallets(user_ids=user_ids),
        table=coup_stake_totals(coup=coup),
        open_stakes=players_open_stakes(user_ids=user_ids),
        protections=protections,
        losses=losses,
    )
    answers, table = _answers(coup=coup, asked=asked, standing=before, markers=markers, rules=rules)
    coup_betting_locked(coup)
    try:
        betting_open_check(coup)
    except BetRejected as refusal:
        return [refusal] * len(asked)
    protections, losses = bets_protection_locked(user_ids=user_ids, at=now)
    table_locked, bettors = coup_stake_totals_and_bettors(coup=coup)
    standing = _Standing(
        wallets=wallets_locked(user_ids),
        table=table_locked,
        open_stakes=players_open_stakes(user_ids=user_ids),
        protections=protections,
        losses=losses,
    )
    if not standing.same_as(before):
        answers, table = _answers(coup=coup, asked=asked, standing=standing, markers=markers, rules=rules)
    accepted = [answer for answer in answers if isinstance(answer, _Accepted)]
    placed = dict(zip(map(id, accepted), _write(coup=coup, accepted=accepted), strict=True)) if accepted else {}
    for currency in {answer.currency for answer in accepted}:
        # Under the lock the running counts move only by this batch's: no read after the write.
        counts = Counter(bettors.get(currency, {}))
        counts.update(bet_type for answer in accepted if answer.currency == currency for bet_type in answer.joined)
        table_totals_changed(coup=coup, currency=currency, table_totals=table[currency], bettors=counts)
    return [placed[id(answer)] if isinstance(answer, _Accepted) else answer for answer in answers]


def _answers(
    *,
    coup: Coup,
    asked: Sequence[PlacementAsked],
    standing: _Standing,
    markers: Mapping[int, PlayerMarkers],
    rules: CoupRules,
) -> tuple[list[_Accepted | BetRejected], dict[str, dict[str, Decimal]]]:
    """Each placement checked in arrival order against the totals, stakes and balances the ones accepted
    before it leave, by the same rules as one alone (``stakes_within_rules``, the wallet's funds and
    ``BalanceBound``), and the table's totals after the accepted ones, by currency. Reads only the other
    coups' rules; ``standing`` is left as it was."""
    table = {currency: dict(totals) for currency, totals in standing.table.items()}
    open_stakes = {user_id: dict(by_coup) for user_id, by_coup in standing.open_stakes.items()}
    own = {user_id: dict(by_coup.pop(coup.pk, {})) for user_id, by_coup in open_stakes.items()}
    elsewhere = open_bets_largest_returns(stakes_by_user=open_stakes)
    balances = {user_id: wallet.balance for user_id, wallet in standing.wallets.items()}
    losses = dict(standing.losses)
    paytables = rules.table.paytables()
    answers: list[_Accepted | BetRejected] = []
    for placement in asked:
        user_id = placement.user.pk
        wallet = standing.wallets.get(user_id)
        currency = wallet.currency if wallet is not None else settings.HOUSE_CURRENCY
        own_before = own.get(user_id, {})
        total = money(sum(placement.stakes.values()))
        try:
            protected = bet_refusal(standing.protections.get(user_id), lost=losses.get(user_id, {}), stake=total)
            if protected is not None:
                raise protected
            table_after, own_after = stakes_within_rules(
                rules=rules,
                round_id=coup.round_id,
                currency=currency,
                stakes=placement.stakes,
                marker=markers.get(user_id),
                table=table.get(currency, {}),
                own=own_before,
            )
            bound = BalanceBound(
                on_coup=stakes_largest_return(paytables=paytables, stakes=own_after),
                elsewhere=elsewhere.get(user_id, ZERO),
            )
            balance = balances.get(user_id, ZERO)
            if wallet is None or total > balance or not bound.fits(balance=balance, total=total):
                raise placement_refusal(balance=balance, total=total, bound=bound)
        except BetRejected as refusal:
            answers.append(refusal)
            continue
        balances[user_id] = money(balance - total)
        if user_id in losses:
            losses[user_id] = losses_added(losses[user_id], total)
        joined = bettors_joined(stakes=placement.stakes, before=own_before)
        table[currency], own[user_id] = table_after, own_after
        answers.append(_Accepted(placement, wallet, currency, total, balances[user_id], own_after, joined))
    return answers, table


def _write(*, coup: Coup, accepted: list[_Accepted]) -> list[PlacedBatch]:
    """The accepted placements' rows, set-wise; the wallets already hold their balances after them."""
    now = timezone.now()
    placement_ids = rows_insert_returning_ids(
        LedgerTransaction,
        ("kind", "currency", "coup", "actor", "reason"),
        [(LedgerTransaction.Kind.BET_PLACEMENT.value, a.currency, coup.pk, a.asked.user.pk, "") for a in accepted],
        now=now,
    )
    in_play = {
        currency: system_accounts_locked(
            {Account.Kind.BETS_IN_PLAY}, currency=currency, table_id=coup.table_id, shard=ledger_shard(coup)
        )[Account.Kind.BETS_IN_PLAY]
        for currency in sorted({answer.currency for answer in accepted})
    }
    legs = []
    for answer, placement_id in zip(accepted, placement_ids, strict=True):
        legs.append((placement_id, answer.wallet.pk, -answer.total, answer.balance + answer.total, answer.balance))
        account = in_play[answer.currency]
        before, account.balance = account.balance, money(account.balance + answer.total)
        legs.append((placement_id, account.pk, answer.total, before, account.balance))
    rows_insert(LedgerEntry, ("transaction", "account", "amount", "balance_before", "balance_after"), legs)
    last = {answer.wallet.pk: answer for answer in accepted}  # each wallet's balance after its last placement
    balances_store([*(replace(a.wallet, balance=a.balance) for a in last.values()), *in_play.values()])

    batch_ids = rows_insert_returning_ids(
        BetBatch,
        ("coup", "user", "placement"),
        [(coup.pk, a.asked.user.pk, placement_id) for a, placement_id in zip(accepted, placement_ids, strict=True)],
        now=now,
    )
    bet_ids = iter(
        rows_insert_returning_ids(
            Bet,
            ("batch", "coup", "user", "bet_type", "stake", "stake_account", "state"),
            [
                (batch_id, coup.pk, a.asked.user.pk, bet_type, stake, a.wallet.pk, Bet.State.ACCEPTED.value)
                for a, batch_id in zip(accepted, batch_ids, strict=True)
                for bet_type, stake in a.asked.stakes.items()
            ],
            now=now,
        )
    )
    for currency in in_play:
        changes: dict[str, Decimal] = {}
        bettors: dict[str, int] = {}
        for answer in accepted:
            if answer.currency == currency:
                for bet_type, stake in answer.asked.stakes.items():
                    changes[bet_type] = changes.get(bet_type, ZERO) + stake
                for bet_type in answer.joined:
                    bettors[bet_type] = bettors.get(bet_type, 0) + 1
        stake_totals_move(coup=coup, currency=currency, changes=changes, bettors=bettors)
    rows_insert(
        AuditLog,
        ("actor", "actor_label", "action", "table", "object_type", "object_id", "after", "reason"),
        [
            (
                answer.asked.user.pk,
                answer.asked.user.get_username(),
                answer.asked.action,
                coup.table_id,
                BetBatch.__name__,
                str(batch_id),
                json.dumps(placement_audit(coup, answer.asked.stakes, answer.balance)),
                "",
            )
            for answer, batch_id in zip(accepted, batch_ids, strict=True)
        ],
    )
    wallet_events_send(
        balances={answer.asked.user.pk: answer.balance for answer in accepted},
        round_id=coup.round_id,
        bets_by_user={answer.asked.user.pk: answer.own_after for answer in accepted},
    )
    return [
        _placed(coup, answer, PlacementIds(placement_id, batch_id, [next(bet_ids) for _ in answer.asked.stakes]), now)
        for answer, batch_id, placement_id in zip(accepted, batch_ids, placement_ids, strict=True)
    ]


def _placed(coup: Coup, answer: _Accepted, ids: PlacementIds, now: datetime) -> PlacedBatch:
    """What the placement wrote, without reading it back: its rows as model instances only if asked for."""
    asked = answer.asked

    def built() -> tuple[BetBatch, list[Bet]]:
        batch, bets = placed_instances(
            coup=coup, user=asked.user, currency=answer.currency, stakes=asked.stakes, stake_account_id=answer.wallet.pk
        )
        placed_ids_given(batch, bets, ids=ids, now=now)
        return batch, bets

    return PlacedBatch(
        stakes=asked.stakes, balance=answer.balance, own_totals=answer.own_after, currency=answer.currency, built=built
    )
