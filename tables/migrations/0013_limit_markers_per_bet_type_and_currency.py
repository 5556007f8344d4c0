"""A personal limit marker names the bet types it applies to and its currency (seed 000 glossary).

A marker granted before applied its limits to every bet the player made, in whatever currency the player
played in. It now applies to the main bets Player and Banker: the marker of the glossary is "a limit
different from the table's limit", which the seed states for the hands (§6.1), while tie and pair bets keep
the table's limits, here as on the sign (§6.1.3). Its currency is the table's house currency (else the
first the table offers); a still valid marker at a table with limits in more currencies is copied into each
of the others, so that a player keeps the limits granted whatever currency they play in.
"""

from django.conf import settings
from django.db import migrations, models
from django.db.models import Q
from django.utils import timezone

import kernel.currencies

MAIN_HANDS = ["player", "banker"]


def markers_per_currency(apps, schema_editor):
    PersonalLimitMarker = apps.get_model("tables", "PersonalLimitMarker")
    LimitSet = apps.get_model("tables", "LimitSet")
    still_valid = Q(revoked_at__isnull=True) & (Q(valid_until__isnull=True) | Q(valid_until__gt=timezone.now()))
    for marker in PersonalLimitMarker.objects.order_by("pk"):
        offered = sorted(
            LimitSet.objects.filter(table_id=marker.table_id).values_list("currency", flat=True),
            key=lambda currency: (currency != settings.HOUSE_CURRENCY, currency),
        ) or [settings.HOUSE_CURRENCY]
        marker.currency, marker.bet_types = offered[0], MAIN_HANDS
        marker.save(update_fields=["currency", "bet_types"])
        if not PersonalLimitMarker.objects.filter(pk=marker.pk).filter(still_valid).exists():
            continue
        granted_reason = marker.reason
        for currency in offered[1:]:
            marker.pk, marker.currency = None, currency
            marker.reason = f"{granted_reason} (copied into {currency} by migration 0013)".strip()
            marker.save()


class Migration(migrations.Migration):
    dependencies = [
        ("tables", "0012_seat_sessions"),
    ]

    operations = [
        migrations.AddField(
            model_name="personallimitmarker",
            name="bet_types",
            field=models.JSONField(default=list, help_text="the bet types the marker's limits apply to"),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="personallimitmarker",
            name="currency",
            field=models.CharField(default="", max_length=3, validators=[kernel.currencies.currency_validator]),
            preserve_default=False,
        ),
        migrations.RunPython(markers_per_currency, migrations.RunPython.noop),
    ]
