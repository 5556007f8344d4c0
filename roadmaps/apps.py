from django.apps import AppConfig


class RoadmapsConfig(AppConfig):
    name = "roadmaps"
