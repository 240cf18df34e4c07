"""The first visit through the web layer: a new user signs up, confirms the address with the
mailed link, creates a team,
registers it, uploads three files, the scoring task runs, the board's worker builds the board,
and the leaderboard shows the row."""

from __future__ import annotations

import re

import pytest
from django.core import mail
from django.urls import reverse

from leaderboard.submissions.models import Submission
from leaderboard.submissions.services import run_scoring
from tests.leaderboard.boards import built
from tests.leaderboard.factories import phase_with_references
from tests.leaderboard.web import GOLD_BYTES, JGA, SER, submit_payload

pytestmark = pytest.mark.django_db


def test_a_new_user_signs_up_submits_and_sees_the_result_on_the_leaderboard(
    client, enqueued, account_mail, django_capture_on_commit_callbacks
):
    phase = phase_with_references(GOLD_BYTES, daily_quota=5)
    challenge = phase.challenge

    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("account_signup"),
            {
                "username": "newcomer",
                "email": "newcomer@example.org",
                "password1": "a-long-unusual-passphrase",
                "password2": "a-long-unusual-passphrase",
            },
        )
    assert response.status_code == 302
    # the link of the mail the worker sent, then its button
    link = re.search(r"https?://\S+?(/accounts/confirm-email/\S+/)", mail.outbox[-1].body).group(1)
    assert client.post(link).status_code == 302
    response = client.post(reverse("teams:create"), {"name": "Night Owls"}, follow=True)
    assert response.status_code == 200
    assert "Night Owls" in response.text
    team_id = response.context["team"].pk

    detail = client.get(reverse("challenges:detail", args=[challenge.slug]))
    assert "Register team Night Owls" in detail.text
    response = client.post(
        reverse("challenges:register", args=[challenge.slug]), {"team": team_id}, follow=True
    )
    assert "Night Owls is registered" in response.text

    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("submissions:submit", args=[challenge.slug, phase.slug]), submit_payload()
        )
    submission = Submission.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("submissions:detail", args=[submission.pk])
    assert submission.status == Submission.Status.QUEUED
    assert enqueued == [submission.pk]

    status_url = reverse("submissions:status", args=[submission.pk])
    assert client.get(status_url).json()["status"] == "queued"
    assert run_scoring(submission.pk) == "scored"  # the Celery task's body
    status = client.get(status_url).json()
    assert status["final"] is True
    assert {key: f"{r['metrics']['jga']['value']:.2f}" for key, r in status["results"].items()} == {
        c.key: JGA for c in phase.conditions.all()
    }
    assert {f"{r['metrics']['ser']['value']:.2f}" for r in status["results"].values()} == {SER}

    url = reverse("rankings:leaderboard", args=[challenge.slug, phase.slug])
    # until the board's worker has built the board (seconds after the scoring), the page
    # says so rather than showing an empty board
    waiting = client.get(url).text
    assert "has not been built yet" in waiting and "Night Owls" not in waiting
    built(phase)
    for page in (client.get(url), client.get(url, {"fragment": "1"})):
        assert page.status_code == 200
        rows = re.findall(r"<tr>.*?</tr>", page.text, flags=re.S)
        team_rows = [row for row in rows if "Night Owls" in row]
        # The overview row and one row per condition, each with JGA and SER and intervals.
        assert len(team_rows) == 1 + phase.conditions.count()
        for row in team_rows[1:]:
            assert re.search(rf"{JGA} <span class=\"ci\"[^>]*>\[\d+\.\d\d, \d+\.\d\d\]", row)
            assert re.search(rf"{SER} <span class=\"ci\"[^>]*>\[\d+\.\d\d, \d+\.\d\d\]", row)
        assert JGA in team_rows[0] and SER in team_rows[0]
    assert "dstc11|norm:default|" in page.text
