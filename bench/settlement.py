"""Benchmark settlement: ``.venv/bin/python bench/settlement.py [--largest 100000]`` (PostgreSQL and Redis,
its own database; ``--largest`` leaves out the larger sizes, for a short run).

Bets are written in bulk in the shape bet placement writes them (a batch per player, its bets,
its placement transaction moving the stakes from the wallet to bets in play), on a resolved
coup; then ``casino.lifecycle.settlement.coup_settle`` is timed as the table loop runs it: the whole
service, its commit and its on-commit callbacks (the live events, through Redis).
Each coup's bets are ``ANALYZE``d once written, before its settlement is timed (this server runs with
autovacuum off), and the CPU of this process and of its PostgreSQL backends per bet is printed.
Targets: a coup of 10,000 bets from 5,000 players settled in at most 1 s on 2 cores (issue 8),
100,000 bets from 50,000 players in at most 3 s (issue 29; 4 s in issue 16), and linear in the number of bets (each
size's time at most 15 times the size ten times smaller). Afterwards the ledger must balance, every
entry carry the balance before and after it, and every bet have one settlement. Exits 1 on a miss.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from decimal import Decimal
from itertools import pairwise
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import Verdicts, analyze, baseline_seconds, bench_database_reset, django_setup, timed
from bench.load_harness import CpuMeter

TARGET_SECONDS = {10_000: 1.0, 100_000: 3.0}
MAX_LINEARITY = 15.0
SIZES = ((1_000, 500), (10_000, 5_000), (100_000, 50_000))  # bets, players (each a main bet and a side bet)
REPETITIONS = {1_000: 3, 10_000: 3, 100_000: 2}
FUNDS = Decimal("1000000.00")
FUNDING_LEGS = 250  # wallets per funding transaction (its legs one statement, summed once by the ledger trigger)
MAIN_STAKE, SIDE_STAKE = Decimal("10.00"), Decimal("1.00")
SIDE_BETS = ("tie", "player_pair", "banker_pair")
CARDS = ("TS 6H 2D KC 2S", "9S 2H KD 3C", "8S 8H 8D 8C")  # banker wins with 6, player natural, tie with pairs


def players_create(count: int, *, first: int = 0) -> list[int]:
    """``count`` players with funded wallets, funded by balanced deposits from the operator's float; their
    names numbered from ``first``."""
    from django.contrib.auth import get_user_model
    from django.db import transaction

    from wagering.models import ZERO, Account, LedgerEntry, LedgerTransaction

    users = get_user_model().objects.bulk_create(
        get_user_model()(username=f"bench{index}", password="!") for index in range(first, first + count)
    )
    user_ids = [user.pk for user in users]
    for start in range(0, count, FUNDING_LEGS):
        chunk = user_ids[start : start + FUNDING_LEGS]
        with transaction.atomic():
            float_account, _ = Account.objects.get_or_create(kind=Account.Kind.PARTNER_FLOAT, partner_code="")
            wallets = Account.objects.bulk_create(
                Account(kind=Account.Kind.PLAYER, user_id=user_id, balance=FUNDS) for user_id in chunk
            )
            deposit = LedgerTransaction.objects.create(kind=LedgerTransaction.Kind.DEPOSIT, reason="bench funding")
            total = FUNDS * len(wallets)
            entries = [
                LedgerEntry(transaction=deposit, account=wallet, amount=FUNDS, balance_before=ZERO, balance_after=FUNDS)
                for wallet in wallets
            ]
            before = float_account.balance
            float_account.balance = before - total
            entries.append(
                LedgerEntry(
                    transaction=deposit,
                    account=float_account,
                    amount=-total,
                    balance_before=before,
                    balance_after=float_account.balance,
                )
            )
            LedgerEntry.objects.bulk_create(entries)
            float_account.save(update_fields=["balance"])
    return user_ids


def table_create():
    from tables.models import Shoe
    from tables.services import table_create

    table = table_create(code="bench", name="Bench", side_bets=["player_pair", "banker_pair"])
    Shoe.objects.create(
        table=table,
        number=1,
        decks=8,
        shuffle_method=Shoe.ShuffleMethod.RNG,
        cut_card_position=364,
        state=Shoe.State.IN_PLAY,
    )
    return table


def coup_create(table, *, index: int):
    """A coup of the table's shoe, with the rules snapshot coup_open takes, in the betting state."""
    from tables.models import Coup
    from tables.selectors import table_coup_rules

    shoe = table.shoes.get()
    return Coup.objects.create(
        table=table,
        shoe=shoe,
        number=index + 1,
        round_id=Coup.new_round_id(table.code),
        rules=table_coup_rules(table=table).to_json(),
    )


