from __future__ import annotations

from django.apps import AppConfig


class ChallengesConfig(AppConfig):
    name = "leaderboard.challenges"
    label = "challenges"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.db.models.signals import post_migrate

        from leaderboard.challenges.roles import _after_migrate

        # After every migrate and flush: the "Organisers" group as ``roles.PERMISSIONS`` says.
        post_migrate.connect(_after_migrate, sender=self, dispatch_uid="organisers-group")
