"""Celery tasks of the boards: thin wrappers over ``builds``."""

from __future__ import annotations

import logging

from celery import shared_task
from django.db import InterfaceError, OperationalError

from leaderboard.background import BUILD_BOARDS, RESEND_BOARD_BUILDS, options
from leaderboard.rankings import builds

log = logging.getLogger(__name__)


@shared_task(**options(BUILD_BOARDS))
def build_boards(phase_id: int) -> int:
    """Build the phase's boards that are behind (``builds.build``). A database fault leaves
    them to the next change or to ``resend_board_builds`` (the lease runs out within
    ``builds.LEASE_SECONDS``)."""
    try:
        return builds.build(phase_id)
    except (OperationalError, InterfaceError) as exc:
        log.warning("could not build the boards of phase %s: %r", phase_id, exc)
        return 0


@shared_task(**options(RESEND_BOARD_BUILDS))
def resend_board_builds() -> list[int]:
    """Periodic (beat): send the build task of every board left behind (``builds.resend``)."""
    return builds.resend()