def bets_place(coup, user_ids: list[int]) -> int:
    """Each player's batch of a main bet and a side bet, as ``_batch_place`` writes it; the bets written."""
    from django.db import connection, transaction

    from wagering.models import Account, Bet, BetBatch, LedgerEntry, LedgerTransaction

    total = MAIN_STAKE + SIDE_STAKE
    with transaction.atomic():
        wallets = dict(
            Account.objects.select_for_update()
            .filter(kind=Account.Kind.PLAYER, user_id__in=user_ids)
            .values_list("user_id", "balance")
        )
        in_play, _ = Account.objects.get_or_create(kind=Account.Kind.BETS_IN_PLAY, table_id=coup.table_id, shard=0)
        in_play = Account.objects.select_for_update().get(pk=in_play.pk)
        wallet_ids = dict(
            Account.objects.filter(kind=Account.Kind.PLAYER, user_id__in=user_ids).values_list("user_id", "pk")
        )
        placements = LedgerTransaction.objects.bulk_create(
            LedgerTransaction(kind=LedgerTransaction.Kind.BET_PLACEMENT, coup=coup, actor_id=user_id)
            for user_id in user_ids
        )
        entries, in_play_balance = [], in_play.balance
        for user_id, placement in zip(user_ids, placements, strict=True):
            before = wallets[user_id]
            entries.append(
                LedgerEntry(
                    transaction=placement,
                    account_id=wallet_ids[user_id],
                    amount=-total,
                    balance_before=before,
                    balance_after=before - total,
                )
            )
            entries.append(
                LedgerEntry(
                    transaction=placement,
                    account=in_play,
                    amount=total,
                    balance_before=in_play_balance,
                    balance_after=in_play_balance + total,
                )
            )
            in_play_balance += total
        LedgerEntry.objects.bulk_create(entries)
        with connection.cursor() as cursor:
            cursor.execute(
                "UPDATE wagering_account SET balance = balance - %s WHERE kind = 'player' AND user_id = ANY(%s)",
                [total, user_ids],
            )
        Account.objects.filter(pk=in_play.pk).update(balance=in_play_balance)
        batches = BetBatch.objects.bulk_create(
            BetBatch(coup=coup, user_id=user_id, placement=placement)
            for user_id, placement in zip(user_ids, placements, strict=True)
        )
        bets = []
        for index, batch in enumerate(batches):
            main = "banker" if index % 2 else "player"
            side = SIDE_BETS[index % len(SIDE_BETS)]
            bets += [
                Bet(
                    batch=batch,
                    coup=coup,
                    user_id=batch.user_id,
                    bet_type=bet_type,
                    stake=stake,
                    stake_account_id=wallet_ids[batch.user_id],
                )
                for bet_type, stake in ((main, MAIN_STAKE), (side, SIDE_STAKE))
            ]
        Bet.objects.bulk_create(bets)
    return len(bets)


class DatabaseTime:
    """The seconds a settlement waits for PostgreSQL: its statements (the longest named) and its commit
    (the deferred foreign-key checks and ledger triggers). COPY goes past Django's cursor: not counted."""

    def __init__(self) -> None:
        self.statements: list[tuple[float, str]] = []
        self.commit = 0.0

    def statement(self, execute, sql, params, many, context):
        start = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            self.statements.append((time.perf_counter() - start, " ".join(sql.split())[:60]))

    def settle(self, coup_id: int) -> None:
        from django.db import connection

        from casino.lifecycle.settlement import coup_settle

        commit = connection.commit

        def timed_commit() -> None:
            self.commit += timed(commit)

        connection.commit = timed_commit
        try:
            with connection.execute_wrapper(self.statement):
                coup_settle(coup_id=coup_id)
        finally:
            del connection.commit

    @property
    def total(self) -> float:
        return sum(seconds for seconds, _ in self.statements) + self.commit


def settlement_time(table, user_ids: list[int], *, index: int) -> tuple[int, float, DatabaseTime, dict]:
    """Bets from the players on a fresh resolved coup (``ANALYZE``d), then the seconds ``coup_settle`` takes,
    the database's part of them, and the CPU used (this process as ``web``, its PostgreSQL backends)."""
    from tests.factories import coup_deal_and_resolve

    coup = coup_create(table, index=index)
    bets = bets_place(coup, user_ids)
    coup_deal_and_resolve(coup, CARDS[index % len(CARDS)])
    analyze(quiet=True)
    database = DatabaseTime()
    meter = CpuMeter(web=[os.getpid()], quiet=True)
    meter.start()
    seconds = timed(lambda: database.settle(coup.pk))
    return bets, seconds, database, meter.stop()


