from __future__ import annotations

from django.apps import AppConfig


class ApiConfig(AppConfig):
    name = "leaderboard.api"
    label = "api"
    verbose_name = "REST API"
