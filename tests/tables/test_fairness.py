"""Provably fair shoes: a commitment published at the start, the order and salt revealed at the end."""

import json
import pickle

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError

from baccarat.cards import parse_cards
from baccarat.fairness import commitment_matches, shoe_commitment
from casino import lifecycle
from kernel.encryption import decrypt, encrypt
from tables import corrections
from tables.models import AuditLog, DealtCard, Shoe
from tables.roles import PIT_BOSS, roles_ensure
from tables.selectors import shoe_verify
from tables.shoes import shoe_prepare
from tests.casino.test_loop import step_until

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_commitment_binds_order_and_salt():
    order = parse_cards("AS KD 9H")
    commitment = shoe_commitment(order, "00ff")
    assert commitment_matches(order, "00ff", commitment)
    assert not commitment_matches(parse_cards("AS 9H KD"), "00ff", commitment)
    assert not commitment_matches(order, "00fe", commitment)


@pytest.fixture
def finished_shoe(auto_table):
    step_until(auto_table, lambda: Shoe.objects.filter(table=auto_table, state="in_play").exists())
    shoe = Shoe.objects.get(table=auto_table, state="in_play")
    step_until(auto_table, lambda: shoe.coups.filter(state="settled").count() >= 3)
    lifecycle.shoe_replace(table=auto_table, actor=None, reason="end the test shoe")
    return Shoe.objects.get(pk=shoe.pk)


def test_the_commitment_is_published_when_the_shoe_is_prepared(auto_table):
    shoe = shoe_prepare(table=auto_table)
    assert len(shoe.commitment) == 64 and commitment_matches(shoe.cards, decrypt(shoe.salt_encrypted), shoe.commitment)
    assert AuditLog.objects.get(action="shoe_prepared", object_id=str(shoe.pk)).after["commitment"] == shoe.commitment


def test_a_finished_shoe_verifies(finished_shoe, capsys):
    call_command("verify_shoe", shoe=finished_shoe.pk, json=True)
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] and report["commitment_ok"] and report["coups_checked"] >= 3
    assert report["salt"] == finished_shoe.reveal().salt


def test_a_tampered_card_is_found(finished_shoe):
    dealt = DealtCard.objects.filter(shoe=finished_shoe).first()
    swapped = "AS" if dealt.card != "AS" else "KD"
    DealtCard.objects.filter(pk=dealt.pk).update(card=swapped)
    check = shoe_verify(shoe=finished_shoe)
    assert check.commitment_ok and not check.ok
    assert any(swapped in line for line in check.mismatches)
    with pytest.raises(CommandError, match="does not verify"):
        call_command("verify_shoe", shoe=finished_shoe.pk)


def test_a_tampered_order_breaks_the_commitment(finished_shoe):
    codes = finished_shoe.reveal().card_order
    codes[-1], codes[-2] = codes[-2], codes[-1]
    if codes[-1] == codes[-2]:
        codes[-1], codes[0] = codes[0], codes[-1]
    Shoe.objects.filter(pk=finished_shoe.pk).update(card_order_encrypted=encrypt(" ".join(codes)))
    finished_shoe.refresh_from_db()
    assert not shoe_verify(shoe=finished_shoe).commitment_ok


def test_a_shoe_in_play_is_not_revealed(auto_table):
    step_until(auto_table, lambda: Shoe.objects.filter(table=auto_table, state="in_play").exists())
    shoe = Shoe.objects.get(table=auto_table, state="in_play")
    with pytest.raises(CommandError, match="revealed when it ends"):
        call_command("verify_shoe", shoe=shoe.pk)
    with pytest.raises(CommandError, match="no shoe"):
        call_command("verify_shoe", shoe=99999)


def test_verification_lists_a_coup_whose_result_was_corrected(finished_shoe):
    """An RNG shoe's order is what was dealt: a four-eyes correction of one of its coups is shown, never
    folded into a clean verification."""
    groups = roles_ensure()
    requester, approver = (
        get_user_model().objects.create_user(username=name, is_staff=True) for name in ("ann-pit", "ben-pit")
    )
    for boss in (requester, approver):
        boss.groups.add(groups[PIT_BOSS])
    coup = finished_shoe.coups.filter(state="settled").order_by("number").first()
    assert shoe_verify(shoe=finished_shoe).mismatches == ()
    dealt_winner = coup.winner
    player, banker = ("KS 9H", "KD 2C") if dealt_winner != "player" else ("KS 2H", "KD 9C")
    correction = corrections.result_correction_request(
        coup=coup, player_cards=player, banker_cards=banker, reason="test", actor=requester
    )
    lifecycle.result_correction_approve(correction=correction, actor=approver)
    coup.refresh_from_db()
    assert coup.winner != dealt_winner
    assert shoe_verify(shoe=finished_shoe).mismatches == (
        f"{coup.round_id}: result corrected to {coup.winner}; the order dealt {dealt_winner}",
    )


def test_a_shoes_order_is_decrypted_once_and_again_when_it_changes(monkeypatch):
    """A deal asks whether its shoe has ended, then deals from it: the order decrypted once, never a stale one."""
    shoe = Shoe(card_order_encrypted=encrypt("AS KD 9H"))
    decrypted = []
    monkeypatch.setattr("tables.models.shoes.decrypt", lambda token: decrypted.append(token) or decrypt(token))
    assert [card.code for card in shoe.cards] == ["AS", "KD", "9H"]
    assert [card.code for card in shoe.cards] == ["AS", "KD", "9H"] and len(decrypted) == 1
    shoe.card_order_encrypted = encrypt("2C 3D")
    assert [card.code for card in shoe.cards] == ["2C", "3D"] and len(decrypted) == 2


def test_a_pickled_shoe_never_carries_its_order_decrypted():
    shoe = Shoe(card_order_encrypted=encrypt("AS KD 9H"))
    assert [card.code for card in shoe.cards] == ["AS", "KD", "9H"]
    copy = pickle.loads(pickle.dumps(shoe))
    assert "_cards_decrypted" in shoe.__dict__ and "_cards_decrypted" not in copy.__dict__
    assert [card.code for card in copy.cards] == ["AS", "KD", "9H"]  # decrypted again when asked
