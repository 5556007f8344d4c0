"""The ``ledger.hourly_root`` webhook event: a delivery of a sealed hour's root (wagering.LedgerRoot)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("partners", "0003_webhook_subscriptions_and_shoe_events"),
        ("wagering", "0020_ledger_roots"),
    ]

    operations = [
        migrations.RemoveConstraint(model_name="webhookdelivery", name="a_delivery_is_of_a_coup_or_a_shoe"),
        migrations.AddField(
            model_name="webhookdelivery",
            name="ledger_root",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="webhook_deliveries",
                to="wagering.ledgerroot",
            ),
        ),
        migrations.AlterField(
            model_name="webhookdelivery",
            name="event_type",
            field=models.CharField(
                choices=[
                    ("round.settled", "Round Settled"),
                    ("round.voided", "Round Voided"),
                    ("round.corrected", "Round Corrected"),
                    ("shoe.finished", "Shoe Finished"),
                    ("ledger.hourly_root", "Ledger Hourly Root"),
                ],
                max_length=20,
            ),
        ),
        migrations.AddConstraint(
            model_name="webhookdelivery",
            constraint=models.UniqueConstraint(
                condition=models.Q(("ledger_root__isnull", False)),
                fields=("endpoint", "ledger_root"),
                name="one_event_per_endpoint_ledger_root",
            ),
        ),
        migrations.AddConstraint(
            model_name="webhookdelivery",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("coup__isnull", False), ("shoe__isnull", False), ("ledger_root__isnull", False), _connector="OR"
                ),
                name="a_delivery_is_of_a_coup_a_shoe_or_an_hour",
            ),
        ),
    ]
