"""A run scored by a real worker process shows on the next read of a reader who had the board
before, whether the reader shares the worker's cache (Redis) or has its own (the embedded
mode's in-process cache): the worker builds the board and stores it in the database, which
every process reads; the cache only keeps rendered answers under the stored board they show.
Numbers by hand from ``tests.leaderboard.web``: the shared prediction gets 3 of 4 turns right
(JGA 75.00), the gold itself all four (100.00)."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from leaderboard.challenges.models import Phase
from leaderboard.rankings.boards import stored
from leaderboard.rankings.models import Board
from leaderboard.submissions import services
from leaderboard.submissions.models import Submission
from tests.leaderboard.boards import leaderboard
from tests.leaderboard.factories import approved_team, phase_with_references, uploads
from tests.leaderboard.faults.conftest import wait_for
from tests.leaderboard.web import GOLD, GOLD_BYTES, PREDICTION

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def _shown(board) -> list[tuple[str, float]]:
    at = [c.name for c in board.columns].index("jga")
    return [(r.team_name, round(r.cells[at][0], 2)) for r in board.conditions[0].rows]


@pytest.mark.parametrize("reader_cache", ["shared", "own"])
def test_a_run_a_worker_scored_shows_on_a_warm_readers_next_read(
    start_worker, tmp_path, settings, isolation, reader_cache
):
    if reader_cache == "own":
        settings.CACHES = {
            "default": {
                "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
                "KEY_PREFIX": isolation["tag"],
            }
        }
    phase = phase_with_references(GOLD_BYTES)
    first = approved_team(phase)
    run = services.submit(
        team=first, phase=phase, user=first.created_by, files=uploads(PREDICTION),
        method_name="Prediction tracker", enqueue=False,
    )  # fmt: skip
    assert services.run_scoring(run.pk) == "scored"
    assert _shown(leaderboard(phase)) == [(first.name, 75.0)]
    url = reverse("rankings:leaderboard", args=[phase.challenge.slug, phase.slug])
    reader = Client()
    page = reader.get(url)  # warm: the reader's cache holds this page
    assert "Prediction tracker" in page.text and "Gold tracker" not in page.text

    start_worker()
    second = approved_team(phase)
    scored = services.submit(
        team=second, phase=phase, user=second.created_by, files=uploads(GOLD),
        method_name="Gold tracker",
    )  # fmt: skip
    wait_for(
        lambda: Submission.objects.filter(pk=scored.pk, status="scored").exists(),
        "the worker to score the run",
        tmp_path,
    )

    def worker_built_it() -> bool:
        found = stored(Phase.objects.select_related("challenge").get(pk=phase.pk))
        return found.built and not found.behind

    wait_for(worker_built_it, "the worker to build the board", tmp_path)
    row = Board.objects.get(phase=phase, kind=Board.Kind.PUBLIC)
    assert row.version == Phase.objects.get(pk=phase.pk).board_version
    fresh = reader.get(url, HTTP_IF_NONE_MATCH=page["ETag"])
    assert fresh.status_code == 200
    # 100.00 above 75.00
    assert fresh.text.index("Gold tracker") < fresh.text.index("Prediction tracker")
