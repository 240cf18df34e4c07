"""The whole lifecycle of a hidden, split phase: open, three teams submit, final selections,
close, reveal; the private ranking differs from the public one as constructed, and the
published snapshot does not move after a later re-score."""

from __future__ import annotations

import json
import re
from dataclasses import replace

import pytest
from django.urls import reverse

from leaderboard.challenges.services import add_reference
from leaderboard.rankings.compute import compute
from leaderboard.rankings.models import ImmutableError, Snapshot
from leaderboard.rankings.serialised import expanded
from leaderboard.rankings.snapshots import load, reveal
from leaderboard.submissions import services
from leaderboard.submissions.models import Result, Submission
from leaderboard.submissions.services import SelectionError, select_final
from tests.leaderboard.boards import built, leaderboard
from tests.leaderboard.factories import upload
from tests.leaderboard.organiser import construction as c
from tests.leaderboard.organiser.conftest import KEY, close
from tests.leaderboard.web import figures, log_in

pytestmark = pytest.mark.django_db


def _jga(board, row) -> float:
    """The row's JGA on ``board`` (a Leaderboard, or a snapshot's data)."""
    columns = board["columns"] if isinstance(board, dict) else board.columns
    names = [c["name"] if isinstance(c, dict) else c.name for c in columns]
    cells = row["cells"] if isinstance(row, dict) else row.cells
    return cells[names.index("jga")][0]


def _ranking(board):
    (condition,) = board.conditions
    return [(r.rank, r.method_name, round(_jga(board, r), 2)) for r in condition.rows]


def test_public_and_private_subset_columns_are_the_hand_worked_ratios(world):
    for name, (public, private) in c.RUNS.items():
        result = Result.objects.get(submission=world.runs[name], current=True)
        public_metrics, _ = result.part("public")
        private_metrics, _ = result.part("private")
        assert public_metrics["jga"] == pytest.approx(100 * public / 4)
        assert private_metrics["jga"] == pytest.approx(100 * private / 7)
        assert result.metrics["jga"] == pytest.approx(100 * (public + private) / 11)
        # one gold slot per turn, every wrong turn one substitution
        assert private_metrics["ser"] == pytest.approx(100 * (7 - private) / 7)
        # the typed ranking columns hold the same numbers (JGA ranks, SER breaks ties)
        assert result.public_primary == pytest.approx(100 * public / 4)
        assert result.private_primary == pytest.approx(100 * private / 7)
        assert result.primary == pytest.approx(100 * (public + private) / 11)
        assert result.private_tiebreak == pytest.approx(100 * (7 - private) / 7)


