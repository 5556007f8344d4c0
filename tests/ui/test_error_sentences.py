"""Every refusal a player can meet has a sentence of the page's own in English and Chinese (docs/ui.md, Languages):
the codes come from ``kernel.errors.ErrorCode`` less those only staff and partners meet, written to the fixture
that tests/js/errors.test.mjs reads, where each must have its sentence in both languages. A new code is the
players' until it is listed below, so it fails until it has its sentences."""

from __future__ import annotations

import json
import os
from pathlib import Path

from django.conf import settings

from kernel.errors import ErrorCode

FIXTURE = Path(settings.BASE_DIR) / "tests" / "js" / "fixtures" / "player-error-codes.json"

# Codes only staff (the console, the admin, the floor's services) and partners (their API, their wallets'
# settings, a launch's creation) are answered with: a player's page never receives them.
NOT_FOR_PLAYERS = """
    already_banker_first already_closed already_cut already_decided already_open already_revoked already_seated
    already_the_dealer already_void body_too_large burn_card_required card_already_kept card_required cards_out
    chips_in_play correction_pending coup_complete croupiers_shoe shoe_dealt shoe_not_dealt shoe_holder_alone
    coup_dealt coup_in_progress currency_invalid currency_locked
    cut_card_already_out cut_out_of_range description_required four_eyes guest_name_too_long hand_passed
    held_card_pending incomplete invalid_api_key invalid_cards invalid_currency invalid_events invalid_hand
    invalid_idempotency_key invalid_language invalid_nickname invalid_partner invalid_period invalid_pit
    invalid_player_id invalid_request invalid_return_url invalid_rules invalid_url invalid_wallet_mode
    invalid_wallet_secret invalid_wallet_url last_coup_of_shoe limit_set_exists marker_bet_types_required
    marker_currency_not_offered maximum_below_minimum no_bet_coups_none no_bet_coups_out_of_range no_dealer
    no_held_card no_open_shift no_reduction no_seats no_shoe_in_play no_such_hand no_such_player no_such_seat
    not_a_physical_shoe not_a_pit_boss not_a_player not_a_prepared_physical_shoe not_alone not_correctable not_cut
    not_dealing not_enough_chips not_failed not_held not_in_pit not_live not_prepared not_resolved not_seated
    not_showing not_your_shoe nothing_to_correct page_out_of_date patron_required permission_needed pit_exists
    player_id_unavailable player_not_found player_unavailable rate_limited reason_required result_recorded rng_shoe
    round_not_found seal_number_required seat_empty seat_taken shoe_finished shoe_in_play
    shoe_not_found shoe_over
    shuffle_not_recorded shuffle_record_invalid stricter_only table_not_found too_many_copies too_many_webhooks
    unknown_dealing_error unknown_player unknown_rule void_request_open wallet_incomplete webhook_disabled
    webhook_not_found wrong_shuffle_method
""".split()  # noqa: SIM905 (a table of codes)


def player_codes() -> list[str]:
    return sorted({code.value for code in ErrorCode} - set(NOT_FOR_PLAYERS))


def test_the_codes_left_out_are_codes():
    assert set(NOT_FOR_PLAYERS) <= {code.value for code in ErrorCode}
    assert len(NOT_FOR_PLAYERS) == len(set(NOT_FOR_PLAYERS))


def test_the_js_fixture_lists_every_code_a_player_can_meet():
    """Regenerate with ``UPDATE_JS_FIXTURES=1`` (then give each new code its sentences in static/js/errors.js)."""
    codes = player_codes()
    if os.environ.get("UPDATE_JS_FIXTURES") == "1":
        FIXTURE.write_text(json.dumps(codes, indent=2) + "\n", encoding="utf-8")
    assert json.loads(FIXTURE.read_text(encoding="utf-8")) == codes, (
        "tests/js/fixtures/player-error-codes.json is out of date: UPDATE_JS_FIXTURES=1 pytest " + __file__
    )
    assert {"betting_closed", "chat_too_fast", "used", "below_minimum", "no_previous_bets"} <= set(codes)
