"""A chip's face: its value, thousands as "K" (a 1,000 chip reads "1K", as on the felt)."""

from django import template

register = template.Library()


@register.filter
def chip_label(value: int) -> str:
    return f"{value // 1000}K" if value >= 1000 and value % 1000 == 0 else str(value)
