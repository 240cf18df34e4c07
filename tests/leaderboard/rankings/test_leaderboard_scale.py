"""500 teams x 3 conditions: the leaderboard page costs a constant number of queries, and the
charts come from the cached board (a warm page makes no ranking query at all)."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from leaderboard.challenges.models import Phase
from scoring.synth import make_gold
from tests.leaderboard import bulk
from tests.leaderboard.factories import phase_with_references

pytestmark = pytest.mark.django_db

GOLD = json.dumps(make_gold(3, seed=1)).encode()
#: sessions/auth are not touched by an anonymous visitor: the phase, then the ranking queries
#: (counts, conditions, and per condition: best rows, ranked rows, per-dialogue counts, the
#: reference's dialogue ids, then the overview, the reported figures, and after the build
#: the phase's version, to pass the lock on if it moved meanwhile), whatever the number of
#: teams.
COLD_QUERIES = 19
WARM_QUERIES = 1


def _url(phase):
    return reverse("rankings:leaderboard", args=[phase.challenge.slug, phase.slug])


@pytest.mark.parametrize("teams", [5, 500])
def test_the_page_costs_the_same_queries_for_5_or_500_teams(
    client, teams, django_assert_max_num_queries
):
    phase = phase_with_references(GOLD)
    bulk.build(phase, teams)
    Phase.changed(phase.pk)  # bulk_create sends no signal
    with django_assert_max_num_queries(COLD_QUERIES):
        cold = client.get(_url(phase))
    with django_assert_max_num_queries(WARM_QUERIES):
        warm = client.get(_url(phase))
    assert cold.status_code == warm.status_code == 200
    shown = warm.text
    # 20 rows per table (overview + three conditions) unless "show all"
    assert shown.count("<tr") - shown.count("<thead") == 4 * min(teams, 20)
    assert ("Show all 500</a>" in shown) == (teams == 500)
    assert len(warm.content) <= 160_000  # about 150 KB, whatever the number of teams
    page = client.get(_url(phase) + "?all=1").text
    assert page.count('<tr class="baseline">') == 3 * 4  # overview + three conditions
    assert "Bulk team 499" in page or teams == 5
    charts = json.loads(page.split('id="chart-data" type="application/json">')[1].split("<")[0])
    for key in ("tts-verbatim", "human-verbatim", "human-paraphrased"):
        (bars,) = charts[f"chart-jga-{key}"]["data"]
        assert len(bars["x"]) == min(teams, 50)
    assert len(charts["chart-robustness"]["data"]) == min(teams, 50)
    # the first 20 entrants of the overview, on each of the three conditions
    assert sum(len(t["x"]) for t in charts["chart-scatter"]["data"]) == 3 * min(teams, 20)
