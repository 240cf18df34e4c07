"""Scoring a queued submission: claim, score, store, retry, reap."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from django.db import OperationalError
from django.utils import timezone

from leaderboard.challenges import references
from leaderboard.submissions import services, tasks
from leaderboard.submissions.models import Result, Submission
from leaderboard.submissions.services import processing
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


def test_faults_of_the_site_give_the_attempt_back_and_fail_nothing(
    submission, monkeypatch, settings
):
    settings.SCORING_MAX_ATTEMPTS = 3
    faults = iter([OSError("disk unavailable"), OperationalError("server closed")] * 3)

    def flaky(reference):
        raise next(faults)

    real = processing.loaded_reference
    monkeypatch.setattr(processing, "loaded_reference", flaky)
    # Five faults in a row (more than the attempts a run has): each gives the claim back
    # with its attempt, and is no step towards ``failed``.
    for _ in range(5):
        with pytest.raises(services.TransientScoringError):
            services.run_scoring(submission.pk, retry_in=10)
        submission.refresh_from_db()
        assert (submission.status, submission.attempts) == (Submission.Status.QUEUED, 0)
        # the reaper leaves it to the planned retry: 10 s + the resend interval from now
        assert submission.lease_until > timezone.now() + dt.timedelta(
            seconds=settings.SCORING_RESEND_AFTER_SECONDS
        )
    monkeypatch.setattr(processing, "loaded_reference", real)
    assert services.run_scoring(submission.pk) == "scored"
    submission.refresh_from_db()
    assert (submission.status, submission.attempts, submission.error) == ("scored", 1, "")
    assert submission.charged


def test_faults_lasting_past_the_retry_window_fail_the_run_without_asking_to_resubmit(
    submission, monkeypatch
):
    def broken(reference):
        raise OSError("disk unavailable")

    monkeypatch.setattr(processing, "loaded_reference", broken)
    assert services.run_scoring(submission.pk, give_up=True) == "failed"
    submission.refresh_from_db()
    assert submission.status == Submission.Status.FAILED
    assert not submission.charged
    assert "does not count against your quota" in submission.error
    assert "submit again" not in submission.error
    assert "disk" not in submission.error  # internals are not shown to participants
    assert services.quota_usage(submission.team, submission.phase) == (0, 0)


def test_the_task_retries_a_fault_with_growing_jittered_backoff():
    # the declared policy: ceilings doubling from 2 s up to SCORING_RETRY_MAX_DELAY (60 s by
    # default), each delay drawn at random up to its ceiling; the same for a re-score
    for task in (tasks.score_submission, tasks.rescore_submission):
        for retries, ceiling in enumerate([2, 4, 8, 16, 32, 60, 60]):
            draws = [tasks.backoff(task, retries) for _ in range(200)]
            assert min(draws) >= 0 and max(draws) <= ceiling
            assert max(draws) > ceiling / 2  # the ceiling grows
            assert len(set(draws)) > 1  # jitter


def test_a_claim_whose_lease_ran_out_is_taken_over_at_once(submission, settings):
    settings.SCORING_MAX_ATTEMPTS = 3
    held = Submission.claim(submission.pk, dt.timedelta(seconds=60))
    assert held is not None
    assert services.run_scoring(submission.pk) == "skipped"  # a live claim: left alone
    Submission.objects.filter(pk=submission.pk).update(
        lease_until=timezone.now() - dt.timedelta(seconds=1)
    )
    assert services.run_scoring(submission.pk) == "scored"  # no reaper needed
    submission.refresh_from_db()
    assert submission.attempts == 2  # the dead claimant's run counts
    # the dead claimant cannot renew what it lost
    assert Submission.renew(submission.pk, held, dt.timedelta(seconds=60)) is None


def test_a_claim_is_renewed_only_by_its_holder(submission):
    held = Submission.claim(submission.pk, dt.timedelta(seconds=60))
    renewed = Submission.renew(submission.pk, held, dt.timedelta(seconds=120))
    assert renewed is not None and renewed > held
    assert Submission.renew(submission.pk, held, dt.timedelta(seconds=120)) is None  # stale
    assert not Submission.release(submission.pk, held=held, refund=True)
    assert Submission.release(submission.pk, held=renewed, refund=True)
    submission.refresh_from_db()
    assert (submission.status, submission.attempts) == (Submission.Status.QUEUED, 0)


def test_a_killed_run_on_its_last_attempt_is_not_taken_over(submission, settings):
    settings.SCORING_MAX_ATTEMPTS = 1
    assert Submission.claim(submission.pk, dt.timedelta(seconds=60))
    Submission.objects.filter(pk=submission.pk).update(
        lease_until=timezone.now() - dt.timedelta(seconds=1)
    )
    assert services.run_scoring(submission.pk) == "skipped"  # the reaper fails it
    services.reap_expired_leases()
    submission.refresh_from_db()
    assert submission.status == Submission.Status.FAILED
    assert "did not complete after 1 attempt(s)" in submission.error
    assert "submit again" not in submission.error


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
    enqueued.clear()  # as if the broker had lost the message sent at upload
    # its deadline was set at upload, a moment before now: upload + the resend interval
    wait = settings.SCORING_RESEND_AFTER_SECONDS
    now = timezone.now()

    def reap(seconds: float) -> list[int]:
        return services.reap_expired_leases(now=now + dt.timedelta(seconds=seconds))

    with django_capture_on_commit_callbacks(execute=True):
        assert reap(0) == []
        assert reap(wait - 1) == []
        assert reap(wait + 1) == [submission.pk]
        # sent once per interval, not on every pass
        assert reap(wait + 2) == []
        assert reap(2 * wait) == []
        assert reap(2 * wait + 2) == [submission.pk]
    assert enqueued == [submission.pk, submission.pk]
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


def test_an_idle_reaper_pass_is_three_queries_whatever_is_stored(
    submission, django_assert_num_queries
):
    # a scored submission and nothing to do: the expired claims, the queued rows without a
    # re-send time, the queued rows due (each on the status and lease index)
    tasks.score_submission(submission.pk)
    with django_assert_num_queries(3):
        assert services.reap_expired_leases() == []
