"""One deal at a table dealt on demand, in a process of its own, that stops dead between the bet's debit and
the deal (``casino.lifecycle.rng``): it prints ``paused`` there and waits to be killed.

``python -m tests.faults.rng_deal_process USER_ID TABLE_CODE COMMITMENT REQUEST_ID BETS_JSON [--seamless]``

The player's own wallet: it stops inside the deal's transaction, the bets placed (the wallet debited), the
coup not dealt. ``--seamless`` (the user's partner's wallet): it stops once the partner acknowledged the
debit, which is committed, before the transaction that places, deals and settles.
"""

from __future__ import annotations

import argparse
import json
import os

from tests.faults.loop_process import wait_to_be_killed


def main() -> None:
    parser = argparse.ArgumentParser()
    for name in ("user_id", "table", "commitment", "request_id", "bets"):
        parser.add_argument(name)
    parser.add_argument("--seamless", action="store_true")
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")
    import django

    django.setup()
    from django.contrib.auth import get_user_model

    from casino.lifecycle import rng
    from partners.selectors.accounts import seamless_player
    from tables.models import Table

    user = get_user_model().objects.get(pk=args.user_id)
    if args.seamless:
        debit = rng.seamless_debit

        def debited(**kwargs):
            debit(**kwargs)
            wait_to_be_killed()

        rng.seamless_debit = debited
    else:
        rng.private_coup_deal = lambda **kwargs: wait_to_be_killed()
    asked = rng.RngDealAsked(
        user=user,
        table=Table.objects.get(code=args.table),
        bets=json.loads(args.bets),
        commitment=args.commitment,
        request_id=args.request_id,
        seamless=seamless_player(user=user) if args.seamless else None,
    )
    rng.rng_coup_deal(asked=asked)


if __name__ == "__main__":
    main()
