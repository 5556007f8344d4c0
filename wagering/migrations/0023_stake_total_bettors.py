"""Each coup's running stake totals count their bettors too (issue 29): the live totals' bettor counts are
read from them instead of counting the coup's bets, under its lock, on every batch."""

from django.db import migrations, models
from django.db.models import Count


def stake_total_bettors_fill(apps, schema_editor):
    """The bettors (players and seat sessions) of every coup's standing stakes (placed, not cancelled) so far,
    per bet type and currency: the meaning the placements keep from here on."""
    Bet = apps.get_model("wagering", "Bet")
    CoupStakeTotal = apps.get_model("wagering", "CoupStakeTotal")
    standing = Bet.objects.exclude(state="cancelled").values_list("coup_id", "bet_type", "stake_account__currency")
    counted = standing.annotate(players=Count("user", distinct=True), seats=Count("seat_session", distinct=True))
    bettors = {
        (coup_id, bet_type, currency): players + seats
        for coup_id, bet_type, currency, players, seats in counted.order_by()
    }
    totals = list(CoupStakeTotal.objects.all())
    for total in totals:
        total.bettors = bettors.get((total.coup_id, total.bet_type, total.currency), 0)
    CoupStakeTotal.objects.bulk_update(totals, ["bettors"], batch_size=1000)


class Migration(migrations.Migration):
    dependencies = [
        ("tables", "0020_coup_void_requests"),
        ("wagering", "0022_ledger_roots_inserts_checked"),
    ]

    operations = [
        migrations.AddField(
            model_name="coupstaketotal",
            name="bettors",
            field=models.IntegerField(db_default=0, default=0),
        ),
        migrations.AddConstraint(
            model_name="coupstaketotal",
            constraint=models.CheckConstraint(
                condition=models.Q(("bettors__gte", 0)), name="stake_total_bettors_not_negative"
            ),
        ),
        migrations.RunPython(stake_total_bettors_fill, migrations.RunPython.noop),
    ]
