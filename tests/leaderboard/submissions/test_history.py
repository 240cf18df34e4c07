"""A team's own history: each scored run's primary metric over time per condition, the best so
far, on "My submissions" and in the API, under the rule of that page's table."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from django.urls import reverse

from leaderboard.challenges.models import Phase
from leaderboard.rankings import history
from leaderboard.submissions.models import Result, Submission
from tests.leaderboard.api.conftest import token_client
from tests.leaderboard.factories import KEYS, approved_team, phase_with_references
from tests.leaderboard.web import GOLD_BYTES, figures, log_in, scored_submission

pytestmark = pytest.mark.django_db

START = dt.datetime(2025, 3, 1, 12, 0, tzinfo=dt.UTC)


@pytest.fixture
def phase():
    return phase_with_references(GOLD_BYTES)


@pytest.fixture
def team(phase):
    return approved_team(phase)


def _run(team, phase, n: int, jga: float, ser: float, *, public: float | None = None):
    """A scored run submitted ``n`` days after START whose every condition has JGA ``jga``
    (interval ±2) and SER ``ser``; on the public part of the split, JGA ``public``."""
    run = scored_submission(team, phase, f"run {n}", build=False)
    Submission.objects.filter(pk=run.pk).update(created_at=START + dt.timedelta(days=n))
    parts = {}
    if public is not None:
        parts = {"public": {"metrics": {"jga": public, "ser": ser}, "intervals": {}}}
    Result.objects.filter(submission=run).update(
        metrics={"jga": jga, "ser": ser},
        intervals={"jga": [jga - 2, jga + 2], "ser": [ser - 1, ser + 1]},
        part_metrics=parts,
    )
    return run


def _charts(page: str) -> dict:
    """The charts' data the page hands its script (``chart-data``), by chart id."""
    tag = '<script id="chart-data" type="application/json">'
    start = page.index(tag) + len(tag)
    return json.loads(page[start : page.index("</script>", start)])


@pytest.fixture
def runs(team, phase):
    return [
        _run(team, phase, 1, 50, 30),
        _run(team, phase, 2, 40, 20),
        _run(team, phase, 3, 75, 25),
    ]


def test_best_so_far_follows_the_metrics_direction(runs, team, phase):
    found = history.series(team.created_by, phase)
    assert found["part"] == "all"
    assert [c["key"] for c in found["conditions"]] == list(
        phase.conditions.order_by("order", "key").values_list("key", flat=True)
    )
    for condition in found["conditions"]:
        rows = condition["runs"]
        assert [r["submission"] for r in rows] == [r.pk for r in runs]
        assert [r["value"] for r in rows] == [50, 40, 75]
        assert [(r["low"], r["high"]) for r in rows] == [(48, 52), (38, 42), (73, 77)]
        assert [r["best"] for r in rows] == [50, 50, 75]
        assert [r["record"] for r in rows] == [True, False, True]
    # SER: lower is better (30, 20, 25 -> 30, 20, 20)
    phase.challenge.primary_metric = "ser"
    phase.challenge.save()
    phase.refresh_from_db()
    rows = history.series(team.created_by, phase)["conditions"][0]["runs"]
    assert [r["best"] for r in rows] == [30, 20, 20]
    assert [r["record"] for r in rows] == [True, True, False]


