from __future__ import annotations

from django.apps import AppConfig


class AnalysesConfig(AppConfig):
    """What is read from a board, above it: the paper tables, the pairwise comparison,
    robustness, the cross-team error analysis and the reader and organiser exports (no models
    of its own)."""

    name = "leaderboard.analyses"
    label = "analyses"
    verbose_name = "Analyses"
