from django.db import migrations, models


def shoes_take_their_table_rule(apps, schema_editor):
    Shoe = apps.get_model("tables", "Shoe")
    for shoe in Shoe.objects.select_related("table").exclude(table__cut_card_rule="one_more_coup"):
        Shoe.objects.filter(pk=shoe.pk).update(cut_card_rule=shoe.table.cut_card_rule)


class Migration(migrations.Migration):
    dependencies = [
        ("tables", "0003_audit_log_append_only"),
    ]

    operations = [
        migrations.AddField(
            model_name="shoe",
            name="cut_card_rule",
            field=models.CharField(
                choices=[
                    ("one_more_coup", "Finish the coup and play one more"),
                    ("end_of_coup", "End after the current coup"),
                ],
                default="one_more_coup",
                max_length=16,
            ),
        ),
        migrations.RunPython(shoes_take_their_table_rule, migrations.RunPython.noop),
    ]