def ledger_problems() -> list[str]:
    """What is wrong with the ledger and the bets after the runs (nothing, when settlement is right)."""
    from django.db.models import Count, Sum

    from wagering.checks import ledger_check
    from wagering.models import Bet, BetSettlement, LedgerEntry, LedgerTransaction

    problems = ledger_check().problems
    unsettled = Bet.objects.exclude(state=Bet.State.SETTLED).count()
    settled = BetSettlement.objects.count()
    if unsettled or settled != Bet.objects.count():
        problems.append(f"{unsettled} bets not settled, {settled} settlements for {Bet.objects.count()} bets")
    settlements = LedgerTransaction.objects.filter(kind=LedgerTransaction.Kind.SETTLEMENT)
    if settlements.annotate(bets=Count("bet_settlements")).filter(bets=0).exists():
        problems.append("a settlement transaction without bets")
    paid = BetSettlement.objects.aggregate(total=Sum("returned"))["total"] or 0
    credited = (
        LedgerEntry.objects.filter(transaction__in=settlements, account__kind="player").aggregate(total=Sum("amount"))[
            "total"
        ]
        or 0
    )
    if paid != credited:
        problems.append(f"bets returned {paid} but the wallets were credited {credited}")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--largest", type=int, default=SIZES[-1][0], help="the largest size run (bets)")
    sizes = tuple((bets, players) for bets, players in SIZES if bets <= parser.parse_args().largest)
    django_setup(real=True, name="punto_bench_settlement", redis_db=4)
    bench_database_reset()
    unit = baseline_seconds()
    print(f"baseline (pure-Python loop, best of 5): {unit * 1e3:.3f} ms")
    user_ids = players_create(max(players for _, players in sizes))
    table = table_create()
    print("ANALYZE: after each coup's bets are written, before its settlement is timed")
    settlement_time(table, user_ids[:10], index=0)  # warm-up: opens the house account, the connections
    medians, in_database, index = {}, {}, 1
    for bets, players in sizes:
        times, database, cpu = [], [], []
        for _ in range(REPETITIONS[bets]):
            written, seconds, waited, used = settlement_time(table, user_ids[:players], index=index)
            assert written == bets, (written, bets)
            times.append(seconds)
            database.append(waited)
            cpu.append(used)
            index += 1
        medians[bets] = median = statistics.median(times)
        print(
            f"{bets:>6,} bets from {players:,} players: median {median * 1e3:.1f} ms "
            f"({', '.join(f'{t * 1e3:.1f}' for t in times)} ms), {median / bets * 1e3:.4f} ms per bet, "
            f"{median / unit:.1f} x baseline"
        )
        least = min(cpu, key=lambda used: used["web"] + used["PostgreSQL"])
        print(
            f"        CPU per bet (its least run): this process {least['web'] / bets * 1e3:.4f} ms, its PostgreSQL "
            f"backends {least['PostgreSQL'] / bets * 1e3:.4f} ms, Redis {least['Redis'] / bets * 1e3:.4f} ms"
        )
        in_database[bets] = fastest = min(database, key=lambda each: each.total)
        longest = ", ".join(f"{sql} {seconds:.2f} s" for seconds, sql in sorted(fastest.statements, reverse=True)[:2])
        print(
            f"        of which PostgreSQL (its fastest run): {fastest.total:.2f} s, statements "
            f"{fastest.total - fastest.commit:.2f} s (longest: {longest}), commit {fastest.commit:.2f} s"
        )
    for bets, target in TARGET_SECONDS.items():
        if bets not in in_database:
            continue
        floor = in_database[bets].total
        print(
            f"PostgreSQL's part at {bets:,} bets: {floor:.2f} s at its fastest (statements and commit, no "
            f"Python, the legs' COPY not counted); the {target:g} s target "
            + (
                f"leaves {target - floor:.2f} s for everything else"
                if floor < target
                else f"is out of reach in this run: {floor - target:.2f} s over before any Python"
            )
        )
    ratios = {(small, large): medians[large] / medians[small] for (small, _), (large, _) in pairwise(sizes)}
    for (small, large), ratio in ratios.items():
        print(f"{large:,}-bet time / {small:,}-bet time: {ratio:.2f} (linear: about {large // small})")
    problems = ledger_problems()
    for problem in problems:
        print(f"ledger: {problem}")
    print(f"ledger after the runs: {'balanced, every bet settled once' if not problems else 'WRONG'}")
    verdicts = Verdicts()
    for bets, players in sizes:
        if bets in TARGET_SECONDS:
            verdicts.check(
                f"settle {bets:,} bets from {players:,} players", medians[bets], TARGET_SECONDS[bets], unit=" s"
            )
    for (small, large), ratio in ratios.items():
        verdicts.check(f"settlement linearity ({large:,} / {small:,} time)", ratio, MAX_LINEARITY)
    verdicts.check("ledger problems", len(problems), 0)
    return verdicts.exit_code()


if __name__ == "__main__":
    sys.exit(main())
