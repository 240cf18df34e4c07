"""Scoring a queued submission: claim, score, store, retry, reap."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from django.utils import timezone

from leaderboard.challenges import references
from leaderboard.submissions import services, tasks
from leaderboard.submissions.models import Result, Submission
from scoring.synth import make_gold, make_prediction
from tests.leaderboard.factories import approved_team, phase_with_references, uploads

pytestmark = pytest.mark.django_db

GOLD = make_gold(15, seed=3)


@pytest.fixture
def submission(enqueued):
    phase = phase_with_references(json.dumps(GOLD).encode())
    team = approved_team(phase)
    return services.submit(
        team=team,
        phase=phase,
        user=team.created_by,
        files=uploads(make_prediction(GOLD, 0.2, seed=1)),
        method_name="noisy",
    )


def test_the_task_scores_every_condition_and_marks_the_submission_scored(submission):
    assert tasks.score_submission(submission.pk) == "scored"
    submission.refresh_from_db()
    assert submission.status == Submission.Status.SCORED
    assert submission.attempts == 1
    assert submission.scored_at is not None
    results = Result.objects.filter(submission=submission)
    assert results.count() == 3
    for result in results:
        for name in ("jga", "ser"):
            low, high = result.intervals[name]
            assert low <= result.metrics[name] <= high
        # the typed ranking columns: JGA with its interval, SER to break ties
        low, high = result.intervals["jga"]
        assert (result.primary_low, result.primary, result.primary_high) == (
            low,
            result.metrics["jga"],
            high,
        )
        assert result.tiebreak == result.metrics["ser"]
        assert result.signature.startswith("dstc11|norm:default|")
        assert len(result.dialogues["ids"]) == len(result.dialogues["turns"]) == len(GOLD)
        assert result.reference.active


def test_a_second_delivery_does_nothing(submission):
    tasks.score_submission(submission.pk)
    assert tasks.score_submission(submission.pk) == "skipped"
    assert Result.objects.filter(submission=submission).count() == 3


def test_rescoring_writes_the_same_rows_again(submission, enqueued):
    tasks.score_submission(submission.pk)
    first = {r.condition_id: (r.pk, r.metrics, r.intervals) for r in Result.objects.all()}
    assert services.rescore(submission)
    tasks.score_submission(submission.pk)
    again = {r.condition_id: (r.pk, r.metrics, r.intervals) for r in Result.objects.all()}
    assert again == first


def test_a_vanished_submission_is_ignored(submission):
    pk = submission.pk
    submission.delete()
    assert tasks.score_submission(pk) == "skipped"


def test_transient_errors_are_retried_then_fail_without_charging(submission, monkeypatch, settings):
    settings.SCORING_MAX_ATTEMPTS = 3

    def broken(reference):
        raise OSError("disk unavailable")

    monkeypatch.setattr(
        "leaderboard.submissions.services.processing.loaded_reference", broken, raising=True
    )
    for attempt in (1, 2):
        with pytest.raises(services.TransientScoringError):
            services.run_scoring(submission.pk)
        submission.refresh_from_db()
        assert (submission.status, submission.attempts) == (Submission.Status.QUEUED, attempt)
    assert services.run_scoring(submission.pk) == "failed"
    submission.refresh_from_db()
    assert submission.status == Submission.Status.FAILED
    assert not submission.charged
    assert "does not count against your quota" in submission.error
    assert "disk" not in submission.error  # internals are not shown to participants
    assert services.quota_usage(submission.team, submission.phase) == (0, 0)


def test_the_reaper_requeues_an_expired_lease_and_enqueues_it(
    submission, enqueued, django_capture_on_commit_callbacks
):
    assert Submission.claim(submission.pk, dt.timedelta(seconds=60))
    assert services.reap_expired_leases() == []  # lease still valid
    later = timezone.now() + dt.timedelta(seconds=61)
    with django_capture_on_commit_callbacks(execute=True):
        assert services.reap_expired_leases(now=later) == [submission.pk]
    submission.refresh_from_db()
    assert submission.status == Submission.Status.QUEUED
    assert enqueued[-1] == submission.pk
    assert tasks.score_submission(submission.pk) == "scored"


def test_the_reaper_fails_a_submission_that_used_all_attempts(submission, settings):
    settings.SCORING_MAX_ATTEMPTS = 1
    assert Submission.claim(submission.pk, dt.timedelta(seconds=1))
    services.reap_expired_leases(now=timezone.now() + dt.timedelta(seconds=5))
    submission.refresh_from_db()
    assert submission.status == Submission.Status.FAILED
    assert not submission.charged


def test_a_queued_submission_whose_message_was_lost_is_sent_again(
    submission, enqueued, settings, django_capture_on_commit_callbacks
):
    settings.SCORING_RESEND_AFTER_SECONDS = 300
    enqueued.clear()  # as if the broker had lost the message sent at upload
    now = timezone.now()
    with django_capture_on_commit_callbacks(execute=True):
        assert services.reap_expired_leases(now=now) == []  # first pass: stamps a deadline
        assert services.reap_expired_leases(now=now + dt.timedelta(seconds=299)) == []
        assert services.reap_expired_leases(now=now + dt.timedelta(seconds=301)) == [submission.pk]
        # sent once per interval, not on every pass
        assert services.reap_expired_leases(now=now + dt.timedelta(seconds=302)) == []
    assert enqueued == [submission.pk]
    assert tasks.score_submission(submission.pk) == "scored"


def test_workers_cache_parsed_references_by_sha256(submission, monkeypatch):
    references.clear_reference_cache()
    calls = []
    original = references.check_reference

    def counting(challenge, data, name, files=None):
        calls.append(name)
        return original(challenge, data, name, files)

    monkeypatch.setattr(references, "check_reference", counting)
    tasks.score_submission(submission.pk)
    assert len(calls) == 1  # three conditions share one gold file
