"""One error base for every refusal (``kernel.errors``): what the players' page, the partners and the
consoles rely on. Its JSON shape, each class's HTTP status, codes that never change, one ``except`` for
them all; and the dealer console no longer takes a bug for a refusal."""

import json
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from casino.players.errors import NoSuchTable, NotSignedIn, RequestRefused, StaffAccount, TooFast
from kernel.errors import DatabaseUnavailable, ErrorCode, PuntoError
from kernel.money import AmountInvalid
from partners.identifiers import PartnerConflict, PartnerRejected, WalletUnavailable
from partners.launch import LaunchGone, LaunchNotFound, LaunchRefused
from tables import coups
from tables.errors import TableError
from tables.models import Coup
from tests.factories import CoupFactory, TableFactory, UserFactory
from tests.ui.conftest import fund
from wagering.errors import (
    BetConflict,
    BetRejected,
    ChipsRefused,
    IdempotencyConflict,
    SettlementRefused,
    WageringError,
    WalletRejected,
)

# Every code answered today: partners and the pages' scripts branch on them, so none may change or go.
PUBLISHED_CODES = """
    above_maximum already_banker_first already_closed already_cut already_decided already_open already_revoked
    already_seated already_the_dealer already_void amount_too_large bad_bets bad_json bad_request balance_limit
    below_minimum bet_type_not_offered betting_closed body_too_large burn_card_required card_already_kept
    card_required cards_out chips_in_play correction_pending coup_complete coup_dealt coup_in_progress
    currency_invalid currency_locked currency_mismatch currency_not_offered cut_card_already_out
    cut_out_of_range database_unavailable description_required empty_batch expired four_eyes
    guest_name_too_long hand_passed held_card_pending idempotency_conflict incomplete insufficient_funds
    internal_error invalid_amount invalid_api_key invalid_cards invalid_currency invalid_events invalid_hand
    invalid_idempotency_key invalid_language invalid_multiplier invalid_nickname invalid_partner invalid_period
    invalid_pit invalid_player_id invalid_request invalid_request_id invalid_return_url invalid_rules
    invalid_url invalid_wallet_mode invalid_wallet_secret invalid_wallet_url last_coup_of_shoe limit_set_exists
    marker_bet_types_required marker_currency_not_offered max_differential maximum_below_minimum no_bet_coup
    no_bet_coups_none no_bet_coups_out_of_range no_bets no_dealer no_held_card no_live_coup no_open_shift
    no_previous_bets no_reduction no_seats no_shoe_in_play no_such_hand no_such_player no_such_seat
    no_such_table not_a_physical_shoe not_a_pit_boss not_a_player not_a_prepared_physical_shoe not_alone
    not_betting not_correctable not_cut not_dealing not_enough_chips not_failed not_held not_in_pit not_live
    not_prepared not_resolved not_seated not_showing not_signed_in nothing_to_correct page_out_of_date
    partner_disabled patron_required permission_needed pit_exists player_and_banker player_id_unavailable
    player_not_found player_unavailable rate_limited reason_required refused request_in_progress
    result_recorded rng_shoe round_changed round_not_current round_not_found seal_number_required seat_empty
    seat_taken settled shoe_finished shoe_in_play shoe_not_found shoe_over shuffle_not_recorded
    shuffle_record_invalid staff_account table_closed table_maximum table_not_found too_fast too_many_copies
    too_many_webhooks unconfirmed unknown unknown_bet_type unknown_dealing_error unknown_player unknown_request
    unknown_rule unknown_table used void_request_open bad_message chat_invalid chat_sign_in chat_too_fast
    snapshot_too_fast unknown_message wallet_incomplete wallet_refused wallet_unavailable
    webhook_disabled webhook_not_found wrong_shuffle_method
""".split()  # noqa: SIM905 (a table of codes)


def test_a_refusal_answers_its_code_message_and_details_as_json():
    refusal = BetRejected("not enough funds", code=ErrorCode.INSUFFICIENT_FUNDS, details={"short_by": "5.00"})
    assert json.dumps(refusal.as_dict()) == (
        '{"code": "insufficient_funds", "message": "not enough funds", "details": {"short_by": "5.00"}}'
    )
    assert str(refusal) == "not enough funds"
    assert TableError("the table is closed").as_dict() == {
        "code": "refused",
        "message": "the table is closed",
        "details": {},
    }


@pytest.mark.parametrize(
    ("refusal", "status"),
    [
        (PuntoError, 400),
        (TableError, 400),
        (WageringError, 400),
        (BetRejected, 400),
        (WalletRejected, 400),
        (SettlementRefused, 400),
        (ChipsRefused, 400),
        (PartnerRejected, 400),
        (RequestRefused, 400),
        (AmountInvalid, 400),
        (NotSignedIn, 401),
        (StaffAccount, 403),
        (LaunchRefused, 403),
        (NoSuchTable, 404),
        (LaunchNotFound, 404),
        (BetConflict, 409),
        (IdempotencyConflict, 409),
        (PartnerConflict, 409),
        (LaunchGone, 410),
        (TooFast, 429),
        (WalletUnavailable, 503),
        (DatabaseUnavailable, 503),
    ],
)
def test_each_class_answers_its_status(refusal, status):
    assert refusal.http_status == status


def test_codes_are_the_strings_clients_read():
    assert {code.value for code in ErrorCode} >= set(PUBLISHED_CODES)
    assert ErrorCode.BETTING_CLOSED == "betting_closed" and json.dumps(ErrorCode.LAUNCH_USED) == '"used"'
    assert DatabaseUnavailable().as_dict()["code"] == "database_unavailable"
    assert NotSignedIn("sign in to play").code == "not_signed_in"
    with pytest.raises(ValueError, match="no_such_code"):
        PuntoError("a code nobody publishes", code="no_such_code")


def test_every_refusal_is_caught_by_the_base():
    for refusal in (TableError("closed", code=ErrorCode.TABLE_CLOSED), BetRejected("no", code=ErrorCode.NO_BETS)):
        with pytest.raises(PuntoError):
            raise refusal
    assert not isinstance(TableError("closed"), ValueError)


def test_a_refused_request_asked_again_answers_its_first_status(db):
    """A refusal recorded under its request_id is answered again as it was first: 409, even though the coup
    takes bets again meanwhile."""
    player = UserFactory(username="alice")
    fund(player, "100.00")
    client = Client()
    client.force_login(player)
    coup = CoupFactory(table=TableFactory(code="pb1"), betting_closes_at=timezone.now() + timedelta(minutes=1))
    Coup.objects.filter(pk=coup.pk).update(state=Coup.State.NO_MORE_BETS)
    body = json.dumps({"bets": {"player": "5"}, "request_id": "r-1"})
    first = client.post("/tables/pb1/bets/", data=body, content_type="application/json")
    Coup.objects.filter(pk=coup.pk).update(state=Coup.State.BETTING)
    again = client.post("/tables/pb1/bets/", data=body, content_type="application/json")
    assert first.status_code == again.status_code == 409
    assert again.json() == first.json() and first.json()["error"]["code"] == "betting_closed"


def test_the_console_shows_a_refusal_and_lets_a_bug_through(dealer, dealer_table, monkeypatch):
    url = reverse("console:coup_open", kwargs={"code": dealer_table.code})
    page = dealer.post(url, follow=True).content.decode()
    assert "has no shoe in play" in page  # a TableError: shown to the dealer

    def bug(**kwargs):
        raise ValueError("a bug, not a refusal")

    monkeypatch.setattr(coups, "coup_open", bug)
    with pytest.raises(ValueError, match="a bug"):
        dealer.post(url)
