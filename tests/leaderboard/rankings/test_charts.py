"""The demo leaderboard's charts: three chart kinds with intervals for every team, baselines
marked, a colour per team whatever its rank, the robustness chart ordered by the change across
the conditions (the overview's sign), and names reaching Plotly escaped."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from leaderboard.challenges.models import Phase
from leaderboard.demo import dstc11
from leaderboard.numbers import score, signed
from leaderboard.plotting import wrap
from leaderboard.rankings.charts import percent_range
from leaderboard.submissions.models import Result
from leaderboard.teams.models import Team
from tests.leaderboard.boards import built, leaderboard
from tests.leaderboard.factories import KEYS

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo_phase():
    """The demo's test phase, its boards built (as the ``demo`` command builds them)."""
    return built(dstc11.build().phases.get(slug="test"))


def _charts(page: str) -> dict:
    start = page.index('<script id="chart-data" type="application/json">')
    return json.loads(page[start:].split(">", 1)[1].split("</script>", 1)[0])


def test_the_demo_leaderboard_has_bars_with_intervals_lines_and_a_scatter(client, demo_phase):
    page = client.get(reverse("rankings:leaderboard", args=[dstc11.SLUG, demo_phase.slug])).text
    charts = _charts(page)
    board = leaderboard(demo_phase)
    # a baseline is named by its method too (a team may have several)
    teams = {"Team Alpha", "Team Beta", "Baselines: Whisper + TripPy baseline"}
    names = [c.name for c in board.columns]
    for condition in board.conditions:
        for metric in ("jga", "ser"):
            index = names.index(metric)
            assert f'id="chart-{metric}-{condition.key}"' in page
            (bars,) = charts[f"chart-{metric}-{condition.key}"]["data"]
            # a long label breaks onto two lines (Plotly's <br>) to leave a phone room for ticks
            assert {y.replace("<br>", " ") for y in bars["y"]} == teams
            # every bar has an interval, and the interval contains the value
            for value, row in zip(bars["x"], condition.rows, strict=True):
                shown, low, high = row.cells[index]
                # to the three decimals the page is sent (the charts show two)
                assert value == round(shown, 3) and round(low, 3) <= value <= round(high, 3)
            assert all(e is not None for e in bars["error_x"]["array"])
            assert all(e is not None for e in bars["error_x"]["arrayminus"])
            baseline = [i for i, y in enumerate(bars["y"]) if "baseline" in y]
            assert [bars["marker"]["pattern"]["shape"][i] for i in baseline] == ["/"]
    lines = charts["chart-robustness"]["data"]
    assert len(lines) == 3 and all(len(line["y"]) == 3 for line in lines)
    # One sign everywhere: change = last condition's JGA minus the first's, in the legend as
    # in the overview's "Change" column; the team that loses least is listed first.
    changes = sorted(
        (
            row.per_condition[KEYS[-1]][0] - row.per_condition[KEYS[0]][0],
            row.team_name,
        )
        for row in board.overview
    )[::-1]
    assert [line["name"].split(":")[0].removesuffix(" (baseline)") for line in lines] == [
        name for _, name in changes
    ]
    for line, (change, _) in zip(lines, changes, strict=True):
        # the synthetic systems lose points on human speech: every change is negative
        assert change < 0 and line["name"].endswith(f": \u2212{abs(change):.2f}")
        cell = f'<td class="num change" data-value="{change:f}">\u2212{abs(change):.2f}</td>'
        assert cell in page
    scatter = charts["chart-scatter"]["data"]
    # one trace per team, one marker per condition, each with both intervals
    # a long legend entry on lines of at most 30 characters (Plotly does not wrap one)
    assert sorted(t["name"].replace("<br>", " ") for t in scatter) == sorted(teams)
    assert all(len(line) <= 30 for t in scatter for line in t["name"].split("<br>"))
    assert [len(t["x"]) for t in scatter] == [3, 3, 3]
    assert all(None not in t["error_x"]["array"] + t["error_y"]["array"] for t in scatter)
    assert [t["marker"]["symbol"] for t in scatter if "baseline" in t["name"]] == [
        ["circle-open", "square-open", "triangle-up-open"]
    ]
    assert "Change (JGA points)" in page
    # the robustness page names the baseline as the charts do, not "baseline (baseline)"
    page = client.get(reverse("rankings:robustness", args=[dstc11.SLUG, demo_phase.slug])).text
    changes_chart = _charts(page)["chart-changes"]["data"]
    assert {y.replace("<br>", " ") for t in changes_chart for y in t["y"]} == teams
    assert '<th scope="row">Baselines: Whisper + TripPy baseline</th>' in page
    assert "(baseline)" not in page and ", baseline)" not in page


