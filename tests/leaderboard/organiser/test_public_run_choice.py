"""Where the phase lets teams choose (``Phase.team_chooses_public_run``), a team marks the run
its public board rows show instead of its best; the private board is unaffected.

The world is ``construction``'s (numbers by hand): public board A 100 (A1), B 75 (B2 best; B1
50), C 25 (C1); private board B 85.71 (B1), C 42.86 (C1), A 14.29 (A1). Its results are made
public here, so the boards are what a reader sees."""

from __future__ import annotations

import pytest
from django.urls import reverse

from leaderboard.challenges.admin import PhaseForm
from leaderboard.challenges.audit import AuditEntry
from leaderboard.challenges.config import create_challenge, load_config
from leaderboard.challenges.models import Phase
from leaderboard.submissions import services
from leaderboard.submissions.models import Submission
from leaderboard.submissions.services.withdrawal import withdraw
from tests.leaderboard.api.conftest import token_client
from tests.leaderboard.boards import built, leaderboard
from tests.leaderboard.organiser.conftest import KEY, close
from tests.leaderboard.organiser.test_create_challenge import PHASES, _config
from tests.leaderboard.web import log_in

pytestmark = pytest.mark.django_db

BEST = [("run A1", 100.0), ("run B2", 75.0), ("run C1", 25.0)]
B1_CHOSEN = [("run A1", 100.0), ("run B1", 50.0), ("run C1", 25.0)]


def _setting(world, on: bool) -> None:
    Phase.objects.filter(pk=world.phase.pk).update(
        results_visibility=Phase.Visibility.PUBLIC, team_chooses_public_run=on
    )
    Phase.changed(world.phase.pk)
    world.phase = built(world.phase)
    for run in world.runs.values():
        run.refresh_from_db()  # with the phase as it is now


def _rows(world, part="public"):
    board = leaderboard(world.phase, part)
    (condition,) = board.conditions
    rows = [(row.method_name, round(row.cells[0][0], 2)) for row in condition.rows]
    overview = [(row.method_name, round(row.means[0], 2)) for row in board.overview]
    assert overview == rows  # one condition: the overview ranks the same runs
    return rows


def _choose(client, run, chosen: bool):
    return client.post(
        reverse("submissions:public", args=[run.pk]), {"chosen": "1" if chosen else "0"}
    )


@pytest.fixture
def on(world):
    _setting(world, True)
    return world


def test_a_chosen_run_represents_its_team_until_unchosen(on, client):
    world = on
    member = world.teams["B"].created_by
    log_in(client, member)
    assert _rows(world) == BEST
    page = client.get(reverse("submissions:detail", args=[world.runs["B1"].pk])).text
    assert "Show this run on the public leaderboard" in page
    assert "each team chooses which of its scored runs represents it" in page

    response = _choose(client, world.runs["B1"], True)
    assert response.status_code == 302
    world.phase = built(world.phase)  # as the board's worker builds it after the change
    assert _rows(world) == B1_CHOSEN
    (row,) = [r for r in leaderboard(world.phase).conditions[0].rows if r.method_name == "run B1"]
    assert (row.rank, row.submission_id, row.submissions) == (2, world.runs["B1"].pk, 2)
    # the private board (final selections) is not affected
    assert _rows(world, "private") == [("run B1", 85.71), ("run C1", 42.86), ("run A1", 14.29)]
    page = client.get(reverse("submissions:detail", args=[world.runs["B1"].pk])).text
    assert "chosen for the public leaderboard" in page
    assert "Stop showing on the public leaderboard" in page

    # choosing another replaces the choice: one chosen run per team and phase
    _choose(client, world.runs["B2"], True)
    chosen = Submission.objects.filter(team=world.teams["B"], shown_on_public=True)
    assert list(chosen.values_list("pk", flat=True)) == [world.runs["B2"].pk]
    _choose(client, world.runs["B2"], False)
    assert not Submission.objects.filter(team=world.teams["B"], shown_on_public=True).exists()
    world.phase = built(world.phase)
    assert _rows(world) == BEST


