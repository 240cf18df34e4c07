"""Trackboard's Django project: challenges, teams, submissions, results and rankings."""

from __future__ import annotations

# Importing the Celery app here makes ``@shared_task`` bind to it in every process that loads
# Django (web, worker, management commands), as Celery's Django guide recommends.
from leaderboard.celery import app as celery_app

__all__ = ["celery_app"]
