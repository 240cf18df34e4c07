"""500 teams x 3 conditions: the board's worker ranks them in a constant number of queries,
and the leaderboard page, which only reads the stored board, costs a constant number too (a
warm page reads the phase and the stored board's version, nothing else)."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from leaderboard.challenges.models import Phase
from leaderboard.rankings.builds import build
from leaderboard.rankings.compute import compute
from leaderboard.rankings.serialised import serialise
from scoring.synth import make_gold
from tests.leaderboard import bulk
from tests.leaderboard.factories import phase_with_references

pytestmark = pytest.mark.django_db

GOLD = json.dumps(make_gold(3, seed=1)).encode()
#: What the board's worker computes and stores, whatever the number of teams or conditions:
#: every counted Result of the phase with its stored statistics (once, as values: the rows,
#: their ranks and the rows' scored submissions come from them), the dialogue ids of each
#: reference's statistics (one query for all references), the conditions, the reported
#: figures and the organisers' public withdrawals (its rank groups, rank intervals, detectable
#: differences, overview and charts are computed from those, without a query).
RANKING_QUERIES = 5
#: Sessions/auth are not touched by an anonymous visitor: the phase, the stored board's
#: state (its row, version and build time), and on the first read in a process its data
#: (decoded once per process and version); a warm page is kept in the cache under its
#: validator, so it reads the phase and the state only. Never a ranking query.
COLD_QUERIES = 3
WARM_QUERIES = 2


def _url(phase):
    return reverse("rankings:leaderboard", args=[phase.challenge.slug, phase.slug])


@pytest.mark.parametrize("teams", [5, 500])
def test_the_page_costs_the_same_queries_for_5_or_500_teams(
    client, teams, django_assert_num_queries
):
    phase = phase_with_references(GOLD)
    bulk.build(phase, teams)
    Phase.changed(phase.pk)  # rows written with bulk_create: marked changed as a service does
    ranked = Phase.objects.select_related("challenge").get(pk=phase.pk)
    with django_assert_num_queries(RANKING_QUERIES):
        serialise(compute(ranked, "public"), charts=True)  # the worker's build, as it stores it
    assert build(phase.pk) == 1  # the board's worker, once the change has committed
    with django_assert_num_queries(COLD_QUERIES):
        cold = client.get(_url(phase))
    with django_assert_num_queries(WARM_QUERIES):
        warm = client.get(_url(phase))
    assert cold.status_code == warm.status_code == 200
    shown = warm.text
    # 20 rows per table (overview + three conditions) unless "show all"
    assert shown.count("<tr") - shown.count("<thead") == 4 * min(teams, 20)
    assert ("Show all 500</a>" in shown) == (teams == 500)
    # about 165 KB, whatever the number of teams (each row's rank interval and count of
    # scored submissions added about 12 KB to the 80 rows shown)
    assert len(warm.content) <= 170_000
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