def test_each_change_is_in_the_audit_log_and_a_change_of_nothing_is_not(on):
    world = on
    member = world.teams["B"].created_by
    b1, b2 = world.runs["B1"], world.runs["B2"]
    version = Phase.objects.get(pk=world.phase.pk).board_version
    services.choose_public(b1, member, True)
    services.choose_public(b1, member, True)  # already so
    services.choose_public(b2, member, False)  # not the chosen one: nothing to take back
    assert Phase.objects.get(pk=world.phase.pk).board_version == version + 1
    services.choose_public(b2, member, True)
    services.choose_public(b2, member, False)
    entries = AuditEntry.objects.filter(action="public-run").order_by("at", "pk")
    assert [(e.actor, e.before, e.after) for e in entries] == [
        (member, {"shown": None}, {"shown": b1.pk}),
        (member, {"shown": b1.pk}, {"shown": b2.pk}),
        (member, {"shown": b2.pk}, {"shown": None}),
    ]
    assert entries[0].subject == f"{world.teams['B'].name}: submission {b1.pk}"
    assert entries[0].phase_id == world.phase.pk
    assert Phase.objects.get(pk=world.phase.pk).board_version == version + 3


def test_with_the_setting_off_choosing_is_refused_and_says_why(world, client):
    _setting(world, False)
    member = world.teams["B"].created_by
    log_in(client, member)
    page = client.get(reverse("submissions:detail", args=[world.runs["B1"].pk])).text
    assert "Show this run on the public leaderboard" not in page
    response = _choose(client, world.runs["B1"], True)
    assert response.status_code == 302
    page = client.get(response.url).text
    assert "does not let teams choose their public run" in page
    api = token_client(member).patch(
        reverse("api:submission", args=[world.runs["B1"].pk]),
        {"shown_on_public": True},
        format="json",
    )
    assert api.status_code == 403
    assert api.json()["error"]["code"] == "not_choosable"
    assert "does not let teams choose their public run" in api.json()["error"]["message"]
    assert not Submission.objects.filter(shown_on_public=True).exists()
    assert not AuditEntry.objects.filter(action="public-run").exists()
    # a choice left from when it was on is ignored once the organisers turn it off
    Submission.objects.filter(pk=world.runs["B1"].pk).update(shown_on_public=True)
    Phase.changed(world.phase.pk)
    world.phase = built(world.phase)
    assert _rows(world) == BEST


def test_only_a_member_of_the_team_chooses(on, client):
    world = on
    other = world.teams["A"].created_by
    log_in(client, other)
    assert _choose(client, world.runs["B1"], True).status_code == 404
    api = token_client(other).patch(
        reverse("api:submission", args=[world.runs["B1"].pk]),
        {"shown_on_public": True},
        format="json",
    )
    assert api.status_code == 404
    client.logout()
    log_in(client, world.outsider)
    assert _choose(client, world.runs["B1"], True).status_code == 404
    with pytest.raises(services.SelectionError, match="Only a member of the team"):
        services.choose_public(world.runs["B1"], world.organiser, True)
    assert not Submission.objects.filter(shown_on_public=True).exists()


def test_a_withdrawn_chosen_run_falls_back_to_the_best(on, world):
    services.choose_public(world.runs["B2"], world.teams["B"].created_by, False)
    services.choose_public(world.runs["B1"], world.teams["B"].created_by, True)
    world.phase = built(world.phase)
    assert _rows(world) == B1_CHOSEN
    withdraw(world.phase, world.teams["B"], reason="Trained on the test set.",
             submission=world.runs["B1"], actor=world.organiser)  # fmt: skip
    world.phase = built(world.phase)
    assert _rows(world) == BEST


def test_a_failed_chosen_run_falls_back_to_the_best(on):
    world = on
    services.choose_public(world.runs["B1"], world.teams["B"].created_by, True)
    # its scoring failed after an organiser queued it again; its stored Results are kept
    Submission.objects.filter(pk=world.runs["B1"].pk).update(status=Submission.Status.FAILED)
    Phase.changed(world.phase.pk)
    world.phase = built(world.phase)
    assert [name for name, _ in _rows(world)] == ["run A1", "run B2", "run C1"]


