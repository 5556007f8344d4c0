"""Money: accounts, a double-entry ledger, bets and their settlement, and the drop/win reports.

Every movement of money is one ``LedgerTransaction`` whose ``LedgerEntry`` legs sum to
zero (a statement trigger refuses anything else on PostgreSQL). An entry's
``amount`` is signed: positive credits the account. Player wallets can never go below
zero (a check constraint on the stored balance); system accounts may.
"""

from wagering.models.accounts import (
    CENT,
    LEDGER_SHARDS,
    SHARDED_KINDS,
    ZERO,
    Account,
    IdempotencyKey,
    LedgerEntry,
    LedgerTransaction,
    house_currency,
    ledger_shard,
    money,
)
from wagering.models.bets import (
    BETTOR_ONE_OF_TWO,
    Bet,
    BetAdjustment,
    BetBatch,
    BetRequest,
    BetSettlement,
    CoupStakeTotal,
    PlayerAdjustment,
)
from wagering.models.chips import ChipMovement, TrayCount
from wagering.models.protection import LIMIT_FIELDS, PlayerProtection
from wagering.models.reports import GameReport, ShoeReport, TableDayReport
from wagering.models.roots import LedgerRoot

__all__ = [
    "BETTOR_ONE_OF_TWO",
    "CENT",
    "LEDGER_SHARDS",
    "LIMIT_FIELDS",
    "SHARDED_KINDS",
    "ZERO",
    "Account",
    "Bet",
    "BetAdjustment",
    "BetBatch",
    "BetRequest",
    "BetSettlement",
    "ChipMovement",
    "CoupStakeTotal",
    "GameReport",
    "IdempotencyKey",
    "LedgerEntry",
    "LedgerRoot",
    "LedgerTransaction",
    "PlayerAdjustment",
    "PlayerProtection",
    "ShoeReport",
    "TableDayReport",
    "TrayCount",
    "house_currency",
    "ledger_shard",
    "money",
]
