"""Participant approval, team size, anonymous teams, reported figures, the organiser
dashboard, phase states on the pages, and the team's e-mail when a run is scored or fails."""

from __future__ import annotations

import datetime as dt
import json
import re

import pytest
from django.core import mail
from django.urls import reverse
from django.utils import timezone

from leaderboard.challenges.models import Challenge, Phase
from leaderboard.rankings.models import ReportedResult
from leaderboard.submissions import services
from leaderboard.submissions.models import Submission
from leaderboard.teams.models import Participation
from leaderboard.teams.services import TeamError, join_team, register
from tests.leaderboard.boards import built
from tests.leaderboard.factories import (
    ChallengeFactory,
    TeamFactory,
    UserFactory,
    approved_team,
    phase_with_references,
    with_second_factor,
)
from tests.leaderboard.web import (
    GOLD_BYTES,
    log_in,
    scored_submission,
    shows_hand_worked,
    tight,
)

pytestmark = pytest.mark.django_db


def test_an_organiser_approves_and_rejects_pending_registrations(client):
    challenge = ChallengeFactory(registration=Challenge.Registration.APPROVAL)
    organiser = UserFactory()
    challenge.organisers.add(with_second_factor(organiser))
    first, second = TeamFactory(name="Waiting One"), TeamFactory(name="Waiting Two")
    a, b = register(team=first, challenge=challenge), register(team=second, challenge=challenge)
    assert a.status == b.status == Participation.Status.PENDING
    url = reverse("challenges:organise", args=[challenge.slug])
    log_in(client, first.created_by)
    assert client.get(url).status_code == 404
    decide = reverse("challenges:decide", args=[challenge.slug, a.pk])
    assert client.post(decide, {"decision": "approve"}).status_code == 404
    log_in(client, organiser)
    page = client.get(url).text
    assert "Approve Waiting One" in page and "Reject Waiting Two" in page
    client.post(reverse("challenges:decide", args=[challenge.slug, a.pk]), {"decision": "approve"})
    client.post(reverse("challenges:decide", args=[challenge.slug, b.pk]), {"decision": "reject"})
    a.refresh_from_db()
    b.refresh_from_db()
    assert (a.status, b.status) == (Participation.Status.APPROVED, Participation.Status.REJECTED)


def test_joining_a_full_team_is_refused():
    challenge = ChallengeFactory(max_team_size=2)
    team = TeamFactory()
    register(team=team, challenge=challenge)
    join_team(invite_code=team.invite_code, user=UserFactory())
    with pytest.raises(TeamError, match="full"):
        join_team(invite_code=team.invite_code, user=UserFactory())
    assert team.memberships.count() == 2
    # and a team already too big cannot register
    with pytest.raises(TeamError):
        register(team=team, challenge=ChallengeFactory(max_team_size=1))


def test_an_anonymous_team_is_named_only_for_organisers(client):
    phase = phase_with_references(GOLD_BYTES)
    team = approved_team(phase)
    team.name = "Secret Lab"
    team.save()
    scored_submission(team, phase)
    log_in(client, team.created_by)
    client.post(reverse("teams:anonymous", args=[team.slug]), {"anonymous": "1"})
    built(phase)  # as the board's worker builds the boards after the change
    client.logout()
    args = [phase.challenge.slug, phase.slug]
    for url in (
        reverse("rankings:leaderboard", args=args),
        reverse("rankings:export-json", args=args),
        reverse("rankings:export-csv", args=args),
        f"/api/v1/phases/{phase.pk}/leaderboard/",
        f"/api/v1/phases/{phase.pk}/leaderboard/?format=csv",
    ):
        text = client.get(url).content.decode()
        assert "Secret Lab" not in text and team.slug not in text, url
        assert f"Anonymous team {team.alias}" in text, url
        assert f"Anonymous team {team.pk}" not in text, url  # the label is no primary key
    # its own page (name, members, registrations) is its members' and organisers' only
    assert client.get(reverse("teams:detail", args=[team.slug])).status_code == 404
    log_in(client, UserFactory())
    assert client.get(reverse("teams:detail", args=[team.slug])).status_code == 404
    log_in(client, team.created_by)
    assert "Secret Lab" in client.get(reverse("teams:detail", args=[team.slug])).content.decode()
    organiser = UserFactory()
    phase.challenge.organisers.add(with_second_factor(organiser))
    log_in(client, organiser)
    archive = client.get(reverse("rankings:archive", args=args)).json()
    assert archive["results"][0]["team"] == "Secret Lab"
    assert client.get(reverse("teams:detail", args=[team.slug])).status_code == 200


