"""A database dump reveals no shoe's order, salt or burned cards, and no webhook secret: they are encrypted
with ENCRYPTION_KEY (kernel.encryption), and only dealing, the reveal and webhook signing decrypt them."""

from __future__ import annotations

import os
import stat

import pytest
from django.core.exceptions import PermissionDenied
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from kernel import encryption
from kernel.encryption import DecryptionFailed, decrypt, encrypt, key_generate
from partners import webhooks
from partners.models import WebhookEndpoint
from partners.services import partner_create
from tables.models import AuditLog, Shoe
from tables.selectors import shoe_is_finished
from tables.shoes import shoe_finish, shoe_prepare, shoe_start

pytestmark = pytest.mark.django_db

FERNET_TOKEN_PREFIX = "gAAAAA"
SHOE_SECRETS = ("card_order_encrypted", "salt_encrypted", "burned_cards_encrypted")


def raw_row(table: str, pk: int) -> dict[str, object]:
    """The row as a database dump has it."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT * FROM {table} WHERE id = %s", [pk])
        names = [column[0] for column in cursor.description]
        return dict(zip(names, cursor.fetchone(), strict=True))


@pytest.fixture
def shoe_in_play(auto_table, pit_boss) -> Shoe:
    return shoe_start(shoe=shoe_prepare(table=auto_table, actor=pit_boss))


@pytest.fixture
def endpoint_created(db):
    partner = partner_create(code="acme", name="Acme")
    return webhooks.webhook_endpoint_create(partner=partner, url="https://partner.example/hooks")


@pytest.fixture
def keys(settings):
    """Sets ENCRYPTION_KEY to the given keys (first encrypts)."""

    def use(*new_keys: str) -> None:
        settings.ENCRYPTION_KEYS = list(new_keys)

    return use


def test_a_dump_of_a_shoe_in_play_holds_no_card_no_salt_and_no_burned_card(shoe_in_play):
    revealed_later = Shoe.objects.get(pk=shoe_in_play.pk)
    order = " ".join(card.code for card in revealed_later.cards)
    salt = decrypt(revealed_later.salt_encrypted)
    burned = decrypt(revealed_later.burned_cards_encrypted)
    row = raw_row("tables_shoe", shoe_in_play.pk)
    dump = repr(row)
    assert len(order) == 416 * 3 - 1 and len(salt) == 32 and burned
    for field in SHOE_SECRETS:
        assert str(row[field]).startswith(FERNET_TOKEN_PREFIX)
    # A Fernet token is random base64: a two-character card code turns up in one by chance, so the burned
    # cards are looked for in the plaintext columns (the card shown for the burn is public).
    plaintext = repr({name: value for name, value in row.items() if name not in (*SHOE_SECRETS, "burn_shown")})
    assert salt not in dump and burned not in plaintext
    assert not [card for card in order.split()[:30] if f" {card} " in dump or f"{card} " in dump]
    assert row["commitment"] == shoe_in_play.commitment  # public: stays as it is


def test_a_dump_holds_no_webhook_secret(endpoint_created):
    row = raw_row("wagering_webhookendpoint", endpoint_created.endpoint.pk)
    assert created_secret_absent(row, endpoint_created.secret)
    assert decrypt(row["secret_encrypted"]) == endpoint_created.secret


def created_secret_absent(row: dict, secret: str) -> bool:
    dump = repr(row)
    return secret not in dump and "whsec_" not in dump and secret[6:] not in dump


def test_values_round_trip_and_each_encryption_differs():
    assert decrypt(encrypt("KC 5D 9H")) == "KC 5D 9H"
    assert encrypt("KC 5D 9H") != encrypt("KC 5D 9H")
    assert encrypt("") == "" and decrypt("") == ""


def test_a_shoe_deals_and_verifies_through_its_encrypted_order(shoe_in_play, pit_boss):
    order = shoe_in_play.cards
    assert shoe_in_play.burn_shown == order[0].code
    shoe_finish(shoe=shoe_in_play, actor=pit_boss, discard=True, reason="test")
    shoe = Shoe.objects.get(pk=shoe_in_play.pk)
    revealed = shoe.reveal()
    assert revealed.card_order == [card.code for card in order]
    assert revealed.burned_cards == [card.code for card in order[1 : shoe.position]]
    call_command("verify_shoe", shoe=shoe.pk)


def test_the_secrets_of_a_shoe_in_play_are_not_revealed(shoe_in_play):
    with pytest.raises(PermissionDenied, match="revealed when it ends"):
        shoe_in_play.reveal()


def test_a_wrong_key_fails_loudly(shoe_in_play, endpoint_created, keys):
    keys(key_generate())
    shoe = Shoe.objects.get(pk=shoe_in_play.pk)
    with pytest.raises(DecryptionFailed, match="ENCRYPTION_KEY does not hold the key"):
        shoe.cards  # noqa: B018 - the property decrypts
    with pytest.raises(DecryptionFailed):
        shoe_is_finished(shoe=shoe)  # the dealing code's view of the shoe
    with pytest.raises(DecryptionFailed):
        decrypt(WebhookEndpoint.objects.get().secret_encrypted)


def test_a_tampered_value_fails_loudly():
    token = encrypt("KC 5D")
    with pytest.raises(DecryptionFailed):
        decrypt(token[:-4] + ("AAAA" if not token.endswith("AAAA") else "BBBB"))


def test_key_rotation_the_first_key_encrypts_every_key_decrypts_and_the_command_reencrypts(auto_table, pit_boss, keys):
    old, new = key_generate(), key_generate()
    keys(old)
    shoe_in_play = shoe_start(shoe=shoe_prepare(table=auto_table, actor=pit_boss))
    endpoint_created = webhooks.webhook_endpoint_create(
        partner=partner_create(code="acme", name="Acme"), url="https://partner.example/hooks"
    )
    order = [card.code for card in Shoe.objects.get(pk=shoe_in_play.pk).cards]

    keys(new, old)  # the new key goes first: new values use it, old ones still decrypt
    assert [card.code for card in Shoe.objects.get(pk=shoe_in_play.pk).cards] == order
    fresh = encrypt("fresh")
    keys(new)
    assert decrypt(fresh) == "fresh"
    with pytest.raises(DecryptionFailed):
        Shoe.objects.get(pk=shoe_in_play.pk).cards  # noqa: B018 - not re-encrypted yet

    keys(new, old)
    call_command("encryption_rotate")
    keys(new)  # the old key can go
    assert [card.code for card in Shoe.objects.get(pk=shoe_in_play.pk).cards] == order
    assert decrypt(WebhookEndpoint.objects.get().secret_encrypted) == endpoint_created.secret
    assert AuditLog.objects.filter(action="shoe_secrets_reencrypted").exists()


def test_rotation_with_a_key_missing_changes_nothing(shoe_in_play, endpoint_created, keys):
    before = raw_row("tables_shoe", shoe_in_play.pk)
    keys(key_generate())
    with pytest.raises(CommandError, match="nothing was changed"):
        call_command("encryption_rotate")
    assert raw_row("tables_shoe", shoe_in_play.pk) == before


def test_without_a_key_the_embedded_default_makes_a_private_key_file_once(settings, tmp_path):
    settings.ENCRYPTION_KEYS = []
    settings.ENCRYPTION_KEY_FILE = tmp_path / "var" / "encryption.key"
    token = encrypt("KC")
    key = settings.ENCRYPTION_KEY_FILE.read_text()
    assert stat.S_IMODE(os.stat(settings.ENCRYPTION_KEY_FILE).st_mode) == 0o600
    assert decrypt(token) == "KC" and encrypt("5D") and settings.ENCRYPTION_KEY_FILE.read_text() == key
    assert os.listdir(tmp_path / "var") == ["encryption.key"]
    encryption._local_key.cache_clear()  # another process, same file: the same key
    assert decrypt(token) == "KC"
