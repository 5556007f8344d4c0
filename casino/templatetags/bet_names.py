"""The bet types' names as players read them, in the page's language (the models' choices stay English)."""

from django import template
from django.utils.translation import pgettext_lazy

register = template.Library()

BET_NAMES = {
    "player": pgettext_lazy("bet", "Player"),
    "banker": pgettext_lazy("bet", "Banker"),
    "tie": pgettext_lazy("bet", "Tie"),
    "player_pair": pgettext_lazy("bet", "Player pair"),
    "banker_pair": pgettext_lazy("bet", "Banker pair"),
    "either_pair": pgettext_lazy("bet", "Either pair"),
    "perfect_pair": pgettext_lazy("bet", "Perfect pair"),
    "player_bonus": pgettext_lazy("bet", "Player bonus"),
    "banker_bonus": pgettext_lazy("bet", "Banker bonus"),
    "small": pgettext_lazy("bet", "Small"),
    "big": pgettext_lazy("bet", "Big"),
}


@register.filter
def bet_name(limit) -> str:
    """A bet limit's (or a bet type's) name: ``{{ limit|bet_name }}``; an unknown type keeps its display name."""
    bet_type = getattr(limit, "bet_type", limit)
    if bet_type in BET_NAMES:
        return str(BET_NAMES[bet_type])
    display = getattr(limit, "get_bet_type_display", None)
    return display() if display else str(bet_type).replace("_", " ").capitalize()
