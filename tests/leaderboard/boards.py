"""The boards as a test reads them after a change: built in this process, as the board's
worker task builds them (``rankings.builds.build``), then read back as pages read them."""

from __future__ import annotations

from leaderboard.challenges.models import Phase
from leaderboard.rankings.board import Leaderboard
from leaderboard.rankings.boards import stored
from leaderboard.rankings.builds import build


def built(phase: Phase) -> Phase:
    """Build ``phase``'s boards that are behind; the phase as the next request loads it."""
    build(phase.pk)
    return Phase.objects.select_related("challenge").get(pk=phase.pk)


def leaderboard(phase: Phase, part: str = "public") -> Leaderboard:
    """``phase``'s stored ``part`` board, brought up to date first (as a worker does after
    every change)."""
    return stored(built(phase), part).board
