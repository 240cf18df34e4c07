"""Celery tasks of the boards: thin wrappers over ``builds``."""

from __future__ import annotations

import logging

from celery import shared_task
from django.db import InterfaceError, OperationalError

from leaderboard.rankings import builds

log = logging.getLogger(__name__)


@shared_task(
    name=builds.BUILD_BOARDS,
    acks_late=True,
    reject_on_worker_lost=True,
    ignore_result=True,
    soft_time_limit=240,
    time_limit=300,
)
def build_boards(phase_id: int) -> int:
    """Build the phase's boards that are behind (``builds.build``). A database fault leaves
    them to the next change or to ``resend_board_builds`` (the lease runs out within
    ``builds.LEASE_SECONDS``)."""
    try:
        return builds.build(phase_id)
    except (OperationalError, InterfaceError) as exc:
        log.warning("could not build the boards of phase %s: %r", phase_id, exc)
        return 0


@shared_task(acks_late=True, ignore_result=True)
def resend_board_builds() -> list[int]:
    """Periodic (beat): send the build task of every board left behind (``builds.resend``)."""
    return builds.resend()
