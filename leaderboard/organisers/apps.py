from __future__ import annotations

from django.apps import AppConfig


class OrganisersConfig(AppConfig):
    """The organisers' pages of a challenge beyond the admin (no models of its own)."""

    name = "leaderboard.organisers"
    label = "organisers"
    verbose_name = "Organisers"
