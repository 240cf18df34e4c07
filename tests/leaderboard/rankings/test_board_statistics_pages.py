"""The boards' statistics where a board cannot have them: a snapshot published before they
existed (serialised format 1) still loads and shows none; a final ranking without a split
says why it has no shake-up (page, API); a board of one entry has no detectable difference
and says nothing about it. The hand-worked gold of ``tests.leaderboard.web``: every team
here scores JGA 75.00 on its four turns."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from django.urls import reverse
from django.utils import timezone

from leaderboard.challenges.models import Phase
from leaderboard.rankings.resampled import IDENTICAL
from leaderboard.rankings.serialised import expanded
from leaderboard.rankings.shakeup import NO_SPLIT
from leaderboard.rankings.snapshots import reveal
from tests.leaderboard.boards import built, leaderboard
from tests.leaderboard.factories import (
    UserFactory,
    approved_team,
    phase_with_references,
    with_second_factor,
)
from tests.leaderboard.web import GOLD_BYTES, scored_submission

pytestmark = pytest.mark.django_db


def _revealed(phase: Phase) -> tuple[Phase, object]:
    organiser = UserFactory()
    phase.challenge.organisers.add(with_second_factor(organiser))
    now = timezone.now()
    Phase.objects.filter(pk=phase.pk).update(
        opens_at=now - dt.timedelta(days=3), closes_at=now - dt.timedelta(minutes=1)
    )
    phase = built(Phase.objects.select_related("challenge").get(pk=phase.pk))
    snapshot = reveal(phase, organiser)
    return built(phase), snapshot


def test_a_final_ranking_without_a_split_says_why_it_has_no_shake_up(client):
    phase = phase_with_references(GOLD_BYTES, results_visibility=Phase.Visibility.HIDDEN)
    for method in ("one", "two"):
        scored_submission(approved_team(phase), phase, method=method)
    phase, snapshot = _revealed(phase)
    board = leaderboard(phase, "private")
    assert board.shakeups == () and board.shakeup_note == NO_SPLIT
    page = client.get(
        reverse("rankings:snapshot", args=[phase.challenge.slug, phase.slug, snapshot.number])
    ).text
    assert "No shake-up: this phase has no public/private split" in page
    assert 'id="shakeup-table"' not in page and "chart-shakeup" not in page
    answer = client.get(f"/api/v1/phases/{phase.pk}/shakeup/").json()
    assert answer["rankings"] == [] and answer["note"] == NO_SPLIT
    # identical entries: one interval covering both ranks, on every board
    for part in ("public", "private"):
        rows = leaderboard(phase, part).conditions[0].rows
        assert [(r.rank_low, r.rank_high) for r in rows] == [(1, 2), (1, 2)]
        # two identical entries tell nothing of the variance: no detectable difference
        condition = leaderboard(phase, part).conditions[0]
        assert condition.detectable is None and condition.detectable_note == IDENTICAL


def test_a_board_of_one_entry_has_an_interval_but_no_detectable_difference(client):
    phase = phase_with_references(GOLD_BYTES)
    scored_submission(approved_team(phase), phase)
    (condition, *_) = leaderboard(phase).conditions
    ((low, high),) = [(r.rank_low, r.rank_high) for r in condition.rows]
    assert (low, high) == (1, 1)
    assert condition.detectable is None and condition.detectable_note == ""
    page = client.get(reverse("rankings:leaderboard", args=[phase.challenge.slug, phase.slug]))
    assert "not resolvable" not in page.text and "No detectable difference" not in page.text


def test_a_snapshot_published_before_the_statistics_still_loads_and_shows_none(client):
    phase = phase_with_references(
        GOLD_BYTES, results_visibility=Phase.Visibility.HIDDEN, split_fraction=0.5, split_seed=3
    )
    for method in ("one", "two"):
        scored_submission(approved_team(phase), phase, method=method)
    phase, snapshot = _revealed(phase)
    assert snapshot.data["format"] == 4  # the form boards are stored in now
    # its rows with their entries' facts, as formats 1 and 2 stored them
    data = expanded(json.loads(json.dumps(snapshot.data)))
    # as format 1 stored it: no rank intervals, no detectable difference, no shake-up, and a
    # count of every submission that was not refused or cancelled
    data["format"] = 1
    for key in ("shakeups", "shakeup_note", "ladder"):
        data.pop(key)
    for condition in data["conditions"]:
        condition.pop("detectable")
        condition.pop("detectable_note")
        for row in condition["rows"]:
            row.pop("rank_low")
            row.pop("rank_high")
            row["submissions"] = 7
    for row in data["overview"]:
        row.pop("rank_low")
        row.pop("rank_high")
        row["submissions"] = 7
    # (a snapshot is immutable through the model: the old row is written as it was stored)
    type(snapshot).objects.filter(pk=snapshot.pk).update(data=data)
    page = client.get(
        reverse("rankings:snapshot", args=[phase.challenge.slug, phase.slug, snapshot.number])
    ).text
    assert page.count("<tr") > 2 and "one" in page
    assert 'class="rank-ci"' not in page and " scored</span>" not in page
    assert "Shake-up" not in page and "not resolvable" not in page
    answer = client.get(f"/api/v1/phases/{phase.pk}/shakeup/").json()
    assert answer["rankings"] == [] and answer["note"] == ""
