from __future__ import annotations

from django.apps import AppConfig


class ApiConfig(AppConfig):
    name = "leaderboard.api"
    label = "api"
    verbose_name = "REST API"

    def ready(self) -> None:
        # Registers the OpenAPI description of our token authentication with drf-spectacular.
        from leaderboard.api import schema  # noqa: F401