def test_the_whole_lifecycle(world, client, django_capture_on_commit_callbacks, enqueued):
    phase = world.phase
    assert phase.state == "open"
    # Open: the public board ranks each team's best public run.
    assert _ranking(compute(phase, "public")) == [
        (1, "run A1", 100.0),
        (2, "run B2", 75.0),
        (3, "run C1", 25.0),
    ]
    # Closed: no upload is accepted, through the service or the API.
    close(phase)
    assert phase.state == "closed"
    with pytest.raises(services.SubmissionNotAllowed):
        services.submit(
            team=world.teams["A"], phase=phase, user=world.teams["A"].created_by,
            files={KEY: upload(c.prediction(4, 7))}, method_name="late", enqueue=False,
        )  # fmt: skip
    log_in(client, world.teams["A"].created_by)
    api = client.post(
        f"/api/v1/phases/{phase.pk}/submissions/",
        {"method_name": "late", KEY: upload(c.prediction(4, 7))},
    )
    assert api.status_code == 403 and api.json()["error"]["code"] == "submission_not_allowed"
    # Reveal by the organiser's button.
    log_in(client, world.organiser)
    with django_capture_on_commit_callbacks(execute=True):
        response = _reveal(client, phase)
    assert response.status_code == 302
    phase.refresh_from_db()
    assert phase.state == "revealed"
    snapshot = phase.snapshots.get()
    private = [
        (r["rank"], r["method_name"], round(_jga(expanded(snapshot.data), r), 2))
        for r in expanded(snapshot.data)["conditions"][0]["rows"]
    ]
    # B's selection (B1, not its best public B2) and C's default (best public C1, not C2).
    assert private == [(1, "run B1", 85.71), (2, "run C1", 42.86), (3, "run A1", 14.29)]
    page = client.get(reverse("rankings:snapshot", args=[phase.challenge.slug, phase.slug, 1]))
    before = page.content.decode()
    for value in ("85.71", "42.86", "14.29"):
        assert value in before

    # A later re-score (a new reference version: every private turn's gold changes to a
    # value nobody predicted) changes the live rows but not the snapshot.
    changed = c.gold()
    for d in c.PRIVATE_IDS:
        changed[d] = [{"hotel": {"area": "west"}} for _ in changed[d]]
    condition = phase.conditions.get()
    with django_capture_on_commit_callbacks(execute=True):
        # as the admin's upload does: the new version, then every scored run of it re-queued
        add_reference(condition, json.dumps(changed).encode(), "v2.json")
        services.rescore_all(condition=condition)
    assert sorted(enqueued) == sorted(s.pk for s in world.runs.values())
    for pk in enqueued:
        assert services.run_scoring(pk) == "scored"
    phase = built(phase)  # as the board's worker builds the boards after the re-scores
    board = compute(phase, "private")
    assert _jga(board, board.conditions[0].rows[0]) == 0.0
    snapshot.refresh_from_db()
    rows = snapshot.data["conditions"][0]["rows"]
    assert [_jga(snapshot.data, r) for r in rows] == pytest.approx([600 / 7, 300 / 7, 100 / 7])
    after = client.get(reverse("rankings:snapshot", args=[phase.challenge.slug, phase.slug, 1]))
    assert figures(after.content.decode()).count("85.71") == figures(before).count("85.71")
    with pytest.raises(ImmutableError):
        snapshot.save()
    # A new snapshot can be published; the history lists both.
    with django_capture_on_commit_callbacks(execute=True):
        _reveal(client, phase)
    assert list(phase.snapshots.values_list("number", flat=True)) == [2, 1]
    history = client.get(reverse("rankings:snapshots", args=[phase.challenge.slug, phase.slug]))
    assert "Snapshot 1" in history.text and "Snapshot 2" in history.text


def _reveal(client, phase):
    """The organiser's way: the preview page, then its publish button."""
    url = reverse("rankings:reveal", args=[phase.challenge.slug, phase.slug])
    found = re.search(r'name="fingerprint" value="([0-9a-f]{64})"', client.get(url).text)
    return client.post(url, {"fingerprint": found.group(1)})


def test_a_team_cannot_select_more_than_its_allowance(world):
    with pytest.raises(SelectionError):
        select_final(world.runs["B2"], world.teams["B"].created_by, True)
    with pytest.raises(SelectionError):
        select_final(world.runs["A1"], world.teams["B"].created_by, True)  # not B's run
    assert not Submission.objects.get(pk=world.runs["B2"].pk).selected_for_final


def test_reveal_is_refused_while_the_phase_is_open_and_to_non_organisers(world, client):
    log_in(client, world.organiser)
    url = reverse("rankings:reveal", args=[world.phase.challenge.slug, world.phase.slug])
    client.post(url, {"fingerprint": "0" * 64})
    assert not world.phase.snapshots.exists()
    close(world.phase)
    log_in(client, world.teams["A"].created_by)
    response = client.post(
        reverse("rankings:reveal", args=[world.phase.challenge.slug, world.phase.slug])
    )
    assert response.status_code == 404 and not world.phase.snapshots.exists()
    assert leaderboard(world.phase, "public").conditions[0].rows


def test_a_published_snapshot_loads_back_as_the_board_it_froze(world):
    close(world.phase)
    snapshot = reveal(world.phase, world.organiser)
    frozen = compute(world.phase, "private")
    loaded = load(Snapshot.objects.get(pk=snapshot.pk))
    # everything but what a snapshot does not keep: the live version and reported figures
    assert loaded == replace(frozen, version="", reported=())
    assert loaded.columns[0].name == "jga" and loaded.columns[0].primary
    assert [r.method_name for r in loaded.overview] == ["run B1", "run C1", "run A1"]
    assert [round(r.means[0], 2) for r in loaded.overview] == [85.71, 42.86, 14.29]
