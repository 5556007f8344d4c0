from django.apps import AppConfig


class WageringConfig(AppConfig):
    name = "wagering"
