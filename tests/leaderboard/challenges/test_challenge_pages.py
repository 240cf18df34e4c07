"""Challenge list and detail: phases and their state, formats, rules, team registration."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from leaderboard.teams.models import Participation
from tests.leaderboard.factories import ChallengeFactory, PhaseFactory, TeamFactory, UserFactory
from tests.leaderboard.web import log_in, tight

pytestmark = pytest.mark.django_db
NOW = timezone.now()


@pytest.fixture
def challenge():
    challenge = ChallengeFactory(title="Speech DST", rules="Be kind.\nOne file per condition.")
    day = dt.timedelta(days=1)
    PhaseFactory(challenge=challenge, name="Dev", opens_at=NOW - 9 * day, closes_at=NOW - day)
    PhaseFactory(challenge=challenge, name="Test", opens_at=NOW - day, closes_at=NOW + day)
    PhaseFactory(challenge=challenge, name="Final", opens_at=NOW + day, closes_at=NOW + 9 * day)
    return challenge


def _detail(challenge):
    return reverse("challenges:detail", args=[challenge.slug])


def test_the_list_has_an_empty_state(client):
    assert "No challenges yet" in client.get(reverse("challenges:list")).text


def test_the_list_shows_each_challenge_with_its_phases(client, challenge):
    page = client.get(reverse("challenges:list")).text
    assert "Speech DST" in page and _detail(challenge) in page
    assert 'Dev <span class="state state-closed">' in page


def test_the_detail_shows_phases_with_state_dates_and_quotas(client, challenge):
    page = client.get(_detail(challenge)).text
    for name, state in (("Dev", "closed"), ("Test", "open"), ("Final", "upcoming")):
        cell = rf'<td data-label="State">\s*<span class="state state-{state}">'
        assert re.search(rf'<th scope="row">{name}</th>\s*{cell}', page)
    assert "no limit per day" in page
    assert "Be kind.<br>\nOne file per condition." in page  # Markdown, a line break kept


def test_the_detail_explains_the_formats_and_the_local_scoring_command(client, challenge):
    page = client.get(_detail(challenge)).text
    for name in ("gold-json", "mwz-wrapper", "manifest"):
        assert f"<code>{name}</code>" in page
    assert "line_nr: 1 dialog_id: mul0003.json turn_id: 0" in page
    # every setting spelled out: the task's defaults, and the factory's 200 bootstrap resamples
    # instead of the default 1000 (tests/leaderboard/factories.py)
    assert (
        "python -m scoring score --task dstc11 --gold gold.json --pred predictions.json"
        " --profile default --missing reject --bootstrap 200 --level 0.95 --seed 12345</code>"
    ) in page
    assert "Ranked by JGA (higher is better); ties are broken by SER (lower is better)" in page


def test_the_detail_of_another_task_names_its_formats_metrics_and_reference_files(client):
    challenge = ChallengeFactory(
        task="multiwoz22", scorer_options={"match": "fuzzy", "missing": "reject"}
    )
    page = client.get(_detail(challenge)).text
    assert "Task: MultiWOZ 2.2 (schema-guided)" in page
    for name in ("sgd-dialogues", "flat-states"):
        assert f"<code>{name}</code>" in page
    assert "<code>manifest</code>" not in page
    assert '<th scope="row">Cat. JGA</th>' in tight(page)
    # the schema is part of every reference; every option is named, the bootstrap's defaults too
    assert (
        "python -m scoring score --task multiwoz22 --gold gold.json --schema schema.json"
        " --pred predictions.json --match fuzzy --missing reject --bootstrap 1000 --level 0.95"
        " --seed 12345</code>"
    ) in page
    assert "Ranked by JGA (higher is better); ties are broken by Avg. goal acc." in page


def test_the_ranking_wording_follows_the_challenges_primary_metric(client):
    challenge = ChallengeFactory(primary_metric="ser")
    page = client.get(_detail(challenge)).text
    assert "Ranked by SER (lower is better); ties are broken by JGA (higher is better)" in page


def test_anonymous_visitors_are_invited_to_log_in_to_register(client, challenge):
    assert "to register a team" in client.get(_detail(challenge)).text


@pytest.mark.parametrize(
    ("registration", "status", "message"),
    [
        ("auto", Participation.Status.APPROVED, "is registered for"),
        ("approval", Participation.Status.PENDING, "an organiser will approve it"),
    ],
)
def test_registering_a_team_is_approved_or_pending_per_challenge(
    client, challenge, registration, status, message
):
    challenge.registration = registration
    challenge.save()
    team = TeamFactory()
    log_in(client, team.created_by)
    assert f"Register team {team.name}" in client.get(_detail(challenge)).text
    response = client.post(
        reverse("challenges:register", args=[challenge.slug]), {"team": team.pk}, follow=True
    )
    assert message in response.text
    assert Participation.objects.get(team=team, challenge=challenge).status == status
    assert f"Register team {team.name}" not in response.text


def test_a_user_cannot_register_someone_elses_team(client, challenge):
    foreign = TeamFactory()
    log_in(client, UserFactory())
    url = reverse("challenges:register", args=[challenge.slug])
    assert client.post(url, {"team": foreign.pk}).status_code == 404
    assert client.post(url, {"team": "x"}).status_code == 404
    assert client.post(url, {"team": "9" * 40}).status_code == 404  # beyond any row id
    assert client.post(url, {"team": "\u0663"}).status_code == 404  # a digit, not ASCII
    assert not Participation.objects.exists()


def test_registration_needs_log_in_post_and_csrf(client, challenge):
    team = TeamFactory()
    url = reverse("challenges:register", args=[challenge.slug])
    assert client.post(url, {"team": team.pk})["Location"].startswith(reverse("account_login"))
    client = Client(enforce_csrf_checks=True)
    log_in(client, team.created_by)
    assert client.get(url).status_code == 405
    assert client.post(url, {"team": team.pk}).status_code == 403  # no CSRF token
    assert not Participation.objects.exists()


def test_an_unknown_challenge_is_404(client):
    assert client.get(reverse("challenges:detail", args=["nope"])).status_code == 404
