"""The demo leaderboard's charts: three chart kinds with intervals for every team, baselines
marked, the robustness chart ordered by the condition gap, and names reaching Plotly escaped."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from leaderboard.challenges import demo
from leaderboard.challenges.models import Phase
from leaderboard.rankings.services import leaderboard
from leaderboard.teams.models import Team
from tests.leaderboard.factories import KEYS

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo_phase():
    return demo.build().phases.get(slug="test")


def _charts(page: str) -> dict:
    start = page.index('<script id="chart-data" type="application/json">')
    return json.loads(page[start:].split(">", 1)[1].split("</script>", 1)[0])


def test_the_demo_leaderboard_has_bars_with_intervals_lines_and_a_scatter(client, demo_phase):
    page = client.get(reverse("rankings:leaderboard", args=[demo.SLUG, demo_phase.slug])).text
    charts = _charts(page)
    board = leaderboard(demo_phase)
    # a baseline is named by its method too (a team may have several)
    teams = {"Team Alpha", "Team Beta", "Baselines: Whisper + TripPy baseline (baseline)"}
    names = [c.name for c in board.columns]
    for condition in board.conditions:
        for metric in ("jga", "ser"):
            index = names.index(metric)
            assert f'id="chart-{metric}-{condition.key}"' in page
            (bars,) = charts[f"chart-{metric}-{condition.key}"]["data"]
            assert set(bars["y"]) == teams
            # every bar has an interval, and the interval contains the value
            for value, row in zip(bars["x"], condition.rows, strict=True):
                shown, low, high = row.cells[index]
                assert value == shown and low <= value <= high
            assert all(e is not None for e in bars["error_x"]["array"])
            assert all(e is not None for e in bars["error_x"]["arrayminus"])
            baseline = [i for i, y in enumerate(bars["y"]) if "baseline" in y]
            assert [bars["marker"]["pattern"]["shape"][i] for i in baseline] == ["/"]
    lines = charts["chart-robustness"]["data"]
    assert len(lines) == 3 and all(len(line["y"]) == 3 for line in lines)
    # The legend lists the team that loses least first: gap = first - last condition's JGA.
    gaps = sorted(
        (row.per_condition[KEYS[0]][0] - row.per_condition[KEYS[-1]][0], row.team_name)
        for row in board.overview
    )
    assert [line["name"].split(":")[0].removesuffix(" (baseline)") for line in lines] == [
        name for _, name in gaps
    ]
    assert sorted(row.gap for row in board.overview) == [gap for gap, _ in gaps]
    scatter = charts["chart-scatter"]["data"]
    assert [len(t["x"]) for t in scatter] == [3, 3, 3]
    assert all(None not in t["error_x"]["array"] + t["error_y"]["array"] for t in scatter)
    assert "Gap (JGA points)" in page


def test_team_and_method_names_reach_plotly_escaped(client, demo_phase):
    Team.objects.filter(name="Team Alpha").update(name="<img src=x onerror=alert(1)>")
    demo_phase.submissions.filter(team__name__startswith="<img").update(method_name="<b>m</b>")
    # update() sends no signal: mark the boards changed as the admin's save would
    Phase.changed(demo_phase.pk)
    page = client.get(reverse("rankings:leaderboard", args=[demo.SLUG, demo_phase.slug])).text
    assert "<img src=x" not in page and "<b>m</b>" not in page
    charts = json.dumps(_charts(page))
    assert "&lt;img src=x onerror=alert(1)&gt;" in charts
    assert "&lt;b&gt;m&lt;/b&gt;" in charts
    assert "<img" not in charts and "<b>m" not in charts
