from __future__ import annotations

from django.apps import AppConfig


class RankingsConfig(AppConfig):
    name = "leaderboard.rankings"
    label = "rankings"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from leaderboard.challenges.models import board_changed
        from leaderboard.rankings.builds import on_board_changed

        # A committed change asks the board's worker for the new boards (``builds``).
        board_changed.connect(on_board_changed, dispatch_uid="rankings.builds")
