"""A webhook endpoint's signing secret is stored encrypted (kernel.encryption); the reverse decrypts."""

from django.db import migrations, models

from kernel.encryption import decrypt, encrypt


def _convert(apps, convert) -> None:
    WebhookEndpoint = apps.get_model("wagering", "WebhookEndpoint")
    endpoints = list(WebhookEndpoint.objects.only("secret_encrypted"))
    for endpoint in endpoints:
        endpoint.secret_encrypted = convert(endpoint.secret_encrypted)
    WebhookEndpoint.objects.bulk_update(endpoints, ["secret_encrypted"], batch_size=500)


def encrypt_rows(apps, schema_editor) -> None:
    _convert(apps, encrypt)


def decrypt_rows(apps, schema_editor) -> None:
    _convert(apps, decrypt)


class Migration(migrations.Migration):
    dependencies = [
        ("wagering", "0007_coup_stake_totals"),
    ]

    operations = [
        migrations.RenameField(model_name="webhookendpoint", old_name="secret", new_name="secret_encrypted"),
        migrations.AlterField(model_name="webhookendpoint", name="secret_encrypted", field=models.TextField()),
        migrations.RunPython(encrypt_rows, decrypt_rows),
    ]
