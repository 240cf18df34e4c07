"""Disqualify, never delete: the superuser organiser of the organisers' guide withdraws a run or
disqualifies a team from a phase; it leaves the public board, the CSV, the API and the next
snapshot, keeps its files and Results, is in the audit log, and undoing it brings it back.
The admin deletes no scored submission, no Result and no team with results, superusers
included; only the operator's recorded ``erase`` command does.

The world is ``construction``'s (numbers by hand): public board A 100 (A1), B 75 (B2), C 25
(C1); private board B 85.71 (B1), C 42.86 (C1), A 14.29 (A1)."""

from __future__ import annotations

import csv
import io

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from leaderboard.challenges.audit import AuditEntry
from leaderboard.challenges.models import Phase
from leaderboard.rankings.snapshots import reveal
from leaderboard.submissions import services
from leaderboard.submissions.models import Result, Submission, SubmissionFile, Withdrawal
from leaderboard.teams.models import Team
from tests.leaderboard.api.conftest import token_client
from tests.leaderboard.boards import built, leaderboard
from tests.leaderboard.factories import UserFactory, upload, with_second_factor
from tests.leaderboard.organiser import construction as c
from tests.leaderboard.organiser.conftest import KEY, close
from tests.leaderboard.web import log_in

pytestmark = pytest.mark.django_db


@pytest.fixture
def root(world):
    """The guide's organiser: a superuser listed among the challenge's organisers."""
    user = with_second_factor(UserFactory(is_staff=True, is_superuser=True, username="organiser"))
    world.phase.challenge.organisers.add(with_second_factor(user))
    return user


def _public(world):
    Phase.objects.filter(pk=world.phase.pk).update(results_visibility=Phase.Visibility.PUBLIC)
    Phase.changed(world.phase.pk)
    world.phase = built(world.phase)


def _page_url(world):
    return reverse("challenges:withdrawals", args=[world.phase.challenge.slug, world.phase.slug])


def _methods(world, part="public"):
    (board,) = leaderboard(world.phase, part).conditions
    return [(row.method_name, round(row.cells[0][0], 2)) for row in board.rows]


def _csv_methods(client, world):
    url = reverse("rankings:export-csv", args=[world.phase.challenge.slug, world.phase.slug])
    lines = csv.DictReader(io.StringIO(client.get(url).text))
    return [line["method"] for line in lines if line["condition"] == KEY and not line["statistic"]]


def test_a_disqualified_team_leaves_board_csv_api_and_next_snapshot_and_comes_back(
    world, root, client
):
    _public(world)
    assert _methods(world) == [("run A1", 100.0), ("run B2", 75.0), ("run C1", 25.0)]
    log_in(client, root)
    team = world.teams["B"]
    response = client.post(
        _page_url(world),
        {"team": team.pk, "reason": "Used the test references to train.", "public": "on"},
    )
    assert response.status_code == 302
    # the boards are built again after the change, as the board's worker does
    assert _methods(world) == [("run A1", 100.0), ("run C1", 25.0)]
    client.logout()
    assert _csv_methods(client, world) == ["run A1", "run C1"]
    api = client.get(reverse("api:leaderboard", args=[world.phase.pk]), {"condition": KEY}).json()
    assert [row["method_name"] for row in api["results"]] == ["run A1", "run C1"]
    assert api["withdrawn"] == [
        {"team": team.name, "method": "", "reason": "Used the test references to train."}
    ]
    page = client.get(
        reverse("rankings:leaderboard", args=[world.phase.challenge.slug, world.phase.slug])
    ).text
    assert "Withdrawn by the organisers" in page and "Used the test references to train." in page
    # kept: every run, file and Result of B
    runs = Submission.objects.filter(team=team)
    assert runs.count() == 2 and all(r.status == "scored" for r in runs)
    assert SubmissionFile.objects.filter(submission__team=team).count() == 2
    assert Result.objects.filter(submission__team=team, current=True).count() == 2
    (entry,) = AuditEntry.objects.filter(action="withdrawn")
    assert entry.actor == root and entry.subject == f"{team.name} (every run)"
    assert entry.after == {"reason": "Used the test references to train.", "public": True}
    # the next snapshot: B (85.71 with B1 on the private part) is not in it
    close(world.phase)
    reveal(world.phase, root)
    snapshot = client.get(
        reverse("rankings:snapshot", args=[world.phase.challenge.slug, world.phase.slug, 1])
    ).text
    ranking, note = snapshot.split('id="withdrawn-heading"')
    assert "run B1" not in ranking and "run B2" not in ranking and team.name not in ranking
    assert "run C1" in ranking and "run A1" in ranking and team.name in note
    # undone: B is back on the boards built after it, at its own numbers
    log_in(client, root)
    (withdrawal,) = Withdrawal.objects.all()
    assert client.post(_page_url(world), {"reinstate": withdrawal.pk}).status_code == 302
    assert _methods(world) == [("run A1", 100.0), ("run B2", 75.0), ("run C1", 25.0)]
    assert [round(r.means[0], 2) for r in leaderboard(world.phase, "private").overview] == [
        85.71,
        42.86,
        14.29,
    ]
    (undone,) = AuditEntry.objects.filter(action="reinstated")
    assert undone.before == {"reason": "Used the test references to train.", "public": True}


