"""Re-scores go to the re-score queue when one is set (a worker of its own takes them), so new
submissions never wait behind a phase's re-scoring; unset, both share the one queue."""

from __future__ import annotations

import pytest

from leaderboard.submissions import queue, services
from leaderboard.submissions.models import Submission
from leaderboard.submissions.queue import SCORE_SUBMISSION
from tests.leaderboard.factories import approved_team, phase_with_references
from tests.leaderboard.web import GOLD_BYTES, scored_submission

pytestmark = pytest.mark.django_db


@pytest.fixture
def sent(monkeypatch) -> list[tuple[int, str]]:
    """The scoring tasks sent: (submission id, queue)."""
    found: list[tuple[int, str]] = []

    def send_task(name, args, queue):
        if name == SCORE_SUBMISSION:
            found.append((args[0], queue))

    monkeypatch.setattr(queue.app, "send_task", send_task)
    return found


def test_re_scores_go_to_their_own_queue_when_set(settings, sent):
    settings.CELERY_TASK_DEFAULT_QUEUE = "new"
    settings.CELERY_RESCORE_QUEUE = "rescores"
    queue.enqueue_scoring(1)
    queue.enqueue_scoring(2, rescore=True)
    settings.CELERY_RESCORE_QUEUE = ""
    queue.enqueue_scoring(3, rescore=True)
    assert sent == [(1, "new"), (2, "rescores"), (3, "new")]


def test_an_organisers_re_score_is_sent_as_a_re_score(
    settings, sent, django_capture_on_commit_callbacks
):
    settings.CELERY_TASK_DEFAULT_QUEUE = "new"
    settings.CELERY_RESCORE_QUEUE = "rescores"
    phase = phase_with_references(GOLD_BYTES)
    submission = scored_submission(approved_team(phase), phase)
    sent.clear()
    with django_capture_on_commit_callbacks(execute=True):
        assert services.rescore(submission)
    assert Submission.objects.get(pk=submission.pk).status == Submission.Status.QUEUED
    assert sent == [(submission.pk, "rescores")]
