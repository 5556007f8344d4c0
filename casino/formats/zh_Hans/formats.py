"""Simplified Chinese amounts as its players read them at the tables: 1,016.00 (Django's own zh_Hans formats
group no digits); the dates stay Django's."""

from django.conf.locale.zh_Hans.formats import *  # noqa: F403

DECIMAL_SEPARATOR = "."
THOUSAND_SEPARATOR = ","
NUMBER_GROUPING = 3
