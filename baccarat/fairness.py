"""Provably fair shoes: a SHA-256 commitment to the card order, published before the first coup.

``commitment = sha256("<salt>:<codes separated by spaces>")``. When the shoe ends the salt and
the order are revealed; anyone can recompute the commitment and replay every coup.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Sequence

from baccarat.cards import Card


def new_salt() -> str:
    return secrets.token_hex(16)


def shoe_commitment(cards: Sequence[Card], salt: str) -> str:
    order = " ".join(card.code for card in cards)
    return hashlib.sha256(f"{salt}:{order}".encode()).hexdigest()


def commitment_matches(cards: Sequence[Card], salt: str, commitment: str) -> bool:
    return hmac.compare_digest(shoe_commitment(cards, salt), commitment.lower())
