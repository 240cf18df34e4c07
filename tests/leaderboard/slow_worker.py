"""A real Celery worker that holds each claim for a while, so a test can kill it mid-scoring.

``python -m tests.leaderboard.slow_worker -A leaderboard worker ...`` takes the ``celery``
command's own arguments. With ``TRACKBOARD_TEST_SCORE_DELAY=SECONDS`` in its environment, each
scoring run sleeps that long after claiming its submission and before scoring it. The delay is
added here, before Celery starts (prefork pool processes inherit it), so that the production
code carries nothing for the tests.
"""

from __future__ import annotations

import os
import sys
import time

import django

DELAY_VARIABLE = "TRACKBOARD_TEST_SCORE_DELAY"


def slow_down_scoring(delay: float) -> None:
    """Make every claimed submission wait ``delay`` seconds before it is scored."""
    from leaderboard.submissions.services import processing

    score = processing._score_claimed

    def score_after_a_delay(submission_id: int) -> None:
        time.sleep(delay)
        score(submission_id)

    processing._score_claimed = score_after_a_delay


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "leaderboard.settings")
    django.setup()
    slow_down_scoring(float(os.environ.get(DELAY_VARIABLE) or 0))

    from celery.bin.celery import main as celery

    sys.exit(celery())


if __name__ == "__main__":
    main()
