"""An RNG shoe's order, salt and burned cards are stored encrypted (kernel.encryption); the reverse decrypts."""

from django.db import migrations, models

from kernel.encryption import decrypt, encrypt

SECRETS = ("card_order_encrypted", "salt_encrypted", "burned_cards_encrypted")


def _convert(apps, convert) -> None:
    Shoe = apps.get_model("tables", "Shoe")
    shoes = list(Shoe.objects.only(*SECRETS))
    for shoe in shoes:
        for field in SECRETS:
            setattr(shoe, field, convert(getattr(shoe, field)))
    Shoe.objects.bulk_update(shoes, SECRETS, batch_size=500)


def encrypt_rows(apps, schema_editor) -> None:
    _convert(apps, encrypt)


def decrypt_rows(apps, schema_editor) -> None:
    _convert(apps, decrypt)


class Migration(migrations.Migration):
    dependencies = [
        ("tables", "0004_shoe_cut_card_rule"),
    ]

    operations = [
        migrations.RenameField(model_name="shoe", old_name="card_order", new_name="card_order_encrypted"),
        migrations.RenameField(model_name="shoe", old_name="salt", new_name="salt_encrypted"),
        migrations.AlterField(model_name="shoe", name="salt_encrypted", field=models.TextField(blank=True)),
        migrations.RenameField(model_name="shoe", old_name="burned_cards", new_name="burned_cards_encrypted"),
        migrations.RunPython(encrypt_rows, decrypt_rows),
    ]
