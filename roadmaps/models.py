"""Per-shoe road state, kept up to date as coups resolve (the snapshot reads it, nothing recomputes)."""

from django.db import models

from tables.models import Shoe


class ShoeRoad(models.Model):
    shoe = models.OneToOneField(Shoe, on_delete=models.CASCADE, related_name="road")
    roadmap = models.JSONField(default=dict)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"roads of {self.shoe}"
