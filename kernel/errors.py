"""Every refusal of the platform: one base, ``PuntoError``, whose subclasses each app raises (``tables.errors``,
``wagering.errors``, the partners' and the players' own). A refusal changes nothing; it carries a stable
``code`` (an ``ErrorCode``: partners and the pages' scripts branch on it, so a code's text never changes),
a ``message`` in words and ``details`` (strings), answered as ``as_dict()``, and its class says the HTTP
status an API answers it with.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum


class ErrorCode(StrEnum):
    """Every refusal's code: a string, as the JSON answers carry it (``ErrorCode.X == "x"``)."""

    # Any refusal
    DATABASE_UNAVAILABLE = "database_unavailable"
    INTERNAL_ERROR = "internal_error"
    INVALID_AMOUNT = "invalid_amount"
    REFUSED = "refused"
    # The floor's (tables), and codes the apps above share with it
    ALREADY_BANKER_FIRST = "already_banker_first"
    ALREADY_CLOSED = "already_closed"
    ALREADY_CUT = "already_cut"
    ALREADY_DECIDED = "already_decided"
    ALREADY_OPEN = "already_open"
    ALREADY_REVOKED = "already_revoked"
    ALREADY_SEATED = "already_seated"
    ALREADY_THE_DEALER = "already_the_dealer"
    ALREADY_VOID = "already_void"
    BET_TYPE_NOT_OFFERED = "bet_type_not_offered"
    BURN_CARD_REQUIRED = "burn_card_required"
    CARDS_OUT = "cards_out"
    CARD_ALREADY_KEPT = "card_already_kept"
    CARD_REQUIRED = "card_required"
    CHIPS_IN_PLAY = "chips_in_play"
    CORRECTION_PENDING = "correction_pending"
    CROUPIERS_SHOE = "croupiers_shoe"
    COUP_COMPLETE = "coup_complete"
    COUP_DEALT = "coup_dealt"
    COUP_IN_PROGRESS = "coup_in_progress"
    CURRENCY_INVALID = "currency_invalid"
    CURRENCY_NOT_OFFERED = "currency_not_offered"
    CUT_CARD_ALREADY_OUT = "cut_card_already_out"
    CUT_OUT_OF_RANGE = "cut_out_of_range"
    DESCRIPTION_REQUIRED = "description_required"
    FOUR_EYES = "four_eyes"
    GUEST_NAME_TOO_LONG = "guest_name_too_long"
    HAND_PASSED = "hand_passed"
    HELD_CARD_PENDING = "held_card_pending"
    INCOMPLETE = "incomplete"
    INVALID_CARDS = "invalid_cards"
    INVALID_HAND = "invalid_hand"
    INVALID_NICKNAME = "invalid_nickname"
    INVALID_PERIOD = "invalid_period"
    INVALID_PIT = "invalid_pit"
    INVALID_RULES = "invalid_rules"
    LAST_COUP_OF_SHOE = "last_coup_of_shoe"
    LIMIT_SET_EXISTS = "limit_set_exists"
    MARKER_BET_TYPES_REQUIRED = "marker_bet_types_required"
    MARKER_CURRENCY_NOT_OFFERED = "marker_currency_not_offered"
    MAXIMUM_BELOW_MINIMUM = "maximum_below_minimum"
    NOTHING_TO_CORRECT = "nothing_to_correct"
    NOT_ALONE = "not_alone"
    NOT_A_PHYSICAL_SHOE = "not_a_physical_shoe"
    NOT_A_PIT_BOSS = "not_a_pit_boss"
    NOT_A_PLAYER = "not_a_player"
    NOT_A_PREPARED_PHYSICAL_SHOE = "not_a_prepared_physical_shoe"
    NOT_BETTING = "not_betting"
    NOT_CORRECTABLE = "not_correctable"
    NOT_RNG = "not_rng"
    NOT_YOUR_SHOE = "not_your_shoe"
    NOT_CUT = "not_cut"
    NOT_DEALING = "not_dealing"
    NOT_HELD = "not_held"
    NOT_IN_PIT = "not_in_pit"
    NOT_LIVE = "not_live"
    NOT_PREPARED = "not_prepared"
    NOT_RESOLVED = "not_resolved"
    NOT_SEATED = "not_seated"
    NOT_SHOWING = "not_showing"
    NO_BET_COUPS_NONE = "no_bet_coups_none"
    NO_BET_COUPS_OUT_OF_RANGE = "no_bet_coups_out_of_range"
    NO_DEALER = "no_dealer"
    NO_HELD_CARD = "no_held_card"
    NO_SEATS = "no_seats"
    NO_SHOE_IN_PLAY = "no_shoe_in_play"
    NO_SUCH_HAND = "no_such_hand"
    NO_SUCH_PLAYER = "no_such_player"
    NO_SUCH_SEAT = "no_such_seat"
    PAGE_OUT_OF_DATE = "page_out_of_date"
    PATRON_REQUIRED = "patron_required"
    PERMISSION_NEEDED = "permission_needed"
    PIT_EXISTS = "pit_exists"
    REASON_REQUIRED = "reason_required"
    RESULT_RECORDED = "result_recorded"
    RNG_SHOE = "rng_shoe"
    SEAL_NUMBER_REQUIRED = "seal_number_required"
    SEAT_EMPTY = "seat_empty"
    SEAT_TAKEN = "seat_taken"
    SHOE_CHANGED = "shoe_changed"
    SHOE_DEALT = "shoe_dealt"
    SHOE_FINISHED = "shoe_finished"
    SHOE_HOLDER_ALONE = "shoe_holder_alone"
    SHOE_IN_PLAY = "shoe_in_play"
    SHOE_NOT_DEALT = "shoe_not_dealt"
    SHOE_OVER = "shoe_over"
    SHUFFLE_NOT_RECORDED = "shuffle_not_recorded"
    SHUFFLE_RECORD_INVALID = "shuffle_record_invalid"
    TABLE_CLOSED = "table_closed"
    TOO_MANY_COPIES = "too_many_copies"
    UNKNOWN_BET_TYPE = "unknown_bet_type"
    UNKNOWN_DEALING_ERROR = "unknown_dealing_error"
    UNKNOWN_RULE = "unknown_rule"
    VOID_REQUEST_OPEN = "void_request_open"
    WRONG_SHUFFLE_METHOD = "wrong_shuffle_method"
    # Money's (wagering)
    ABOVE_MAXIMUM = "above_maximum"
    AMOUNT_TOO_LARGE = "amount_too_large"
    BALANCE_LIMIT = "balance_limit"
    BELOW_MINIMUM = "below_minimum"
    BETTING_CLOSED = "betting_closed"
    CURRENCY_MISMATCH = "currency_mismatch"
    EMPTY_BATCH = "empty_batch"
    IDEMPOTENCY_CONFLICT = "idempotency_conflict"
    INSUFFICIENT_FUNDS = "insufficient_funds"
    INVALID_IDEMPOTENCY_KEY = "invalid_idempotency_key"
    INVALID_MULTIPLIER = "invalid_multiplier"
    MAX_DIFFERENTIAL = "max_differential"
    NOT_ENOUGH_CHIPS = "not_enough_chips"
    NO_BETS = "no_bets"
    NO_BET_COUP = "no_bet_coup"
    NO_OPEN_SHIFT = "no_open_shift"
    NO_PREVIOUS_BETS = "no_previous_bets"
    NO_REDUCTION = "no_reduction"
    PLAYER_AND_BANKER = "player_and_banker"
    REQUEST_IN_PROGRESS = "request_in_progress"
    ROUND_NOT_CURRENT = "round_not_current"
    SETTLED = "settled"
    TABLE_MAXIMUM = "table_maximum"
    WALLET_REFUSED = "wallet_refused"
    WALLET_UNAVAILABLE = "wallet_unavailable"
    # Player protection (wagering.protection): limits, reality checks, time-outs, exclusions
    DEPOSIT_LIMIT = "deposit_limit"
    INVALID_LIMIT = "invalid_limit"
    LOSS_LIMIT = "loss_limit"
    REALITY_CHECK = "reality_check"
    SELF_EXCLUDED = "self_excluded"
    SESSION_LIMIT = "session_limit"
    STRICTER_ONLY = "stricter_only"
    TIMED_OUT = "timed_out"
    # The partners' (and their players' launches)
    CURRENCY_LOCKED = "currency_locked"
    INVALID_CURRENCY = "invalid_currency"
    INVALID_EVENTS = "invalid_events"
    INVALID_LANGUAGE = "invalid_language"
    INVALID_PARTNER = "invalid_partner"
    INVALID_PLAYER_ID = "invalid_player_id"
    INVALID_RETURN_URL = "invalid_return_url"
    INVALID_URL = "invalid_url"
    INVALID_WALLET_MODE = "invalid_wallet_mode"
    INVALID_WALLET_SECRET = "invalid_wallet_secret"
    INVALID_WALLET_URL = "invalid_wallet_url"
    LAUNCH_EXPIRED = "expired"
    LAUNCH_UNCONFIRMED = "unconfirmed"
    LAUNCH_UNKNOWN = "unknown"
    LAUNCH_USED = "used"
    NOT_FAILED = "not_failed"
    PARTNER_DISABLED = "partner_disabled"
    PLAYER_ID_UNAVAILABLE = "player_id_unavailable"
    PLAYER_UNAVAILABLE = "player_unavailable"
    TOO_MANY_WEBHOOKS = "too_many_webhooks"
    UNKNOWN_PLAYER = "unknown_player"
    UNKNOWN_TABLE = "unknown_table"
    WALLET_INCOMPLETE = "wallet_incomplete"
    WEBHOOK_DISABLED = "webhook_disabled"
    # The partner API's own answers (its authentication, what it did not find, its input)
    BODY_TOO_LARGE = "body_too_large"
    INVALID_API_KEY = "invalid_api_key"
    INVALID_REQUEST = "invalid_request"
    PLAYER_NOT_FOUND = "player_not_found"
    RATE_LIMITED = "rate_limited"
    ROUND_NOT_FOUND = "round_not_found"
    SHOE_NOT_FOUND = "shoe_not_found"
    TABLE_NOT_FOUND = "table_not_found"
    WEBHOOK_NOT_FOUND = "webhook_not_found"
    # The players' requests (the table page's endpoints and socket)
    BAD_BETS = "bad_bets"
    BAD_JSON = "bad_json"
    BAD_REQUEST = "bad_request"
    INVALID_REQUEST_ID = "invalid_request_id"
    NOT_SIGNED_IN = "not_signed_in"
    NO_LIVE_COUP = "no_live_coup"
    NO_SUCH_TABLE = "no_such_table"
    ROUND_CHANGED = "round_changed"
    STAFF_ACCOUNT = "staff_account"
    TOO_FAST = "too_fast"
    # The multi-table view (casino.players.multi)
    DEALT_ON_DEMAND = "dealt_on_demand"
    TOO_MANY_TABLES = "too_many_tables"
    UNKNOWN_REQUEST = "unknown_request"
    # The sockets' own (kernel.sockets, the table's and the lobby's, the table's chat)
    BAD_MESSAGE = "bad_message"
    CHAT_INVALID = "chat_invalid"
    CHAT_SIGN_IN = "chat_sign_in"
    CHAT_TOO_FAST = "chat_too_fast"
    SNAPSHOT_TOO_FAST = "snapshot_too_fast"
    UNKNOWN_MESSAGE = "unknown_message"


class PuntoError(Exception):
    """A refusal: nothing was changed. ``http_status`` is the class's; ``code`` defaults to the class's."""

    http_status = 400
    default_code = ErrorCode.REFUSED

    def __init__(self, message: str, *, code: str | None = None, details: Mapping[str, str] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.code = ErrorCode(code or self.default_code)
        self.details = dict(details or {})

    def as_dict(self) -> dict:
        """The refusal as every API and socket answers it."""
        return {"code": self.code, "message": self.message, "details": self.details}


class DatabaseUnavailable(PuntoError):
    """The database did not answer mid-request: its transaction rolled back, the request may be sent again."""

    http_status = 503
    default_code = ErrorCode.DATABASE_UNAVAILABLE

    def __init__(self, message: str = "the database did not answer: nothing was changed, try again") -> None:
        super().__init__(message)
