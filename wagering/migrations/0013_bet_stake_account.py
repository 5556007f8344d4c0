"""Each bet names the account its stake came from (and its return goes back to): until now always the
player's wallet, so existing bets take their player's wallet."""

import django.db.models.deletion
from django.db import migrations, models

BACKFILL = """
UPDATE wagering_bet SET stake_account_id = (
    SELECT wagering_account.id FROM wagering_account
    WHERE wagering_account.kind = 'player' AND wagering_account.user_id = wagering_bet.user_id
)
"""


class Migration(migrations.Migration):
    dependencies = [("wagering", "0012_partner_models_to_partners_app")]

    operations = [
        migrations.AddField(
            model_name="bet",
            name="stake_account",
            field=models.ForeignKey(
                null=True,
                db_index=False,
                help_text="wallet or partner float",
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="wagering.account",
            ),
        ),
        migrations.RunSQL(BACKFILL, migrations.RunSQL.noop),
        migrations.AlterField(
            model_name="bet",
            name="stake_account",
            field=models.ForeignKey(
                db_index=False,
                help_text="wallet or partner float",
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="wagering.account",
            ),
        ),
    ]
