"""Submitting through the API: 201 with the submission, 400 with the scorer's message per
condition (not charged), 403 for quotas and closed phases, cancelling, listing, results."""

from __future__ import annotations

import datetime as dt
import hashlib

import pytest
from django.utils import timezone

from leaderboard.challenges.models import Phase
from leaderboard.submissions import services
from leaderboard.submissions.models import Submission
from tests.leaderboard.api.conftest import token_client
from tests.leaderboard.factories import KEYS, ParticipationFactory, TeamFactory
from tests.leaderboard.web import GOLD_BYTES, JGA, MALFORMED, SER, prediction_file

pytestmark = pytest.mark.django_db


def _files(content=None) -> dict:
    return {key: prediction_file() if content is None else prediction_file(content) for key in KEYS}


def _submit(actors, client=None, **data):
    client = client or token_client(actors.member)
    payload = {"method_name": "Tracker", **_files(), **data}
    return client.post(
        f"/api/v1/phases/{actors.phase.pk}/submissions/", payload, format="multipart"
    )


def test_a_valid_upload_answers_201_with_the_queued_submission_and_enqueues_it(
    actors, enqueued, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = _submit(actors, method_description="d", url="https://example.org/paper")
    assert response.status_code == 201
    body = response.json()
    assert body["status"] == "queued" and body["final"] is False and body["can_cancel"] is True
    assert body["team"]["slug"] == actors.team.slug
    assert sorted(f["condition"] for f in body["files"]) == sorted(KEYS)
    assert enqueued == [body["id"]]
    assert Submission.objects.get(pk=body["id"]).charged


def test_the_detail_gives_each_conditions_metrics_intervals_and_signature_once_scored(actors):
    submission_id = _submit(actors).json()["id"]
    assert services.run_scoring(submission_id) == "scored"
    body = token_client(actors.member).get(f"/api/v1/submissions/{submission_id}/").json()
    assert body["status"] == "scored" and body["attempts"] == 1 and body["error"] == ""
    assert list(body["results"]) == list(KEYS)
    assert [m["name"] for m in body["metrics"]][:3] == ["jga", "ser", "slot_f1"]
    assert body["ci_level"] == 0.95
    for result in body["results"].values():
        assert result["part"] == "all"
        metrics = result["metrics"]
        # Hand-worked in tests/leaderboard/web.py: JGA 75.00, SER 16.67; in the task's order.
        assert list(metrics) == ["jga", "ser", "slot_f1"]
        assert f"{metrics['jga']['value']:.2f}" == JGA
        assert f"{metrics['ser']['value']:.2f}" == SER
        low, high = metrics["jga"]["ci"]
        assert low <= metrics["jga"]["value"] <= high
        # slot F1 is reported without an interval: 2 TP / (n_pred + n_ref) = 10 / 12.
        assert metrics["slot_f1"] == {"value": pytest.approx(1000 / 12), "ci": None}
        assert result["signature"].startswith("dstc11|norm:default|")
        assert result["reference_sha256"] == hashlib.sha256(GOLD_BYTES).hexdigest()
        details = result["breakdown"]["details"]
        assert (details["sub"], details["del"], details["ins"]) == (1, 0, 0)
        assert result["breakdown"]["format"] == "gold-json"
        assert result["breakdown"]["counts"]["turns"] == 4
        assert result["breakdown"]["warnings"] == []
        assert "parts" not in result  # no split


@pytest.mark.parametrize("kind", sorted(MALFORMED))
def test_a_broken_file_makes_the_submission_invalid_with_the_scorers_message_not_charged(
    actors, worker, kind
):
    content, phrase = MALFORMED[kind]
    files = {**_files(), "human-verbatim": prediction_file(content)}
    with worker():
        response = _submit(actors, **files)
    assert response.status_code == 201 and response.json()["status"] == "queued"
    assert worker.outcomes == ["invalid"]
    found = token_client(actors.member).get(f"/api/v1/submissions/{response.json()['id']}/")
    body = found.json()
    assert body["status"] == "invalid" and body["files"] == [] and body["results"] == {}
    (line,) = body["error"].splitlines()
    assert line.startswith("human-verbatim: ") and phrase in line
    assert body["verdicts"]["human-verbatim"]["kind"] in {"unreadable", "incomplete"}
    assert body["verdicts"]["tts-verbatim"]["kind"] == "valid"
    assert services.quota_usage(actors.team, actors.phase) == (0, 0)
    invalid = Submission.objects.get(pk=body["id"])
    assert invalid.status == Submission.Status.INVALID and not invalid.charged


def test_a_missing_condition_and_an_unknown_one_are_named(actors):
    files = {"tts-verbatim": prediction_file(), "no-such-condition": prediction_file()}
    response = token_client(actors.member).post(
        f"/api/v1/phases/{actors.phase.pk}/submissions/",
        {"method_name": "m", **files},
        format="multipart",
    )
    conditions = response.json()["error"]["details"]["conditions"]
    assert set(conditions) == {"no-such-condition", "human-verbatim", "human-paraphrased"}


def test_a_used_quota_is_a_403_with_the_services_message(actors):
    Phase.objects.filter(pk=actors.phase.pk).update(daily_quota=1)
    actors.phase.refresh_from_db()
    assert _submit(actors).status_code == 201
    response = _submit(actors)
    assert response.status_code == 403
    error = response.json()["error"]
    assert error["code"] == "quota_exceeded"
    assert "used its 1 submission(s) for today" in error["message"]
    assert "resets at midnight" in error["message"]


@pytest.mark.parametrize("daily_quota", [None, 1, 5])
def test_a_used_total_quota_is_a_403_that_names_the_total_and_no_reset(actors, daily_quota):
    # with the day's quota used up as well (daily_quota=1), the total still decides: no
    # midnight brings a submission back
    Phase.objects.filter(pk=actors.phase.pk).update(daily_quota=daily_quota, total_quota=1)
    actors.phase.refresh_from_db()
    assert _submit(actors).status_code == 201
    response = _submit(actors)
    assert response.status_code == 403
    error = response.json()["error"]
    assert error["code"] == "quota_exceeded"
    assert "used all 1 submission(s) allowed in" in error["message"]
    assert "midnight" not in error["message"] and "for today" not in error["message"]


def test_a_closed_phase_refuses_uploads_with_a_403(actors):
    Phase.objects.filter(pk=actors.phase.pk).update(
        opens_at=timezone.now() - dt.timedelta(days=3),
        closes_at=timezone.now() - dt.timedelta(days=1),
    )
    response = _submit(actors)
    assert response.status_code == 403
    error = response.json()["error"]
    assert error["code"] == "submission_not_allowed"
    assert "not open" in error["message"]


def test_a_member_of_two_teams_names_the_team(actors):
    second = TeamFactory(created_by=actors.member)
    ParticipationFactory(team=second, challenge=actors.phase.challenge)
    response = _submit(actors)
    assert response.status_code == 400
    assert "team" in response.json()["error"]["details"]
    chosen = _submit(actors, team=second.slug)
    assert chosen.status_code == 201
    assert chosen.json()["team"]["slug"] == second.slug
    assert _submit(actors, team=actors.other_team.slug).status_code == 400


def test_cancel_works_while_queued_and_is_a_409_afterwards(actors):
    submission_id = _submit(actors).json()["id"]
    client = token_client(actors.member)
    response = client.post(f"/api/v1/submissions/{submission_id}/cancel/")
    assert response.status_code == 200
    assert response.json()["status"] == "cancelled"
    again = client.post(f"/api/v1/submissions/{submission_id}/cancel/")
    assert again.status_code == 409
    assert again.json()["error"]["code"] == "not_cancellable"


def test_the_list_filters_by_phase_and_status_and_is_paginated(actors):
    for _ in range(3):
        _submit(actors)
    client = token_client(actors.member)
    page = client.get("/api/v1/submissions/?page_size=2").json()
    assert page["count"] == 3 and len(page["results"]) == 2 and page["next"]
    assert client.get(f"/api/v1/submissions/?phase={actors.phase.pk}").json()["count"] == 3
    assert client.get("/api/v1/submissions/?phase=99999").json()["count"] == 0
    assert client.get("/api/v1/submissions/?status=scored").json()["count"] == 0
    assert client.get("/api/v1/submissions/?phase=x").status_code == 400


def test_finished_says_the_status_will_not_change_and_final_is_its_deprecated_alias(actors):
    """Queued: not finished; scored: finished. ``final`` (its first name) follows it, and says
    nothing of the team's choice for the final ranking (``selected_for_final``)."""
    submission_id = _submit(actors).json()["id"]
    client = token_client(actors.member)
    queued = client.get(f"/api/v1/submissions/{submission_id}/").json()
    assert (queued["status"], queued["finished"], queued["final"]) == ("queued", False, False)
    assert services.run_scoring(submission_id) == "scored"
    scored = client.get(f"/api/v1/submissions/{submission_id}/").json()
    assert (scored["status"], scored["finished"], scored["final"]) == ("scored", True, True)
    assert not Submission.objects.get(pk=submission_id).selected_for_final
    (listed,) = client.get("/api/v1/submissions/").json()["results"]
    assert listed["finished"] is True
