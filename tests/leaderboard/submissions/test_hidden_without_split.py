"""A hidden phase without a split, with "show own public score": there is no public part, so
the team sees the same thing everywhere (the submission page, "my submissions", status.json
and the API, which the CLI prints): its status and no figure. The organisers see the figures."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from leaderboard.api.services import create_token
from leaderboard.challenges.models import Phase
from tests.leaderboard.factories import (
    UserFactory,
    approved_team,
    phase_with_references,
    with_second_factor,
)
from tests.leaderboard.web import GOLD_BYTES, JGA, log_in, scored_submission, shows_hand_worked

pytestmark = pytest.mark.django_db


def views_of(user, phase, run) -> dict[str, str]:
    client = Client()
    log_in(client, user)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {create_token(user, 'cli')[1]}")
    pages = {
        "detail": client.get(reverse("submissions:detail", args=[run.pk])),
        "mine": client.get(reverse("submissions:mine", args=[phase.challenge.slug, phase.slug])),
        "status": client.get(reverse("submissions:status", args=[run.pk])),
        "api": api.get(f"/api/v1/submissions/{run.pk}/"),
        "api list": api.get("/api/v1/submissions/"),
    }
    for name, response in pages.items():
        assert response.status_code == 200, name
    return {name: response.content.decode() for name, response in pages.items()}


def test_the_team_sees_no_figure_anywhere_and_the_organiser_sees_them():
    phase = phase_with_references(
        GOLD_BYTES, results_visibility=Phase.Visibility.HIDDEN, show_own_public_score=True
    )
    assert not phase.has_split
    team = approved_team(phase)
    run = scored_submission(team, phase)
    for name, text in views_of(team.created_by, phase, run).items():
        # 75.00 JGA and 16.67 SER, worked by hand (tests/leaderboard/web.py), in any precision,
        # looked for among the figures (the answers carry times and ids too)
        assert not shows_hand_worked(text), name
    status = Client()
    log_in(status, team.created_by)
    body = status.get(reverse("submissions:status", args=[run.pk])).json()
    assert body["status"] == "scored" and body["results"] == {}

    organiser = UserFactory()
    phase.challenge.organisers.add(with_second_factor(organiser))
    client = Client()
    log_in(client, organiser)
    assert JGA in client.get(reverse("submissions:detail", args=[run.pk])).content.decode()
