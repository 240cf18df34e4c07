"""Re-scores go to the re-score queue when one is set (a worker of its own takes them), so new
submissions never wait behind a phase's re-scoring; unset, both share the one queue."""

from __future__ import annotations

import pytest

from leaderboard.background import RESCORE_SUBMISSION, SCORE_SUBMISSION
from leaderboard.celery import send
from leaderboard.submissions import services
from leaderboard.submissions.models import Submission
from tests.leaderboard.factories import approved_team, phase_with_references
from tests.leaderboard.web import GOLD_BYTES, scored_submission

pytestmark = pytest.mark.django_db


def scoring(published) -> list[tuple[int, str]]:
    """The scoring tasks sent, new or re-scores: (submission id, queue)."""
    names = (SCORE_SUBMISSION, RESCORE_SUBMISSION)
    return [(args[0], queue) for name, args, queue in published if name in names]


def test_re_scores_go_to_their_own_queue_when_set(
    settings, published, django_capture_on_commit_callbacks
):
    settings.CELERY_TASK_DEFAULT_QUEUE = "new"
    settings.CELERY_RESCORE_QUEUE = "rescores"
    with django_capture_on_commit_callbacks(execute=True):
        send(SCORE_SUBMISSION, 1)
        send(RESCORE_SUBMISSION, 2)
    settings.CELERY_RESCORE_QUEUE = ""
    with django_capture_on_commit_callbacks(execute=True):
        send(RESCORE_SUBMISSION, 3)
    assert scoring(published) == [(1, "new"), (2, "rescores"), (3, "new")]


def test_an_organisers_re_score_is_sent_as_a_re_score(
    settings, published, django_capture_on_commit_callbacks
):
    settings.CELERY_TASK_DEFAULT_QUEUE = "new"
    settings.CELERY_RESCORE_QUEUE = "rescores"
    phase = phase_with_references(GOLD_BYTES)
    submission = scored_submission(approved_team(phase), phase)
    published.clear()
    with django_capture_on_commit_callbacks(execute=True):
        assert services.rescore(submission)
    assert Submission.objects.get(pk=submission.pk).status == Submission.Status.QUEUED
    assert scoring(published) == [(submission.pk, "rescores")]
