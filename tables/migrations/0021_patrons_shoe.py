"""The patrons' shoe (seed 002's big table, issue 30): a dealer table's setting that the patrons hold the shoe,
whether a tie leaves it with its holder, and who holds it now (a seat session) with the coups since it came to them."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('tables', '0020_coup_void_requests'),
    ]

    operations = [
        migrations.AddField(
            model_name='table',
            name='patrons_hold_shoe',
            field=models.BooleanField(default=False, help_text='Dealer tables: the patrons hold the shoe in turn (seed 002); off: the croupier.'),
        ),
        migrations.AddField(
            model_name='table',
            name='shoe_holder',
            field=models.ForeignKey(blank=True, editable=False, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='tables.seatsession'),
        ),
        migrations.AddField(
            model_name='table',
            name='shoe_holder_coups',
            field=models.PositiveIntegerField(default=0, editable=False),
        ),
        migrations.AddField(
            model_name='table',
            name='tie_shoe_stays',
            field=models.BooleanField(default=True, help_text='Where the patrons hold the shoe: a tie leaves it with its holder; off: it moves on.'),
        ),
    ]
