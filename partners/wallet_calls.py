"""Calling a partner's seamless wallet: one signed JSON POST per attempt, its answer read and recorded.

The protocol (``docs/api.md``): ``POST <wallet_url>/balance|debit|credit|rollback``, JSON, signed as
webhooks are (``Punto-Signature`` with the partner's wallet secret). ``200 {"balance": "12.34"}``
acknowledges; a 4xx ``{"error": "<code>", "balance"}`` refuses (a debit not taken); anything else (no
answer within the deadline, 5xx, an answer that is not that JSON) is a failure: whether the partner
moved the money is unknown, so a debit is rolled back and a credit or rollback sent again.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from decimal import Decimal
from enum import Enum

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from kernel.encryption import decrypt
from kernel.money import CENT
from partners.deliveries import SIGNATURE_HEADER, webhook_signature
from partners.models import Partner, WalletCallAttempt, WalletTransaction
from partners.webhook_http import partner_post

ERROR_CODE = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
BALANCE_TEXT = re.compile(r"-?[0-9]{1,12}(\.[0-9]{1,2})?")
FINAL_STATES = (WalletTransaction.State.ACKNOWLEDGED, WalletTransaction.State.REFUSED, WalletTransaction.State.FAILED)


class Outcome(Enum):
    ACKNOWLEDGED = "acknowledged"
    REFUSED = "refused"
    FAILED = "failed"


@dataclass(frozen=True)
class WalletAnswer:
    outcome: Outcome
    balance: Decimal | None = None  # as the partner answered
    error_code: str = ""  # the partner's refusal
    status_code: int | None = None
    error: str = ""  # what went wrong, for the record


def wallet_post(*, partner: Partner, operation: str, body: dict, deadline_seconds: float) -> WalletAnswer:
    """One signed POST to ``<wallet_url>/<operation>`` and what its answer means."""
    if not (partner.wallet_url and partner.wallet_secret_encrypted):
        return WalletAnswer(Outcome.FAILED, error=f"{partner.code} has no seamless wallet configured")
    raw = json.dumps(body, separators=(",", ":")).encode()
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json",
        "User-Agent": "Punto-Wallet/1",
        SIGNATURE_HEADER: webhook_signature(
            secret=decrypt(partner.wallet_secret_encrypted), timestamp=int(time.time()), body=raw
        ),
    }
    url = f"{partner.wallet_url.rstrip('/')}/{operation}"
    answer = partner_post(url=url, body=raw, headers=headers, deadline_seconds=deadline_seconds)
    if answer.status is None:
        return WalletAnswer(Outcome.FAILED, error=answer.error)
    try:
        content = json.loads(answer.body, parse_float=Decimal)
    except ValueError:
        content = None
    balance = _balance(content)
    if answer.status == 200 and balance is not None:
        return WalletAnswer(Outcome.ACKNOWLEDGED, balance=balance, status_code=200)
    excerpt = f"HTTP {answer.status} {answer.reason}: {answer.body[:300]}".strip()
    code = content.get("error") if isinstance(content, dict) else None
    if 400 <= answer.status < 500 and isinstance(code, str) and ERROR_CODE.match(code):
        return WalletAnswer(Outcome.REFUSED, balance=balance, error_code=code, status_code=answer.status, error=excerpt)
    if answer.status == 200:
        excerpt = f"HTTP 200 without a balance: {answer.body[:300]}"
    return WalletAnswer(Outcome.FAILED, status_code=answer.status, error=excerpt)


def _balance(content: object) -> Decimal | None:
    """The answer's ``balance``: a string amount to the cent (zero, or below on credit), else None."""
    if not isinstance(content, dict) or not isinstance(content.get("balance"), str):
        return None
    text = content["balance"]
    return Decimal(text).quantize(CENT) if BALANCE_TEXT.fullmatch(text) else None


def wallet_deadline_seconds() -> float:
    return settings.SEAMLESS_WALLET_DEADLINE_SECONDS


def wallet_transaction_call(*, wallet_transaction: WalletTransaction, deadline_seconds: float) -> WalletAnswer:
    """Send the transaction (again: the partner de-duplicates by its ``transaction_id``) and record the
    attempt. A debit takes its final state here; a credit or rollback only once acknowledged."""
    started_at, started = timezone.now(), time.monotonic()
    answer = wallet_post(
        partner=wallet_transaction.partner,
        operation=wallet_transaction.kind,
        body=wallet_transaction.body,
        deadline_seconds=deadline_seconds,
    )
    _attempt_record(
        wallet_transaction=wallet_transaction,
        answer=answer,
        started_at=started_at,
        duration_ms=int((time.monotonic() - started) * 1000),
    )
    return answer


@transaction.atomic
def _attempt_record(
    *, wallet_transaction: WalletTransaction, answer: WalletAnswer, started_at, duration_ms: int
) -> None:
    locked = WalletTransaction.objects.select_for_update(of=("self",)).get(pk=wallet_transaction.pk)
    WalletCallAttempt.objects.create(
        transaction=locked,
        started_at=started_at,
        duration_ms=duration_ms,
        status_code=answer.status_code,
        outcome=answer.outcome.value,
        error=answer.error,
    )
    locked.attempts += 1
    locked.last_status_code, locked.last_error = answer.status_code, answer.error
    if answer.balance is not None:
        locked.partner_balance = answer.balance
    if locked.state == WalletTransaction.State.PENDING:
        if answer.outcome is Outcome.ACKNOWLEDGED:
            locked.state, locked.finished_at = WalletTransaction.State.ACKNOWLEDGED, timezone.now()
        elif _asked_once(locked) or (answer.outcome is Outcome.REFUSED and locked.correction_id is not None):
            # A bet's debit is asked once (the bet waits for it); a correction's debit refused stays refused.
            locked.state = (
                WalletTransaction.State.REFUSED if answer.outcome is Outcome.REFUSED else WalletTransaction.State.FAILED
            )
            locked.error_code, locked.finished_at = answer.error_code, timezone.now()
    locked.save()
    wallet_transaction.__dict__.update(
        {name: getattr(locked, name) for name in ("state", "attempts", "partner_balance", "error_code")}
    )


def _asked_once(wallet_transaction: WalletTransaction) -> bool:
    return wallet_transaction.kind == WalletTransaction.Kind.DEBIT and wallet_transaction.correction_id is None
