"""The audit log: every organiser and operator action leaves one entry (who, when, what,
before and after), written in the action's transaction, read by the challenge's organisers on
the dashboard and through the organiser API, and exported in the archive; nobody else reads
it.

The world (``construction``): a hidden phase with a split, three scored teams, B's final
selection; its organiser and an outsider."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command
from django.urls import reverse

from leaderboard.challenges.audit import AuditEntry
from leaderboard.challenges.models import Phase
from leaderboard.challenges.services import add_reference
from leaderboard.rankings.snapshots import reveal
from leaderboard.submissions.services import select_final
from leaderboard.teams.models import Participation
from leaderboard.teams.services import TeamError, set_anonymous, set_participation_status
from tests.leaderboard.api.conftest import token_client
from tests.leaderboard.factories import UserFactory, with_second_factor
from tests.leaderboard.organiser import construction as c
from tests.leaderboard.organiser.conftest import close
from tests.leaderboard.test_admin import _form_data
from tests.leaderboard.web import log_in

pytestmark = pytest.mark.django_db


def _entries(world, action):
    return list(AuditEntry.objects.filter(challenge=world.phase.challenge, action=action))


def test_a_reveal_is_recorded_with_its_organiser_and_snapshot(world):
    close(world.phase)
    reveal(world.phase, world.organiser)
    (entry,) = _entries(world, "revealed")
    assert entry.actor == world.organiser and entry.actor_name == world.organiser.username
    assert entry.phase == world.phase and entry.after == {"snapshot": 1}


def test_a_reference_activation_records_the_version_before_and_after(world, client):
    condition = world.phase.conditions.get()
    old = condition.active_reference()
    new = add_reference(condition, json.dumps(c.gold()).encode(), "v2.json", active=False)
    log_in(client, world.organiser)
    url = reverse("challenges:review_reference", args=[world.phase.challenge.slug, new.pk])
    assert client.post(url).status_code == 302
    (entry,) = _entries(world, "reference-activated")
    assert entry.actor == world.organiser
    assert entry.before == {"sha256": old.sha256} and entry.after == {"sha256": new.sha256}
    (rescored,) = _entries(world, "rescored")  # the activation re-queues every run of it
    assert sorted(rescored.after["submissions"]) == sorted(s.pk for s in world.runs.values())


def test_admin_changes_of_a_phase_are_recorded_before_and_after(world, client):
    Phase.objects.filter(pk=world.phase.pk).update(show_own_public_score=False)
    client.force_login(
        with_second_factor(UserFactory(is_staff=True, is_superuser=True, username="root"))
    )
    url = reverse("admin:challenges_phase_change", args=[world.phase.pk])
    data = _form_data(client.get(url))
    data.update(split_seed="8", name="Test (renamed)")
    assert client.post(url, data).status_code == 302
    (entry,) = _entries(world, "phase-changed")
    assert entry.actor_name == "root" and entry.phase_id == world.phase.pk
    assert entry.before == {"name": world.phase.name, "split_seed": c.SEED}
    assert entry.after == {"name": "Test (renamed)", "split_seed": 8}


def test_registrations_selections_anonymity_and_downloads_are_recorded(world, client):
    team = world.teams["C"]
    participation = Participation.objects.get(team=team, challenge=world.phase.challenge)
    set_participation_status(participation, Participation.Status.REJECTED, actor=world.organiser)
    (entry,) = _entries(world, "registration")
    assert entry.subject == team.name
    assert (entry.before, entry.after) == ({"status": "approved"}, {"status": "rejected"})
    select_final(world.runs["C2"], team.created_by, True)
    # the newest (the world's own set-up selected B1 first)
    entry, earlier = _entries(world, "final-selection")
    assert earlier.subject == f"{world.teams['B'].name}: submission {world.runs['B1'].pk}"
    assert entry.subject == f"{team.name}: submission {world.runs['C2'].pk}"
    assert entry.actor == team.created_by and entry.after == {"selected": True}
    set_anonymous(team=team, user=team.created_by, anonymous=True)
    (entry,) = _entries(world, "anonymity")
    assert (entry.before, entry.after) == ({"anonymous": False}, {"anonymous": True})
    log_in(client, world.organiser)
    url = reverse("challenges:phase_files", args=[world.phase.challenge.slug, world.phase.slug])
    response = client.get(url)
    assert response.status_code == 200
    b"".join(response.streaming_content)
    (entry,) = _entries(world, "files-downloaded")
    assert entry.actor == world.organiser and len(entry.after["submissions"]) == 5


def test_a_refused_action_leaves_no_entry(world):
    # A member of team A joins team B: approving B again is refused, and nothing is recorded.
    participation = Participation.objects.get(team=world.teams["B"])
    Participation.objects.filter(pk=participation.pk).update(status="pending")
    world.teams["B"].memberships.create(user=world.teams["A"].created_by, role="member")
    with pytest.raises(TeamError):
        set_participation_status(
            participation, Participation.Status.APPROVED, actor=world.organiser
        )
    assert _entries(world, "registration") == []


def test_operator_commands_are_recorded_as_the_operator(world, capsys):
    user = UserFactory(username="dan")
    call_command("add_organiser", world.phase.challenge.slug, "dan")
    (entry,) = _entries(world, "organiser-added")
    assert entry.actor is None and entry.actor_name == "operator (add_organiser)"
    assert entry.subject == user.username
    call_command("rescore", "--challenge", world.phase.challenge.slug)
    (entry,) = _entries(world, "rescored")
    assert entry.actor_name == "operator (rescore)" and len(entry.after["submissions"]) == 5


def test_organisers_read_the_log_on_the_dashboard_the_api_and_the_archive(world, client):
    close(world.phase)
    reveal(world.phase, world.organiser)
    log_in(client, world.organiser)
    page = client.get(reverse("challenges:organise", args=[world.phase.challenge.slug])).text
    assert "Audit log" in page and "private leaderboard revealed" in page
    api = token_client(world.organiser).get(reverse("api:organise-audit", args=[world.phase.pk]))
    assert api.status_code == 200
    (found,) = [e for e in api.json()["entries"] if e["action"] == "revealed"]
    assert found["actor"] == world.organiser.username and found["after"] == {"snapshot": 1}
    archive = token_client(world.organiser).get(
        reverse("api:organise-archive", args=[world.phase.pk])
    )
    assert any(e["action"] == "revealed" for e in archive.json()["audit"])
    # nobody else: a participant, an outsider, anyone without a token
    for user in (world.teams["A"].created_by, world.outsider, None):
        response = token_client(user).get(reverse("api:organise-audit", args=[world.phase.pk]))
        assert response.status_code in (401, 404)
    log_in(client, world.outsider)
    dashboard = client.get(reverse("challenges:organise", args=[world.phase.challenge.slug]))
    assert dashboard.status_code == 404


def test_a_rescore_against_the_same_reference_keeps_the_earlier_result(world, client):
    from leaderboard.submissions import services
    from leaderboard.submissions.models import Result

    run = world.runs["A1"]
    (first,) = Result.objects.filter(submission=run)
    assert services.rescore(run, enqueue=False, actor=world.organiser)
    assert services.run_scoring(run.pk) == "scored"
    rows = list(Result.objects.filter(submission=run).order_by("scoring"))
    assert [(r.pk, r.scoring, r.current) for r in rows] == [
        (first.pk, 0, False),
        (rows[1].pk, 1, True),
    ]
    # same reference, same signature, same figures: a second row all the same
    assert rows[1].reference_id == first.reference_id and rows[1].signature == first.signature
    assert rows[1].primary == first.primary
    (entry,) = _entries(world, "rescored")
    assert entry.subject == f"submission {run.pk}" and entry.actor == world.organiser
    # the submission's history lists both scorings (here to the organiser: the phase's
    # results are hidden from the team until the reveal)
    log_in(client, world.organiser)
    page = client.get(reverse("submissions:detail", args=[run.pk])).text
    assert page.count(first.signature) >= 2