def test_the_api_chooses_as_the_page_does_and_shows_the_same_board(on, client):
    world = on
    member = world.teams["B"].created_by
    api = token_client(member)
    url = reverse("api:submission", args=[world.runs["B1"].pk])
    answer = api.patch(url, {"shown_on_public": True}, format="json")
    assert answer.status_code == 200
    assert answer.json()["shown_on_public"] is True
    assert answer.json()["method_name"] == "run B1"  # the method is untouched
    world.phase = built(world.phase)
    board = client.get(reverse("api:leaderboard", args=[world.phase.pk]), {"condition": KEY})
    assert [row["method_name"] for row in board.json()["results"]] == [
        name for name, _ in B1_CHOSEN
    ]
    assert [row["method_name"] for row in board.json()["results"]] == [
        row.method_name for row in leaderboard(world.phase).conditions[0].rows
    ]
    page = client.get(
        reverse("rankings:leaderboard", args=[world.phase.challenge.slug, world.phase.slug])
    ).text
    assert "run B1" in page and "run B2" not in page
    assert api.patch(url, {"shown_on_public": False}, format="json").json()["shown_on_public"] is (
        False
    )
    challenge = api.get(reverse("api:challenge", args=[world.phase.challenge.slug])).json()
    assert [p["team_chooses_public_run"] for p in challenge["phases"]] == [True]


def test_the_challenge_page_states_the_rule_only_where_it_applies(world, client):
    url = reverse("challenges:detail", args=[world.phase.challenge.slug])
    assert "represents it on the public leaderboard" not in client.get(url).text
    _setting(world, True)
    page = client.get(url).text
    assert f'id="public-run-rule-{world.phase.slug}"' in page
    assert "each team chooses which of its scored runs represents it" in page


def test_a_baseline_or_an_unscored_run_cannot_be_chosen(on):
    world = on
    member = world.teams["B"].created_by
    Submission.objects.filter(pk=world.runs["B1"].pk).update(is_baseline=True)
    world.runs["B1"].refresh_from_db()
    with pytest.raises(services.SelectionError, match="baseline"):
        services.choose_public(world.runs["B1"], member, True)
    Submission.objects.filter(pk=world.runs["B2"].pk).update(status=Submission.Status.FAILED)
    world.runs["B2"].refresh_from_db()
    with pytest.raises(services.SelectionError, match="Only a scored run"):
        services.choose_public(world.runs["B2"], member, True)


def test_once_revealed_the_choice_is_closed(on):
    world = on
    close(world.phase)
    Phase.objects.filter(pk=world.phase.pk).update(revealed=True)
    world.phase.refresh_from_db()
    with pytest.raises(services.SelectionError, match="published"):
        services.choose_public(world.runs["B1"], world.teams["B"].created_by, True)


def test_the_config_file_turns_it_on(tmp_path):
    path = _config(tmp_path, {}, [{**PHASES[0], "team_chooses_public_run": True}])
    create_challenge(load_config(path), tmp_path)
    assert list(Phase.objects.values_list("team_chooses_public_run", flat=True)) == [True]
    path = _config(tmp_path, {"slug": "other"}, [PHASES[0]])
    create_challenge(load_config(path), tmp_path)
    assert Phase.objects.get(challenge__slug="other").team_chooses_public_run is False


def _form_data(phase, **changes):
    data = {
        f.name: getattr(phase, f.name)
        for f in phase._meta.concrete_fields
        if f.editable and not f.primary_key
    }
    data.update(challenge=phase.challenge_id, **changes)
    return data


def test_the_admin_refuses_it_with_the_ladder_and_once_revealed(world):
    phase = world.phase
    form = PhaseForm(
        data=_form_data(phase, ladder=True, team_chooses_public_run=True), instance=phase
    )
    assert not form.is_valid()
    assert "the Ladder decides which run represents a team" in str(
        form.errors["team_chooses_public_run"]
    )
    phase.refresh_from_db()  # the refused form's values were set on the instance
    on = _form_data(phase, team_chooses_public_run=True)
    form = PhaseForm(data=on, instance=phase)
    assert form.is_valid(), form.errors
    close(phase)
    Phase.objects.filter(pk=phase.pk).update(revealed=True)
    phase.refresh_from_db()
    form = PhaseForm(data=_form_data(phase, team_chooses_public_run=True), instance=phase)
    assert not form.is_valid()
    assert "whether teams choose their public run is fixed" in str(
        form.errors["team_chooses_public_run"]
    )
