"""A table's limits per currency: its maximum differential and bet limits move into a limit set in the
house currency (the only one there was), from which the pit boss adds others."""

import django.db.models.deletion
from decimal import Decimal

from django.conf import settings
from django.db import migrations, models

import kernel.currencies


def limits_into_house_currency_sets(apps, schema_editor):
    Table, LimitSet, BetLimit = (apps.get_model("tables", name) for name in ("Table", "LimitSet", "BetLimit"))
    for table in Table.objects.all():
        limit_set = LimitSet.objects.create(
            table=table, currency=settings.HOUSE_CURRENCY, max_differential=table.max_differential
        )
        BetLimit.objects.filter(table=table).update(limit_set=limit_set)


def limits_back_onto_tables(apps, schema_editor):
    Table, LimitSet, BetLimit = (apps.get_model("tables", name) for name in ("Table", "LimitSet", "BetLimit"))
    for table in Table.objects.all():
        limit_set = LimitSet.objects.filter(table=table, currency=settings.HOUSE_CURRENCY).first()
        if limit_set is not None:
            Table.objects.filter(pk=table.pk).update(max_differential=limit_set.max_differential)
            BetLimit.objects.filter(limit_set=limit_set).update(table=table)
    BetLimit.objects.filter(table__isnull=True).delete()


class Migration(migrations.Migration):
    dependencies = [("tables", "0010_player_profile")]

    operations = [
        migrations.CreateModel(
            name="LimitSet",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                (
                    "currency",
                    models.CharField(max_length=3, validators=[kernel.currencies.currency_validator]),
                ),
                (
                    "max_differential",
                    models.DecimalField(decimal_places=2, default=Decimal("5000.00"), max_digits=14),
                ),
                (
                    "table",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="limit_sets", to="tables.table"
                    ),
                ),
            ],
            options={
                "ordering": ["table", "currency"],
                "constraints": [
                    models.UniqueConstraint(fields=("table", "currency"), name="one_limit_set_per_table_and_currency"),
                    models.CheckConstraint(condition=models.Q(("max_differential__gt", 0)), name="max_differential_positive"),
                ],
            },
        ),
        migrations.AddField(
            model_name="betlimit",
            name="limit_set",
            field=models.ForeignKey(
                null=True, on_delete=django.db.models.deletion.CASCADE, related_name="limits", to="tables.limitset"
            ),
        ),
        migrations.AlterField(
            model_name="betlimit",
            name="table",
            field=models.ForeignKey(
                null=True, on_delete=django.db.models.deletion.CASCADE, related_name="limits", to="tables.table"
            ),
        ),
        migrations.RunPython(limits_into_house_currency_sets, limits_back_onto_tables),
        migrations.RemoveConstraint(model_name="betlimit", name="one_limit_per_bet_type"),
        migrations.RemoveField(model_name="betlimit", name="table"),
        migrations.AlterField(
            model_name="betlimit",
            name="limit_set",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE, related_name="limits", to="tables.limitset"
            ),
        ),
        migrations.AddConstraint(
            model_name="betlimit",
            constraint=models.UniqueConstraint(fields=("limit_set", "bet_type"), name="one_limit_per_bet_type"),
        ),
        migrations.AlterModelOptions(name="betlimit", options={"ordering": ["limit_set", "id"]}),
        migrations.RemoveField(model_name="table", name="max_differential"),
    ]
