from __future__ import annotations

from django.apps import AppConfig


class RankingsConfig(AppConfig):
    name = "leaderboard.rankings"
    label = "rankings"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from leaderboard.rankings import signals  # noqa: F401  (connects receivers)
