"""The submit page: scorer messages next to their fields, quotas, team choice, eligibility."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.urls import reverse
from django.utils import timezone
from django.utils.html import escape

from leaderboard.submissions import services
from leaderboard.submissions.models import Submission, SubmissionFile
from leaderboard.teams.models import Membership, Participation
from tests.leaderboard.factories import (
    KEYS,
    ParticipationFactory,
    TeamFactory,
    UserFactory,
    approved_team,
    phase_with_references,
)
from tests.leaderboard.web import GOLD_BYTES, MALFORMED, log_in, prediction_file, submit_payload

pytestmark = pytest.mark.django_db


@pytest.fixture
def phase():
    return phase_with_references(GOLD_BYTES, daily_quota=2)


@pytest.fixture
def team(phase):
    return approved_team(phase)


@pytest.fixture
def member(client, team):
    log_in(client, team.created_by)
    return team.created_by


def _url(phase):
    return reverse("submissions:submit", args=[phase.challenge.slug, phase.slug])


@pytest.mark.parametrize("kind", list(MALFORMED))
def test_a_malformed_upload_shows_the_scorers_message_and_charges_nothing(
    client, phase, team, member, worker, kind
):
    content, phrase = MALFORMED[kind]
    files = {key: prediction_file() for key in KEYS}
    files["human-verbatim"] = prediction_file(content, "broken.json")

    with worker():
        response = client.post(_url(phase), submit_payload(files=files))

    # The upload goes to its page, which follows it while its worker checks and scores it.
    (row,) = Submission.objects.all()
    assert response.status_code == 302 and response["Location"] == f"/submissions/{row.pk}/"
    assert worker.outcomes == ["invalid"]
    page = client.get(response["Location"]).text
    assert "Why the upload was not accepted" in page
    assert "Nothing of this upload was kept, and it does not count against your quota" in page
    assert "Human-Verbatim (<code>broken.json</code>): <strong>" in page
    message = page.index('<pre class="scorer-message">')
    assert escape(phrase) in page[message:]
    assert "human-verbatim: broken.json" in page[message:]
    assert row.status == Submission.Status.INVALID and not row.charged
    assert not SubmissionFile.objects.exists()
    assert services.quota_usage(team, phase) == (0, 0)


def test_a_missing_file_is_refused_at_its_field_and_nothing_is_queued(
    client, phase, team, member, enqueued
):
    files = {key: prediction_file() for key in KEYS if key != "human-verbatim"}
    response = client.post(_url(phase), submit_payload(files=files))
    assert response.status_code == 200
    assert "This field is required." in response.text.split('for="id_file_human-verbatim"')[1]
    assert not Submission.objects.exists()
    assert enqueued == []


def test_the_third_submission_of_the_day_is_refused_with_a_clear_message(
    client, phase, team, member, enqueued
):
    for _ in range(2):
        assert client.post(_url(phase), submit_payload()).status_code == 302
    assert "0 of 2 left" in client.get(_url(phase)).text

    response = client.post(_url(phase), submit_payload())

    assert response.status_code == 200
    assert escape(f"{team.name} has used its 2 submission(s) for today") in response.text
    assert Submission.objects.count() == 2


def _disabled(page: str) -> list[bool]:
    """For each file input and the submit button of ``page``: whether it is disabled."""
    tags = re.findall(r'<input type="file"[^>]*>|<button type="submit"(?: disabled)?>', page)
    assert len(tags) == len(KEYS) + 1
    return [" disabled" in tag for tag in tags]


def test_at_quota_zero_the_form_says_so_and_when_the_next_is_allowed_before_any_upload(
    client, phase, team, member, enqueued
):
    assert _disabled(client.get(_url(phase)).text) == [False] * (len(KEYS) + 1)
    for _ in range(2):
        assert client.post(_url(phase), submit_payload()).status_code == 302
    page = client.get(_url(phase)).text
    assert _disabled(page) == [True] * (len(KEYS) + 1)
    # the daily quota starts again at the next midnight of the site's time zone
    tomorrow = timezone.localdate() + dt.timedelta(days=1)
    assert (
        f"No submissions left: {escape(team.name)} has used its 2 submissions for today; the "
        f'next one is allowed from <time datetime="{tomorrow.isoformat()}T00:00:00'
    ) in page
    # an upload sent anyway is refused by the server as before, and stores nothing
    response = client.post(_url(phase), submit_payload())
    assert escape(f"{team.name} has used its 2 submission(s) for today") in response.text
    assert Submission.objects.count() == 2


def test_with_the_total_quota_used_up_the_form_names_no_next_time(
    client, phase, team, member, enqueued
):
    type(phase).objects.filter(pk=phase.pk).update(daily_quota=None, total_quota=1)
    assert client.post(_url(phase), submit_payload()).status_code == 302
    page = client.get(_url(phase)).text
    assert _disabled(page) == [True] * (len(KEYS) + 1)
    assert f"No submissions left: {escape(team.name)} has used all 1 submission allowed" in page
    assert "next one is allowed" not in page


def test_it_shows_the_remaining_quota_for_today_and_in_total(client, phase, team, member):
    phase.total_quota = 10
    phase.save()
    page = client.get(_url(phase)).text
    assert "today 2 of 2 left" in page
    assert "in total 10 of 10 left" in page


def test_a_required_file_left_out_is_reported_next_to_its_field(
    client, phase, team, member, enqueued
):
    files = {key: prediction_file() for key in KEYS[:2]}
    response = client.post(_url(phase), submit_payload(files=files))
    assert response.status_code == 200
    assert "This field is required." in response.text
    assert not Submission.objects.exists()


def test_a_partial_phase_accepts_fewer_files(client, phase, team, member, enqueued):
    phase.allow_partial = True
    phase.save()
    files = {KEYS[0]: prediction_file()}
    response = client.post(_url(phase), submit_payload(files=files))
    assert response.status_code == 302
    assert Submission.objects.get().files.count() == 1


def test_a_member_of_two_approved_teams_chooses_the_team(client, phase, team, member, enqueued):
    second = TeamFactory()
    Membership.objects.create(team=second, user=member)
    ParticipationFactory(team=second, challenge=phase.challenge)
    page = client.get(_url(phase)).text
    assert '<select name="team"' in page

    response = client.post(_url(phase), submit_payload(team=second.pk))
    assert response.status_code == 302
    assert Submission.objects.get().team == second


def test_a_team_of_another_user_cannot_be_chosen(client, phase, team, member, enqueued):
    second = TeamFactory()
    Membership.objects.create(team=second, user=member)
    ParticipationFactory(team=second, challenge=phase.challenge)
    foreign = approved_team(phase)
    response = client.post(_url(phase), submit_payload(team=foreign.pk))
    assert response.status_code == 200
    assert "Select a valid choice" in response.text
    assert not Submission.objects.exists()


@pytest.mark.parametrize("status", [None, Participation.Status.PENDING])
def test_a_user_without_an_approved_team_is_told_how_to_get_one(client, phase, status):
    team = TeamFactory()
    if status:
        ParticipationFactory(team=team, challenge=phase.challenge, status=status)
    log_in(client, team.created_by)
    response = client.get(_url(phase))
    assert response.status_code == 200
    assert "Only members of a team that is registered and approved" in response.text
    assert "<form" not in response.text.split("<main")[1]
    response = client.post(_url(phase), submit_payload())
    assert not Submission.objects.exists()


def test_a_user_without_a_team_gets_the_empty_state(client, phase):
    log_in(client, UserFactory())
    assert "You are not in a team yet" in client.get(_url(phase)).text


def test_the_submit_page_requires_log_in(client, phase):
    response = client.get(_url(phase))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("account_login"))
