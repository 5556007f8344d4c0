"""The admin's alert of coups held for the pit (seed 000 §4.3): on the index and the coup list."""

from django import template

from tables.selectors import coups_held

register = template.Library()


@register.inclusion_tag("admin/tables/held_coups_alert.html")
def held_coups_alert() -> dict:
    return {"held": coups_held()}
