"""Who shuffled a sealed preliminary shuffle (seed 000 §2.1.1: done in the preparation zone, not by the dealer
who records it). Every shoe with a sealed shuffle recorded before, whatever its state now (waiting for its cut,
in play or finished), says so rather than name anyone."""

from django.db import migrations, models

NOT_RECORDED = "not recorded (prepared before the shuffler was named)"


def sealed_shoes_marked(apps, schema_editor):
    Shoe = apps.get_model("tables", "Shoe")
    Shoe.objects.filter(shuffle_method="preliminary", decks_complete__isnull=False).update(shuffled_by=NOT_RECORDED)


class Migration(migrations.Migration):
    dependencies = [
        ("tables", "0018_pits"),
    ]

    operations = [
        migrations.AddField(
            model_name="shoe",
            name="shuffled_by",
            field=models.CharField(blank=True, max_length=80),
        ),
        migrations.RunPython(sealed_shoes_marked, migrations.RunPython.noop),
    ]