def test_reported_figures_are_shown_unranked_and_labelled_only_when_chosen(client):
    phase = phase_with_references(GOLD_BYTES)
    scored_submission(approved_team(phase), phase)
    condition = phase.conditions.first()
    row = ReportedResult.objects.create(
        phase=phase,
        condition=condition,
        label="D3ST-XXL",
        metrics={"jga": 99.25},
        source="DSTC11 overview",
    )
    # each an organiser's edit in the admin: a change of the phase's boards, then built
    Phase.changed(phase.pk)
    built(phase)
    url = reverse("rankings:leaderboard", args=[phase.challenge.slug, phase.slug])
    assert "D3ST-XXL" not in client.get(url).text
    row.shown = True
    row.save()
    Phase.changed(phase.pk)
    built(phase)
    page = client.get(url).text
    assert "D3ST-XXL" in page and "not scored here" in page
    ranked = page.split('id="reported-table"')[0]
    assert "D3ST-XXL" not in ranked  # never among the ranked tables
    assert "99.25" in page.split('id="reported-table"')[1]


def test_the_dashboard_shows_states_queue_health_and_daily_counts(client, enqueued):
    phase = phase_with_references(GOLD_BYTES)
    organiser = UserFactory()
    phase.challenge.organisers.add(with_second_factor(organiser))
    team = approved_team(phase)
    scored_submission(team, phase)
    queued = scored_submission(team, phase, "waiting", score=False)
    Submission.objects.filter(pk=queued.pk).update(
        created_at=timezone.now() - dt.timedelta(minutes=5)
    )
    Submission.objects.create(team=team, phase=phase, method_name="x", status="failed")
    later = timezone.now() + dt.timedelta(days=3)
    Phase.objects.create(
        challenge=phase.challenge,
        name="Later",
        slug="later",
        opens_at=later,
        closes_at=later + dt.timedelta(days=6),
    )
    log_in(client, organiser)
    detail = client.get(reverse("challenges:detail", args=[phase.challenge.slug])).text
    assert reverse("challenges:organise", args=[phase.challenge.slug]) in detail
    assert "opens in" in detail and "closes in" in detail
    page = tight(client.get(reverse("challenges:organise", args=[phase.challenge.slug])).text)
    assert '<dd id="queued">1</dd>' in page and '<dd id="scoring">0</dd>' in page
    assert '<dd id="failed">1</dd>' in page
    oldest = int(page.split('<dd id="oldest">')[1].split(" s<")[0])
    assert 300 <= oldest < 400
    assert "state-upcoming" in page and "state-open" in page
    # each reference version with what its summary says (the gold of tests.leaderboard.web:
    # 2 dialogues, 4 user turns, 6 gold values of 4 slots)
    assert page.count("format: gold-json; slot values: 6; slots: 4</td>") == 3
    # the three submissions, on the days they were made (the waiting one, five minutes ago, is
    # yesterday's just after midnight)
    per_day = page.split('id="per-day"')[1].split("</tbody>")[0]
    assert sum(int(n) for n in re.findall(r'<td class="num">(\d+)</td>', per_day)) == 3
    log_in(client, team.created_by)
    assert (
        reverse("challenges:organise", args=[phase.challenge.slug])
        not in client.get(reverse("challenges:detail", args=[phase.challenge.slug])).text
    )


def test_the_team_is_mailed_when_a_run_is_scored_or_fails(
    django_capture_on_commit_callbacks, notified
):
    phase = phase_with_references(GOLD_BYTES)
    team = approved_team(phase)
    with django_capture_on_commit_callbacks(execute=True):
        run = scored_submission(team, phase)
    assert len(mail.outbox) == 1
    assert f"#{run.pk}" in mail.outbox[0].subject and "scored" in mail.outbox[0].subject
    assert mail.outbox[0].to == [team.created_by.email]
    assert not shows_hand_worked(mail.outbox[0].body)  # no score in the mail
    broken = scored_submission(team, phase, "broken", score=False)
    broken.files.update(sha256="x")
    for f in broken.files.all():
        f.file.storage.delete(f.file.name)
    # Its files gone: a fault of the site, retried until the retry window ran out.
    with django_capture_on_commit_callbacks(execute=True):
        assert services.run_scoring(broken.pk, give_up=True) == "failed"
    assert len(mail.outbox) == 2 and "failed" in mail.outbox[1].subject


def test_the_dashboard_lists_another_tasks_reference_and_its_files(client):
    from tests.leaderboard.task_data import MWZ_GOLD, SCHEMA, make_phase

    files = {"schema": (json.dumps(SCHEMA).encode(), "schema.json")}
    phase = make_phase("multiwoz22", json.dumps(MWZ_GOLD).encode(), files)
    organiser = UserFactory()
    phase.challenge.organisers.add(with_second_factor(organiser))
    log_in(client, organiser)
    page = tight(client.get(reverse("challenges:organise", args=[phase.challenge.slug])).text)
    # two dialogues, three user turns, one service (hotel)
    assert (
        '<td>2</td><td>3</td><td class="facts">files: schema (schema.json); '
        "format: sgd-dialogues; services: 1</td>"
    ) in page
