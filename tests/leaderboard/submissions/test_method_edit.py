"""A team's members edit a run's method name, description and URL after the upload: under the
upload's limits, dated and shown as edited, in the audit log, the board built again; nobody
else may."""

from __future__ import annotations

import pytest
from django.urls import reverse

from leaderboard.challenges.audit import AuditEntry
from leaderboard.challenges.models import Phase
from leaderboard.submissions.models import Submission
from leaderboard.teams.models import Membership
from tests.leaderboard.api.conftest import token_client
from tests.leaderboard.factories import (
    UserFactory,
    approved_team,
    phase_with_references,
    with_second_factor,
)
from tests.leaderboard.web import GOLD_BYTES, log_in, scored_submission

pytestmark = pytest.mark.django_db


@pytest.fixture
def phase():
    return phase_with_references(GOLD_BYTES)


@pytest.fixture
def team(phase):
    return approved_team(phase)


@pytest.fixture
def run(team, phase):
    return scored_submission(team, phase, "Old name", build=False)


def test_a_member_edits_the_method_on_the_web_and_it_is_dated_logged_and_shown(
    client, run, team, phase
):
    teammate = UserFactory()
    Membership.objects.create(team=team, user=teammate)
    version = Phase.objects.get(pk=phase.pk).board_version
    log_in(client, teammate)
    url = reverse("submissions:edit", args=[run.pk])
    assert "Old name" in client.get(url).text
    answer = client.post(
        url,
        {
            "method_name": "New name",
            "method_description": "Now described",
            "url": "https://x.org/p",
        },
    )
    assert answer.status_code == 302
    run.refresh_from_db()
    assert (run.method_name, run.method_description, run.url) == (
        "New name",
        "Now described",
        "https://x.org/p",
    )
    assert run.edited_at is not None
    (entry,) = AuditEntry.objects.filter(action="method-edited")
    assert entry.actor == teammate and entry.phase_id == phase.pk
    assert entry.before == {"method_name": "Old name", "method_description": "", "url": ""}
    assert entry.after["method_name"] == "New name"
    assert Phase.objects.get(pk=phase.pk).board_version == version + 1
    page = client.get(reverse("submissions:detail", args=[run.pk])).text
    assert "New name" in page and 'id="edited"' in page


def test_the_upload_limits_hold_for_an_edit(client, run, team):
    log_in(client, team.created_by)
    url = reverse("submissions:edit", args=[run.pk])
    for data in (
        {"method_name": "", "url": ""},
        {"method_name": "x" * 201},
        {"method_name": "ok", "url": "ftp://x.org/p"},
        {"method_name": "ok", "url": "javascript:alert(1)"},
    ):
        assert client.post(url, data).status_code == 200  # the form again, with its errors
    run.refresh_from_db()
    assert run.method_name == "Old name" and run.edited_at is None
    assert not AuditEntry.objects.filter(action="method-edited").exists()


def test_nothing_changed_records_nothing(client, run, team):
    log_in(client, team.created_by)
    client.post(reverse("submissions:edit", args=[run.pk]), {"method_name": "Old name"})
    run.refresh_from_db()
    assert run.edited_at is None
    assert not AuditEntry.objects.filter(action="method-edited").exists()


def test_non_members_may_not_edit_on_the_web_or_in_the_api(client, run, phase):
    other = approved_team(phase).created_by
    organiser = UserFactory()
    phase.challenge.organisers.add(with_second_factor(organiser))
    for user in (other, organiser):
        log_in(client, user)
        url = reverse("submissions:edit", args=[run.pk])
        assert client.post(url, {"method_name": "Taken"}).status_code == 404
        answer = token_client(user).patch(
            f"/api/v1/submissions/{run.pk}/", {"method_name": "Taken"}, format="json"
        )
        assert answer.status_code == 404
    assert token_client().patch(f"/api/v1/submissions/{run.pk}/", {}).status_code == 401
    run.refresh_from_db()
    assert run.method_name == "Old name" and run.edited_at is None


def test_the_api_edits_only_the_fields_given_under_the_same_limits(run, team):
    client = token_client(team.created_by)
    url = f"/api/v1/submissions/{run.pk}/"
    refused = client.patch(url, {"url": "ftp://x.org/p"}, format="json")
    assert refused.status_code == 400
    assert "url" in refused.json()["error"]["details"]
    answer = client.patch(url, {"method_description": "Described"}, format="json")
    assert answer.status_code == 200
    data = answer.json()
    assert data["method_name"] == "Old name" and data["method_description"] == "Described"
    assert data["edited_at"] is not None
    assert Submission.objects.get(pk=run.pk).method_description == "Described"
    (entry,) = AuditEntry.objects.filter(action="method-edited")
    assert entry.after == {"method_description": "Described"}
