"""The partner models, moved from the wagering app with their tables (db_table): state only, then their
content types follow them, so the permissions granted on them stay granted."""


import django.core.validators
import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


MOVED = ("partner", "partnerapikey", "partnerplayer", "partneridempotencykey", "webhookendpoint", "webhookdelivery")


def _content_types_move(apps, source: str, target: str) -> None:
    content_types = apps.get_model("contenttypes", "ContentType")
    content_types.objects.filter(app_label=source, model__in=MOVED).update(app_label=target)


def content_types_to_partners(apps, schema_editor) -> None:
    _content_types_move(apps, "wagering", "partners")


def content_types_to_wagering(apps, schema_editor) -> None:
    _content_types_move(apps, "partners", "wagering")


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('tables', '0010_player_profile'),
        ('wagering', '0012_partner_models_to_partners_app'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
        ('contenttypes', '0002_remove_content_type_name'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
        migrations.CreateModel(
            name='Partner',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('code', models.SlugField(help_text='also the partner_code of its float account', max_length=40, unique=True)),
                ('name', models.CharField(max_length=80)),
                ('is_active', models.BooleanField(default=True, help_text='off: its API keys are refused (403)')),
                ('rate_limit', models.CharField(blank=True, help_text="API requests allowed, e.g. '1200/min'; empty: the default rate", max_length=20, validators=[django.core.validators.RegexValidator('^[1-9][0-9]*/(s|sec|second|m|min|minute|h|hour|d|day)$', "a rate is requests per period, e.g. '1200/min' or '20/s'")])),
                ('created_at', models.DateTimeField(auto_now_add=True)),
            ],
            options={
                'db_table': 'wagering_partner',
                'ordering': ['code'],
            },
        ),
        migrations.CreateModel(
            name='PartnerApiKey',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('name', models.CharField(blank=True, help_text='what the partner uses it for', max_length=80)),
                ('prefix', models.CharField(max_length=16, unique=True)),
                ('secret_hash', models.CharField(max_length=64)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('revoked_at', models.DateTimeField(blank=True, null=True)),
                ('partner', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='api_keys', to='partners.partner')),
            ],
            options={
                'verbose_name': 'partner API key',
                'db_table': 'wagering_partnerapikey',
                'ordering': ['-id'],
            },
        ),
        migrations.CreateModel(
            name='WebhookEndpoint',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('url', models.URLField(max_length=500)),
                ('secret_encrypted', models.TextField()),
                ('is_active', models.BooleanField(default=True)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('disabled_at', models.DateTimeField(blank=True, null=True)),
                ('partner', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='webhook_endpoints', to='partners.partner')),
            ],
            options={
                'db_table': 'wagering_webhookendpoint',
                'ordering': ['-id'],
            },
        ),
        migrations.CreateModel(
            name='PartnerIdempotencyKey',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('key', models.CharField(max_length=255)),
                ('request', models.JSONField(help_text='the operation and its parameters, as strings')),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('partner', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='idempotency_keys', to='partners.partner')),
                ('transaction', models.OneToOneField(null=True, on_delete=django.db.models.deletion.PROTECT, related_name='partner_idempotency_key', to='wagering.ledgertransaction')),
            ],
            options={
                'verbose_name': 'partner idempotency key',
                'db_table': 'wagering_partneridempotencykey',
                'ordering': ['-id'],
                'constraints': [models.UniqueConstraint(fields=('partner', 'key'), name='one_request_per_partner_key')],
            },
        ),
        migrations.CreateModel(
            name='PartnerPlayer',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('external_id', models.CharField(max_length=100)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('partner', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='players', to='partners.partner')),
                ('user', models.OneToOneField(on_delete=django.db.models.deletion.PROTECT, related_name='partner_player', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'db_table': 'wagering_partnerplayer',
                'ordering': ['partner', 'external_id'],
                'constraints': [models.UniqueConstraint(fields=('partner', 'external_id'), name='one_player_per_partner_external_id')],
            },
        ),
        migrations.CreateModel(
            name='WebhookDelivery',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('event_id', models.UUIDField(unique=True)),
                ('event_type', models.CharField(choices=[('round.settled', 'Round Settled'), ('round.voided', 'Round Voided'), ('round.corrected', 'Round Corrected')], max_length=20)),
                ('payload', models.JSONField()),
                ('status', models.CharField(choices=[('pending', 'Pending (retrying)'), ('delivered', 'Delivered'), ('failed', 'Failed (out of attempts)')], default='pending', max_length=10)),
                ('attempts', models.PositiveSmallIntegerField(default=0)),
                ('last_status_code', models.PositiveSmallIntegerField(blank=True, null=True)),
                ('last_error', models.TextField(blank=True)),
                ('last_attempt_at', models.DateTimeField(blank=True, null=True)),
                ('delivered_at', models.DateTimeField(blank=True, null=True)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('correction', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='webhook_deliveries', to='tables.resultcorrection')),
                ('coup', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='webhook_deliveries', to='tables.coup')),
                ('endpoint', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='deliveries', to='partners.webhookendpoint')),
            ],
            options={
                'verbose_name_plural': 'webhook deliveries',
                'db_table': 'wagering_webhookdelivery',
                'ordering': ['-id'],
                'indexes': [models.Index(fields=['status', '-id'], name='wagering_we_status_4b2002_idx')],
                'constraints': [models.UniqueConstraint(condition=models.Q(('correction__isnull', True)), fields=('endpoint', 'coup', 'event_type'), name='one_event_per_endpoint_coup'), models.UniqueConstraint(condition=models.Q(('correction__isnull', False)), fields=('endpoint', 'correction'), name='one_event_per_endpoint_correction')],
            },
        ),
                ],
            database_operations=[],  # the tables stay where they are
        ),
        migrations.RunPython(content_types_to_partners, content_types_to_wagering),
    ]