def test_a_withdrawn_run_leaves_alone_and_its_team_sees_why(world, root, client):
    _public(world)
    run = world.runs["B2"]
    log_in(client, root)
    url = _page_url(world)
    form = client.get(f"{url}?team={run.team_id}&submission={run.pk}").text
    assert f'value="{run.pk}"' in form  # the run's page links here with the form filled
    response = client.post(url, {"team": run.team_id, "submission": run.pk, "reason": "Late."})
    assert response.status_code == 302
    # B's other run (B1, 50 on the public part) now stands for B
    assert _methods(world) == [("run A1", 100.0), ("run B1", 50.0), ("run C1", 25.0)]
    # not public: no note on the board
    assert leaderboard(world.phase).withdrawn == ()
    member = world.teams["B"].created_by
    log_in(client, member)
    page = client.get(reverse("submissions:detail", args=[run.pk])).text
    assert "Withdrawn by the organisers" in page and "Late." in page
    data = token_client(member).get(reverse("api:submission", args=[run.pk])).json()
    assert data["withdrawn"]["reason"] == "Late." and data["withdrawn"]["whole_team"] is False


def test_the_withdrawal_form_says_what_is_wrong(world, root, client):
    log_in(client, root)
    url = _page_url(world)
    other = world.runs["A1"]
    response = client.post(
        url, {"team": world.teams["B"].pk, "submission": other.pk, "reason": "x"}
    )
    assert response.status_code == 400
    assert f"{world.teams['B'].name} has no submission {other.pk} in" in response.text
    response = client.post(url, {"team": world.teams["B"].pk, "reason": "   "})
    assert response.status_code == 400 and "This field is required" in response.text
    assert not Withdrawal.objects.exists() and not AuditEntry.objects.filter(action="withdrawn")
    # only the challenge's organisers reach the page
    log_in(client, world.outsider)
    assert client.get(url).status_code == 404
    assert client.post(url, {"team": world.teams["B"].pk, "reason": "x"}).status_code == 404


def test_a_disqualified_team_cannot_upload_and_is_not_charged(world, root):
    team = world.teams["C"]
    from leaderboard.submissions.services.withdrawal import withdraw

    withdraw(world.phase, team, reason="Two accounts.", actor=root)
    before = Submission.objects.filter(team=team).count()
    with pytest.raises(services.SubmissionNotAllowed, match=r"disqualified .* Two accounts"):
        services.submit(
            team=team,
            phase=world.phase,
            user=team.created_by,
            files={KEY: upload(c.prediction(4, 7), "late.json")},
            method_name="late",
            enqueue=False,
        )
    assert Submission.objects.filter(team=team).count() == before


def test_the_admin_deletes_no_scored_run_result_or_team_with_results(world, root, client):
    log_in(client, root)
    run = world.runs["A1"]
    result = Result.objects.filter(submission=run).first()
    team = world.teams["A"]
    for url in (
        reverse("admin:submissions_submission_delete", args=[run.pk]),
        reverse("admin:teams_team_delete", args=[team.pk]),
        reverse("admin:challenges_challenge_delete", args=[world.phase.challenge.pk]),
        reverse("admin:challenges_phase_delete", args=[world.phase.pk]),
    ):
        page = client.get(url)
        assert page.status_code == 200 and "Cannot delete" in page.text, url
        client.post(url, {"post": "yes"})
    assert (
        client.get(reverse("admin:submissions_result_delete", args=[result.pk])).status_code == 403
    )
    # the bulk action refuses too
    client.post(
        reverse("admin:submissions_submission_changelist"),
        {"action": "delete_selected", "_selected_action": [run.pk], "post": "yes"},
    )
    assert (
        Submission.objects.filter(pk=run.pk).exists() and Team.objects.filter(pk=team.pk).exists()
    )
    assert Result.objects.filter(pk=result.pk).exists()
    assert Phase.objects.filter(pk=world.phase.pk).exists()
    assert not AuditEntry.objects.filter(action="admin-deleted").exists()


def test_the_operator_erases_a_run_for_good_and_it_is_recorded(
    world, django_capture_on_commit_callbacks
):
    run = world.runs["C2"]
    stored = run.files.get().file.name
    with pytest.raises(CommandError, match="reason"):
        call_command("erase", "--submission", str(run.pk), "--reason", " ")
    out = io.StringIO()
    with django_capture_on_commit_callbacks(execute=True):
        call_command(
            "erase", "--submission", str(run.pk), "--reason", "Erasure request 12.", stdout=out
        )
    assert "Erased submissions" in out.getvalue()
    assert not Submission.objects.filter(pk=run.pk).exists()
    assert not Result.objects.filter(submission_id=run.pk).exists()
    from leaderboard.storage import private_storage

    assert not private_storage().exists(stored)
    (entry,) = AuditEntry.objects.filter(action="erased")
    assert entry.actor_name == "operator (erase)" and entry.after == {
        "reason": "Erasure request 12."
    }
    assert entry.before == {"results": 1, "files": 1} and entry.phase_id == world.phase.pk
    with pytest.raises(CommandError, match=f"no submission {run.pk}"):
        call_command("erase", "--submission", str(run.pk), "--reason", "again")
