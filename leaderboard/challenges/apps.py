from __future__ import annotations

from django.apps import AppConfig


class ChallengesConfig(AppConfig):
    name = "leaderboard.challenges"
    label = "challenges"
    default_auto_field = "django.db.models.BigAutoField"
