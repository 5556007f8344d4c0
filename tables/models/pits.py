"""Pits: groups of tables on the floor, each supervised by its pit bosses (the pit screen shows a pit boss
their pits' tables, and the console lets them act there: docs/floor.md, "Pits")."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Pit(models.Model):
    """A table belongs to at most one pit (``Table.pit``); a pit boss may supervise several pits. Pits are set up
    by a floor manager (``tables.change_pit``, or a superuser), never by the pit bosses themselves."""

    code = models.SlugField(max_length=20, unique=True)
    name = models.CharField(max_length=80)
    bosses = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="pits_supervised", verbose_name="pit bosses"
    )

    class Meta:
        ordering = ["code"]

    def __str__(self) -> str:
        return self.name
