"""The DSTC11 demo's declared system facts: each condition's board filtered by "ASR system"
on the page and in the API (rows keep their ranks), and the chart of JGA against "parameters
(billions)" in the stored charts and the API, for all three conditions."""

from __future__ import annotations

import pytest
from django.urls import reverse

from leaderboard.challenges.models import Challenge
from leaderboard.demo import dstc11
from tests.leaderboard.boards import leaderboard

pytestmark = pytest.mark.django_db

#: team -> (ASR system, parameters) its row may declare (Team Beta: either of its two runs)
DECLARED = {
    "Team Alpha": {("other", 3)},
    "Team Beta": {("provided ASR", 0.22), ("Whisper", 11)},
    "Baselines": {("Whisper", 0.11)},
}


@pytest.fixture
def phase(demo):
    return Challenge.objects.get(slug=dstc11.SLUG).phases.get(slug="test")


def test_each_condition_filtered_by_asr_system_on_the_page_and_in_the_api(client, phase):
    board = leaderboard(phase)
    for condition in board.conditions:
        ranks = {r.team_name: r.rank for r in condition.rows}
        for row in condition.rows:
            assert (row.facts["asr"], row.facts["params"]) in DECLARED[row.team_name]
        whisper = {r.team_name for r in condition.rows if r.facts["asr"] == "Whisper"}
        assert "Baselines" in whisper and "Team Alpha" not in whisper

        body = client.get(
            f"/api/v1/phases/{phase.pk}/leaderboard/",
            {"condition": condition.key, "fact.asr": "Whisper"},
        ).json()
        assert body["filters"] == {"asr": "Whisper"}
        assert {r["team"]["name"] for r in body["results"]} == whisper
        assert all(r["facts"]["asr"] == "Whisper" for r in body["results"])
        # each row keeps its rank on the whole board
        assert {r["team"]["name"]: r["rank"] for r in body["results"]} == {
            t: ranks[t] for t in whisper
        }
        (chart,) = body["fact_charts"]
        assert (chart["fact"], chart["condition"], chart["metric"]) == (
            "params",
            condition.key,
            "jga",
        )
        by_team = {p["team"]: p for p in chart["points"]}
        for row in condition.rows:
            point = by_team[row.team_name]
            assert point["x"] == row.facts["params"]
            assert (point["y"], point["low"], point["high"]) == tuple(row.cells[0])

    url = reverse("rankings:leaderboard", args=[phase.challenge.slug, phase.slug])
    page = client.get(url, {"fact.asr": "Whisper"}).text
    assert "Each row keeps its rank on the whole board" in page
    assert '<option value="Whisper" selected>' in page
    for condition in board.conditions:
        table = page[page.index(f'id="table-{condition.key}"') :]
        table = table[: table.index("</table>")]
        assert "Baselines" in table and "Team Alpha" not in table
        assert f'id="chart-fact-params-{condition.key}"' in page
    assert "Team Alpha" in client.get(url).text


def test_a_filter_the_board_does_not_have_is_a_400_naming_it(client, phase):
    body = client.get(
        f"/api/v1/phases/{phase.pk}/leaderboard/", {"fact.asr": "Kaldi", "fact.gpu": "x"}
    ).json()
    assert body["error"]["details"] == {
        "fact.asr": ["'Kaldi' is not one of: provided ASR, Whisper, other"],
        "fact.gpu": ["no filter 'fact.gpu'; the filters are: fact.asr"],
    }
