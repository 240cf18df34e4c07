"""Receiving a submission: the request's checks, invalid records, quotas, storage; the
worker's first scoring refusing a malformed file."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from django.utils import timezone

from leaderboard.submissions import services
from leaderboard.submissions.models import Submission, SubmissionFile
from leaderboard.teams.models import Participation
from scoring.synth import make_gold
from tests.leaderboard.factories import (
    KEYS,
    ParticipationFactory,
    TeamFactory,
    approved_team,
    phase_with_references,
    upload,
    uploads,
)

pytestmark = pytest.mark.django_db

GOLD = make_gold(12, seed=7)
GOLD_BYTES = json.dumps(GOLD).encode()
FIRST = next(iter(GOLD))


@pytest.fixture
def phase():
    return phase_with_references(GOLD_BYTES, daily_quota=2)


@pytest.fixture
def team(phase):
    return approved_team(phase)


def _submit(team, phase, files=None, **kwargs):
    return services.submit(
        team=team,
        phase=phase,
        user=team.created_by,
        files=files if files is not None else uploads(GOLD),
        method_name=kwargs.pop("method_name", "my tracker"),
        **kwargs,
    )


def test_it_queues_a_valid_submission_and_enqueues_after_commit(
    team, phase, enqueued, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        submission = _submit(team, phase)
    assert submission.status == Submission.Status.QUEUED
    assert submission.charged
    assert enqueued == [submission.pk]
    assert len(callbacks) >= 1
    assert submission.files.count() == 3


def test_it_stores_files_under_random_names_with_their_sha256(team, phase, enqueued):
    submission = _submit(team, phase, files={k: upload(GOLD, "secret-run.json") for k in KEYS})
    for item in SubmissionFile.objects.filter(submission=submission):
        assert "secret-run" not in item.file.name
        assert item.original_name == "secret-run.json"
        assert item.size == len(json.dumps(GOLD).encode())
        assert len(item.sha256) == 64
        with item.file.open("rb") as handle:
            assert json.loads(handle.read()) == GOLD


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"{not json", "invalid JSON"),
        ({k: v for k, v in GOLD.items() if k != FIRST}, FIRST),
        (
            {**GOLD, FIRST: [{"hotel": {"area": 5}} for _ in GOLD[FIRST]]},
            "must be a string",
        ),
    ],
    ids=["bad-json", "missing-dialogue", "wrong-value-type"],
)
def test_it_rejects_a_malformed_upload_with_the_scorers_message_and_charges_nothing(
    team, phase, enqueued, isolation, django_capture_on_commit_callbacks, content, expected
):
    files = uploads(GOLD)
    files["human-verbatim"] = upload(content, "broken.json")
    submission = _submit(team, phase, files=files)
    # Stored and charged until its worker reads it
    assert submission.status == Submission.Status.QUEUED and submission.charged
    assert services.quota_usage(team, phase) == (1, 1)

    with django_capture_on_commit_callbacks(execute=True):  # the files go once it commits
        assert services.run_scoring(submission.pk) == "invalid"
    invalid = Submission.objects.get(pk=submission.pk)
    assert invalid.status == Submission.Status.INVALID
    assert not invalid.charged
    first, *others = invalid.error.splitlines()
    assert first.startswith("human-verbatim: broken.json")
    assert expected in first
    assert not [line for line in others if line.startswith(("tts-verbatim", "human-para"))]
    assert invalid.verdicts["human-verbatim"]["name"] == "broken.json"
    assert invalid.verdicts["tts-verbatim"] == {"kind": "valid", "name": "tts-verbatim.json"}
    assert not SubmissionFile.objects.exists()
    assert not invalid.results.exists()
    assert not [p for p in (isolation["private"] / "submissions").rglob("*") if p.is_file()]
    assert services.quota_usage(team, phase) == (0, 0)


def test_a_file_the_request_can_refuse_without_reading_it_is_refused_at_once(team, phase, enqueued):
    files = uploads(GOLD)
    del files["human-verbatim"]
    with pytest.raises(services.SubmissionRejected) as caught:
        _submit(team, phase, files=files)
    assert caught.value.messages == {
        "human-verbatim": "a prediction file is required for this condition."
    }
    invalid = caught.value.submission
    assert invalid.status == Submission.Status.INVALID and not invalid.charged
    assert invalid.verdicts["human-verbatim"] == {"kind": "missing", "name": ""}
    assert invalid.verdicts["tts-verbatim"]["kind"] == "unchecked"
    assert not SubmissionFile.objects.exists()
    assert enqueued == []


def test_invalid_uploads_do_not_use_up_the_daily_quota(team, phase, enqueued):
    for _ in range(3):
        refused = _submit(team, phase, files=uploads(b"[]"))
        assert services.run_scoring(refused.pk) == "invalid"
    _submit(team, phase)
    _submit(team, phase)
    assert Submission.objects.filter(status=Submission.Status.INVALID).count() == 3


def test_it_refuses_the_third_submission_of_the_day_with_a_clear_message(team, phase, enqueued):
    _submit(team, phase)
    _submit(team, phase)
    with pytest.raises(services.QuotaExceeded, match="used its 2 submission"):
        _submit(team, phase)
    assert Submission.objects.count() == 2


def test_yesterdays_submissions_do_not_count_today_but_count_in_the_total(team, phase, enqueued):
    phase.total_quota = 3
    phase.save()
    for _ in range(2):
        _submit(team, phase)
    Submission.objects.update(created_at=timezone.now() - dt.timedelta(days=1))
    _submit(team, phase)
    with pytest.raises(services.QuotaExceeded, match="all 3 submission"):
        _submit(team, phase)


def test_failed_and_cancelled_submissions_give_their_quota_back(team, phase, enqueued):
    first = _submit(team, phase)
    second = _submit(team, phase)
    services.cancel(first, team.created_by)
    Submission.objects.filter(pk=second.pk).update(status=Submission.Status.SCORING)
    assert Submission.fail(second.pk, "boom")
    assert services.quota_usage(team, phase) == (0, 0)
    _submit(team, phase)
    _submit(team, phase)


def test_another_teams_member_cannot_cancel(team, phase, enqueued):
    submission = _submit(team, phase)
    outsider = TeamFactory().created_by
    with pytest.raises(services.SubmissionNotAllowed):
        services.cancel(submission, outsider)
    submission.refresh_from_db()
    assert submission.status == Submission.Status.QUEUED


def test_it_requires_every_condition_unless_the_phase_allows_partial(team, phase, enqueued):
    files = uploads(GOLD, keys=KEYS[:1])
    with pytest.raises(services.SubmissionRejected) as caught:
        _submit(team, phase, files=files)
    assert set(caught.value.messages) == set(KEYS[1:])
    phase.allow_partial = True
    phase.save()
    submission = _submit(team, phase, files=uploads(GOLD, keys=KEYS[:1]))
    assert submission.files.count() == 1


def test_it_rejects_an_unknown_condition(team, phase, enqueued):
    files = {**uploads(GOLD), "nope": upload(GOLD)}
    with pytest.raises(services.SubmissionRejected, match="no condition 'nope'"):
        _submit(team, phase, files=files)


def test_it_refuses_a_closed_phase(team, phase, enqueued):
    phase.closes_at = timezone.now() - dt.timedelta(minutes=1)
    phase.opens_at = phase.closes_at - dt.timedelta(days=1)
    phase.save()
    with pytest.raises(services.SubmissionNotAllowed, match="not open"):
        _submit(team, phase)
    assert not Submission.objects.exists()


@pytest.mark.parametrize("status", [Participation.Status.PENDING, Participation.Status.REJECTED])
def test_it_refuses_a_team_that_is_not_approved(phase, enqueued, status):
    team = TeamFactory()
    ParticipationFactory(team=team, challenge=phase.challenge, status=status)
    with pytest.raises(services.SubmissionNotAllowed, match="not an approved participant"):
        _submit(team, phase)


def test_uploads_the_request_refuses_are_limited_per_address_before_anything_is_stored(
    phase, enqueued, settings
):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
            "rejected-ip": "2/hour",
        },
    }
    incomplete = uploads(GOLD, keys=KEYS[1:])
    # Two teams, one address: the limit is on the address, whatever team sends.
    for team in (approved_team(phase), approved_team(phase)):
        with pytest.raises(services.SubmissionRejected):
            _submit(team, phase, files=incomplete, client_address="10.3.0.1")
    assert Submission.objects.filter(status=Submission.Status.INVALID).count() == 2
    # Past it, a good upload from that address is refused too, and nothing is recorded.
    team = approved_team(phase)
    with pytest.raises(services.TooManyRejected) as caught:
        _submit(team, phase, client_address="10.3.0.1")
    assert "Too many uploads from your address were not accepted" in str(caught.value)
    assert 0 < caught.value.retry_after <= 3600
    assert Submission.objects.count() == 2
    assert enqueued == []
    assert services.quota_usage(team, phase) == (0, 0)
    # Another address is not affected, nor is an upload with no address (a command's).
    assert _submit(team, phase, client_address="10.3.0.2").status == Submission.Status.QUEUED
    other = approved_team(phase)
    assert _submit(other, phase).status == Submission.Status.QUEUED
