"""The casino floor's models (Django's models package): pits, tables, seats, shoes, coups, dealt and held cards,
limit markers, dealers, void requests, result corrections and the audit log, by family in the modules below."""

from tables.models.audit import AuditLog, AuditLogQuerySet
from tables.models.coups import Coup, CoupVoidRequest, DealtCard, HeldCard, ResultCorrection, VoidReason
from tables.models.floor import (
    BET_TYPE_CHOICES,
    CUT_CARD_RULES,
    HAND_CHOICES,
    WINNER_CHOICES,
    BetLimit,
    DealerSession,
    LimitSet,
    PersonalLimitMarker,
    PlayerProfile,
    Table,
)
from tables.models.pits import Pit
from tables.models.seating import Seat, SeatSession
from tables.models.shoes import Shoe, ShoeSecrets

__all__ = [
    "BET_TYPE_CHOICES",
    "CUT_CARD_RULES",
    "HAND_CHOICES",
    "WINNER_CHOICES",
    "AuditLog",
    "AuditLogQuerySet",
    "BetLimit",
    "Coup",
    "CoupVoidRequest",
    "DealerSession",
    "DealtCard",
    "HeldCard",
    "LimitSet",
    "PersonalLimitMarker",
    "Pit",
    "PlayerProfile",
    "ResultCorrection",
    "Seat",
    "SeatSession",
    "Shoe",
    "ShoeSecrets",
    "Table",
    "VoidReason",
]