def test_a_team_keeps_its_colour_in_every_chart_whatever_its_rank(client, demo_phase):
    def colours():
        page = client.get(reverse("rankings:leaderboard", args=[dstc11.SLUG, demo_phase.slug]))
        charts = _charts(page.text)
        seen: dict[str, set[str]] = {}
        for key, figure in charts.items():
            for trace in figure["data"]:
                if key == "chart-robustness":
                    pairs = [(trace["name"].split(":")[0], trace["line"]["color"])]
                elif key == "chart-scatter":
                    pairs = [(trace["name"], trace["marker"]["color"])]
                elif key.startswith("chart-fact-"):  # a marker per row, named in customdata
                    pairs = [
                        (c[0], m)
                        for c, m in zip(trace["customdata"], trace["marker"]["color"], strict=True)
                    ]
                else:
                    pairs = list(zip(trace["y"], trace["marker"]["color"], strict=True))
                for label, colour in pairs:
                    # a baseline is "team: method (baseline)" ("team: method" if the method says so)
                    seen.setdefault(label.split(":")[0].removesuffix(" (baseline)"), set()).add(
                        colour
                    )
        return seen

    before = colours()
    assert set(before) == {"Team Alpha", "Team Beta", "Baselines"}
    assert all(len(found) == 1 for found in before.values())  # one colour per team
    assert len({next(iter(found)) for found in before.values()}) == 3  # three teams, three
    # Team Beta overtakes Team Alpha everywhere: the ranking changes, the colours do not.
    beta = Result.objects.filter(
        submission__phase=demo_phase, current=True, submission__team__name="Team Beta"
    )
    for result in beta:  # what a re-score would write: every figure of the primary metric
        result.metrics["jga"] = 99.0
        for part in result.part_metrics.values():
            part["metrics"]["jga"] = 99.0
        result.primary = result.public_primary = 99.0
        result.save()
    Phase.changed(demo_phase.pk)
    first = leaderboard(Phase.objects.get(pk=demo_phase.pk)).conditions[0].rows[0]
    assert first.team_name == "Team Beta"
    assert colours() == before


def test_changes_and_scores_never_read_minus_zero():
    # hand-worked: a change that rounds to zero has no sign; a real one has a true minus sign
    assert signed(-0.004) == "0.00" and signed(0.004) == "0.00"
    assert signed(-3.456) == "\u22123.46" and signed(1.2) == "+1.20"
    assert score(-0.001) == "0.00" and score(17.925) in ("17.93", "17.92")
    assert score(None) == signed(None) == "\u2014"


def test_team_and_method_names_reach_plotly_escaped(client, demo_phase):
    Team.objects.filter(name="Team Alpha").update(name="<img src=x onerror=alert(1)>")
    demo_phase.submissions.filter(team__name__startswith="<img").update(method_name="<b>m</b>")
    # the organiser's edits in the admin: a change of the phase's boards, then built
    Phase.changed(demo_phase.pk)
    built(demo_phase)
    page = client.get(reverse("rankings:leaderboard", args=[dstc11.SLUG, demo_phase.slug])).text
    assert "<img src=x" not in page and "<b>m</b>" not in page
    charts = json.dumps(_charts(page))
    assert "&lt;img src=x onerror=alert(1)&gt;" in charts
    assert "&lt;b&gt;m&lt;/b&gt;" in charts
    assert "<img" not in charts and "<b>m" not in charts


def test_long_condition_names_break_onto_two_lines_for_a_phone():
    assert wrap("TTS-Verbatim") == "TTS-Verbatim"  # 12 characters fit
    assert wrap("Human-Paraphrased") == "Human-<br>Paraphrased"
    assert wrap("A very long condition name") == "A very long<br>condition name"
    assert wrap("Unbreakablelongname") == "Unbreakablelongname"


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        # near 100: one point of room below, none past 100 (Plotly's own padding gave 101)
        ([97.5, 100.0, 99.0], [96.5, 100.0]),
        # a spread of 25 points: 8% of it (2) either side
        ([20.0, 45.0], [18.0, 47.0]),
        # near 0: never below it
        ([0.5, 3.0], [0.0, 4.0]),
        ([], None),
    ],
)
def test_a_percentage_axis_stays_within_0_and_100(values, expected):
    assert percent_range(values) == (pytest.approx(expected) if expected else None)
