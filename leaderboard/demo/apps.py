from __future__ import annotations

from django.apps import AppConfig


class DemoConfig(AppConfig):
    """The demo challenges and their accounts (``manage.py demo``); no models of its own."""

    name = "leaderboard.demo"
    label = "demo"
    verbose_name = "Demo"
