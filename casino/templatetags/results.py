"""A coup's result as the staff screens say it (``baccarat.coup.result_announcement``: the winner's total first)."""

from django import template

from baccarat.coup import result_announcement

register = template.Library()


@register.filter
def announced(coup) -> str:
    """``{{ coup|announced }}``: "Banker wins 9 to 5"; "" before the coup has a result."""
    if not coup.winner:
        return ""
    return result_announcement(winner=coup.winner, player_total=coup.player_total, banker_total=coup.banker_total)
