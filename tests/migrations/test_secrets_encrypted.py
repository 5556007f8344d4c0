"""tables/0005 and wagering/0008: the secrets a database dump must not reveal (an RNG shoe's order, salt and burned
cards, a webhook's signing secret) are encrypted in the rows that existed before them, and migrating back
decrypts them."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from kernel.encryption import decrypt
from tests.tables.test_secrets_at_rest import FERNET_TOKEN_PREFIX, SHOE_SECRETS, raw_row

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.database_owner]  # migrates: as the owner


def test_the_migrations_encrypt_existing_rows_and_the_reverse_decrypts():
    executor = MigrationExecutor(connection)
    before = [("tables", "0004_shoe_cut_card_rule"), ("wagering", "0007_coup_stake_totals")]
    after = [("tables", "0005_shoe_secrets_encrypted"), ("wagering", "0008_webhook_secret_encrypted")]
    executor.migrate(before)
    old = executor.loader.project_state(before).apps
    table = old.get_model("tables", "Table").objects.create(code="m1", name="M1")
    shoe = old.get_model("tables", "Shoe").objects.create(
        table=table, number=1, decks=1, shuffle_method="rng", card_order="KC 5D", salt="ab" * 16,
        burned_cards="5D", cut_card_position=1,
    )  # fmt: skip
    partner = old.get_model("wagering", "Partner").objects.create(code="p1", name="P1")
    endpoint = old.get_model("wagering", "WebhookEndpoint").objects.create(
        partner=partner, url="https://p.example/h", secret="whsec_" + "0" * 48
    )
    executor = MigrationExecutor(connection)
    executor.migrate(after)
    row = raw_row("tables_shoe", shoe.pk)
    assert all(row[field].startswith(FERNET_TOKEN_PREFIX) for field in SHOE_SECRETS)
    assert decrypt(row["card_order_encrypted"]) == "KC 5D" and decrypt(row["salt_encrypted"]) == "ab" * 16
    assert decrypt(raw_row("wagering_webhookendpoint", endpoint.pk)["secret_encrypted"]) == "whsec_" + "0" * 48

    executor = MigrationExecutor(connection)
    executor.migrate(before)
    assert raw_row("tables_shoe", shoe.pk)["card_order"] == "KC 5D"
    assert raw_row("wagering_webhookendpoint", endpoint.pk)["secret"] == "whsec_" + "0" * 48
