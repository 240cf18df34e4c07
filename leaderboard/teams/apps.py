from __future__ import annotations

from django.apps import AppConfig


class TeamsConfig(AppConfig):
    name = "leaderboard.teams"
    label = "teams"
    default_auto_field = "django.db.models.BigAutoField"