def test_the_page_draws_the_history_and_the_api_returns_the_same(client, runs, team, phase):
    log_in(client, team.created_by)
    url = reverse("submissions:mine", args=[phase.challenge.slug, phase.slug])
    page = client.get(url).text
    charts = _charts(page)
    assert sorted(charts) == sorted(f"chart-history-{key}" for key in KEYS)
    for key in KEYS:
        assert f'aria-describedby="history-caption-{key}"' in page
        runs_trace, best_trace, records = charts[f"chart-history-{key}"]["data"]
        assert runs_trace["y"] == [50, 40, 75]
        assert runs_trace["error_y"]["array"] == [2, 2, 2]
        assert best_trace["y"] == [50, 50, 75] and best_trace["line"]["shape"] == "hv"
        assert records["y"] == [50, 75]
        assert [c[0] for c in records["customdata"]] == [runs[0].pk, runs[2].pk]
    answer = token_client(team.created_by).get(
        reverse("api:history", args=[phase.pk]), format="json"
    )
    assert answer.status_code == 200
    data = answer.json()
    assert data["phase"] == phase.pk and data["part"] == "all"
    assert data["metric"] == {"name": "jga", "label": "JGA", "direction": "higher"}
    page_series = history.series(team.created_by, phase)
    for mine, theirs in zip(page_series["conditions"], data["conditions"], strict=True):
        assert [r["value"] for r in mine["runs"]] == [r["value"] for r in theirs["runs"]]
        assert [r["best"] for r in theirs["runs"]] == [50, 50, 75]
        assert [r["record"] for r in theirs["runs"]] == [True, False, True]
        assert theirs["runs"][0]["team"]["name"] == team.name


def test_another_teams_runs_are_not_in_the_history(runs, team, phase):
    other = approved_team(phase)
    _run(other, phase, 4, 99, 1)
    mine = history.series(team.created_by, phase)["conditions"][0]["runs"]
    assert [r["value"] for r in mine] == [50, 40, 75]
    theirs = history.series(other.created_by, phase)["conditions"][0]["runs"]
    assert [r["value"] for r in theirs] == [99]


def test_a_hidden_phase_shows_no_number_on_the_page_or_in_the_api(client, runs, team, phase):
    Phase.objects.filter(pk=phase.pk).update(results_visibility=Phase.Visibility.HIDDEN)
    log_in(client, team.created_by)
    page = client.get(reverse("submissions:mine", args=[phase.challenge.slug, phase.slug])).text
    assert "chart-history" not in page and "chart-data" not in page
    data = token_client(team.created_by).get(reverse("api:history", args=[phase.pk])).json()
    assert data["part"] is None and data["conditions"] == []


def test_a_hidden_phase_with_a_split_shows_the_public_part_only(client):
    phase = phase_with_references(
        GOLD_BYTES,
        results_visibility=Phase.Visibility.HIDDEN,
        show_own_public_score=True,
        split_fraction=0.5,
    )
    team = approved_team(phase)
    _run(team, phase, 1, 50, 30, public=61.5)
    _run(team, phase, 2, 80, 30, public=60.25)
    log_in(client, team.created_by)
    page = client.get(reverse("submissions:mine", args=[phase.challenge.slug, phase.slug])).text
    # the public part's figures, with no interval: never the whole set's 50 and 80, +-2
    charts = _charts(page)
    for key in KEYS:
        runs_trace, best_trace, _ = charts[f"chart-history-{key}"]["data"]
        assert runs_trace["y"] == [61.5, 60.25] and best_trace["y"] == [61.5, 61.5]
        bars = runs_trace["error_y"]
        assert bars["array"] == bars["arrayminus"] == [None, None]
    assert "61.50" in figures(page) and "60.25" in figures(page)
    whole_set = ("50.0", "80.0", "48.0", "52.0", "78.0", "82.0")
    assert not [f for f in figures(page) if f.startswith(whole_set)]
    data = token_client(team.created_by).get(reverse("api:history", args=[phase.pk])).json()
    assert data["part"] == "public"
    rows = data["conditions"][0]["runs"]
    assert [(r["value"], r["low"], r["high"], r["best"]) for r in rows] == [
        (61.5, None, None, 61.5),
        (60.25, None, None, 61.5),
    ]


def test_no_run_yet_no_chart(client, team, phase):
    scored_submission(team, phase, score=False, build=False)
    log_in(client, team.created_by)
    page = client.get(reverse("submissions:mine", args=[phase.challenge.slug, phase.slug])).text
    assert "chart-history" not in page
    assert history.series(team.created_by, phase)["conditions"] == []
