"""The partner models move to the partners app: removed from wagering's state only; their tables stay."""


from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('wagering', '0011_bet_open_by_user'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
        migrations.RemoveField(
            model_name='webhookendpoint',
            name='partner',
        ),
        migrations.RemoveField(
            model_name='partneridempotencykey',
            name='partner',
        ),
        migrations.RemoveField(
            model_name='partnerplayer',
            name='partner',
        ),
        migrations.RemoveField(
            model_name='partneridempotencykey',
            name='transaction',
        ),
        migrations.RemoveField(
            model_name='partnerplayer',
            name='user',
        ),
        migrations.RemoveField(
            model_name='webhookdelivery',
            name='correction',
        ),
        migrations.RemoveField(
            model_name='webhookdelivery',
            name='coup',
        ),
        migrations.RemoveField(
            model_name='webhookdelivery',
            name='endpoint',
        ),
        migrations.DeleteModel(
            name='PartnerApiKey',
        ),
        migrations.DeleteModel(
            name='Partner',
        ),
        migrations.DeleteModel(
            name='PartnerIdempotencyKey',
        ),
        migrations.DeleteModel(
            name='PartnerPlayer',
        ),
        migrations.DeleteModel(
            name='WebhookDelivery',
        ),
        migrations.DeleteModel(
            name='WebhookEndpoint',
        ),
                ],
            database_operations=[],  # the tables stay where they are
        ),
    ]
