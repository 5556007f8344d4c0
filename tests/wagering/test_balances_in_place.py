"""A settlement's new balances are written beside their accounts' rows (migration ``wagering/0028``): each new
version of a wallet stays on its row's page, so PostgreSQL writes it as a heap-only tuple and none of the
account's indexes takes an entry for it. On pages filled to the brim the versions went to other pages."""

from __future__ import annotations

import time

import pytest
from django.db import connection

from casino.lifecycle.settlement import coup_settle
from tests.factories import CoupFactory, coup_deal_and_resolve
from tests.wagering.conftest import postgres_only
from tests.wagering.test_settlement import BANKER_SIX, bettor
from wagering.models import Account

# Committed one by one, as in play: a page's older versions are pruned once no transaction can see them.
pytestmark = [pytest.mark.postgres, postgres_only, pytest.mark.django_db(transaction=True)]

BETTORS = 240  # some 100 accounts fill a page: the wallets span several


def wallet_pages(users) -> dict[int, tuple[int, str]]:
    """Each wallet's page (the block of its row's current version) and balance, by user."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT user_id, (ctid::text::point)[0]::int, balance::text FROM wagering_account "
            "WHERE kind = %s AND user_id = ANY(%s)",
            [Account.Kind.PLAYER, [user.pk for user in users]],
        )
        return {user_id: (page, balance) for user_id, page, balance in cursor.fetchall()}


def transaction_older_than_now(*, waited: float = 3.0) -> int | None:
    """A transaction on this server, in any database, that began before this moment and is still running after
    ``waited`` seconds: while it runs every snapshot here counts it, so no page drops the row versions that the bets'
    commits left, and new versions find no room on them, with or without the fill factor."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT txid_current()")  # committed at once: no transaction is around this test
        (now,) = cursor.fetchone()
        deadline = time.monotonic() + waited
        while True:
            cursor.execute("SELECT txid_snapshot_xmin(txid_current_snapshot())")
            (oldest_running,) = cursor.fetchone()
            if oldest_running > now:
                return None
            if time.monotonic() > deadline:
                return oldest_running
            time.sleep(0.05)


def test_a_settlement_moves_every_balance_on_its_own_page():
    Account.objects.create(kind=Account.Kind.HOUSE)
    coup = CoupFactory()
    users = [bettor(coup, {"banker": "10"}) for _ in range(BETTORS)]
    coup_deal_and_resolve(coup, BANKER_SIX)
    before = wallet_pages(users)
    if (older := transaction_older_than_now()) is not None:
        pytest.skip(f"transaction {older}, elsewhere on this server, keeps the pages' older row versions")
    assert len({page for page, _ in before.values()}) > 1

    coup_settle(coup_id=coup.pk)

    after = wallet_pages(users)
    assert {balance for _, balance in after.values()} == {"1009.50"}  # 1000 - 10 + 19.50: every wallet moved
    moved = [user_id for user_id, (page, _) in after.items() if page != before[user_id][0]]
    # On full pages 233 of 240 left it; a few may still go where a page's older versions were not yet dropped.
    assert len(moved) <= BETTORS // 20, f"{len(moved)} of {BETTORS} balances left their page"
