"""Checks of the statistical settings (kept apart from numpy, which loads only when used)."""

from __future__ import annotations

from scoring.errors import ScoringError


def check_settings(n_boot: int, level: float) -> None:
    """Reject resample counts and confidence levels the statistics cannot honour."""
    if not 1 <= n_boot <= 100_000:
        raise ScoringError("the number of bootstrap resamples must be between 1 and 100000.")
    if not 0.5 <= level < 1:
        raise ScoringError("the confidence level must be at least 0.5 and below 1 (e.g. 0.95).")
