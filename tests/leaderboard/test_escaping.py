"""A hostile team name (and method name) is escaped on every page that shows it."""

from __future__ import annotations

import pytest
from django.urls import reverse

from leaderboard.submissions.models import Submission
from leaderboard.teams.models import Membership
from tests.leaderboard.factories import (
    UserFactory,
    approved_team,
    phase_with_references,
    with_second_factor,
)
from tests.leaderboard.web import GOLD_BYTES, log_in, prediction_file, scored_submission

pytestmark = pytest.mark.django_db
EVIL = "<script>alert(1)</script>"


def test_a_script_in_a_team_name_is_escaped_everywhere(client, worker):
    phase = phase_with_references(GOLD_BYTES)
    team = approved_team(phase)
    team.name = EVIL
    team.save()
    phase.challenge.organisers.add(with_second_factor(UserFactory()))
    submission = scored_submission(team, phase, method=EVIL)
    invalid = Submission.objects.create(
        team=team, phase=phase, method_name=EVIL, status="invalid", error=f"bad {EVIL}"
    )
    second = UserFactory()
    Membership.objects.create(team=approved_team(phase), user=second)
    Membership.objects.create(team=team, user=second)
    log_in(client, second)  # member of two teams: the submit page lists both in a <select>
    args = [phase.challenge.slug, phase.slug]
    pages = [
        reverse("challenges:detail", args=[phase.challenge.slug]),
        reverse("rankings:leaderboard", args=args),
        reverse("rankings:leaderboard", args=args) + "?fragment=1",
        reverse("submissions:submit", args=args),
        reverse("submissions:mine", args=args),
        reverse("submissions:detail", args=[submission.pk]),
        reverse("submissions:detail", args=[invalid.pk]),
        reverse("teams:mine"),
        reverse("teams:detail", args=[team.slug]),
        reverse("teams:join_link", args=[team.invite_code]),
        reverse("accounts:profile"),
    ]
    for url in pages:
        response = client.get(url)
        assert response.status_code == 200, url
        assert EVIL not in response.text, url
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in response.text, url
    status = client.get(reverse("submissions:status", args=[invalid.pk]))
    assert status["Content-Type"] == "application/json"

    # A rejected upload named like markup: the scorer's message is escaped too.
    files = {c.key: prediction_file(b"{", f"{EVIL}.json") for c in phase.conditions.all()}
    data = {"team": team.pk, "method_name": "m"}
    data.update({f"file_{key}": f for key, f in files.items()})
    with worker():
        response = client.post(reverse("submissions:submit", args=args), data)
    assert worker.outcomes == ["invalid"]
    response = client.get(response["Location"])
    assert "invalid JSON" in response.text and EVIL not in response.text
