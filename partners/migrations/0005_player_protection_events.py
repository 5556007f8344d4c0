"""Partners told of their players' protection: the launch's session limits, and the `player.*` webhook events (a delivery of a player)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('partners', '0004_ledger_hourly_root_event'),
        ('tables', '0020_coup_void_requests'),
        ('wagering', '0024_player_protection'),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name='webhookdelivery',
            name='a_delivery_is_of_a_coup_a_shoe_or_an_hour',
        ),
        migrations.AddField(
            model_name='launchtoken',
            name='loss_limit',
            field=models.DecimalField(blank=True, decimal_places=2, help_text="in the partner's currency", max_digits=14, null=True),
        ),
        migrations.AddField(
            model_name='launchtoken',
            name='reality_check_minutes',
            field=models.PositiveSmallIntegerField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name='launchtoken',
            name='session_limit_minutes',
            field=models.PositiveSmallIntegerField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name='webhookdelivery',
            name='player',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='webhook_deliveries', to='partners.partnerplayer'),
        ),
        migrations.AlterField(
            model_name='webhookdelivery',
            name='event_type',
            field=models.CharField(choices=[('round.settled', 'Round Settled'), ('round.voided', 'Round Voided'), ('round.corrected', 'Round Corrected'), ('shoe.finished', 'Shoe Finished'), ('ledger.hourly_root', 'Ledger Hourly Root'), ('player.session_limit_reached', 'Player Session Limit Reached'), ('player.reality_check', 'Player Reality Check')], max_length=40),
        ),
        migrations.AddConstraint(
            model_name='launchtoken',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('reality_check_minutes__isnull', True), models.Q(('reality_check_minutes__gte', 1), ('reality_check_minutes__lte', 1440)), _connector='OR'), models.Q(('session_limit_minutes__isnull', True), models.Q(('session_limit_minutes__gte', 1), ('session_limit_minutes__lte', 1440)), _connector='OR'), models.Q(('loss_limit__isnull', True), ('loss_limit__gt', 0), _connector='OR')), name='launch_protection_in_range'),
        ),
        migrations.AddConstraint(
            model_name='webhookdelivery',
            constraint=models.CheckConstraint(condition=models.Q(('coup__isnull', False), ('shoe__isnull', False), ('ledger_root__isnull', False), ('player__isnull', False), _connector='OR'), name='a_delivery_is_of_a_coup_a_shoe_an_hour_or_a_player'),
        ),
    ]
