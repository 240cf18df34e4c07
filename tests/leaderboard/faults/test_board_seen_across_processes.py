"""A run scored by a real worker process shows on the next read of a reader whose cache
already holds the board, whether the two share a cache (Redis) or not (the reader's own
memory): the worker moves the phase's ``board_version`` in the database, and boards are cached
under it; while the worker rebuilds the board, a reader gets the previous one for at most the
rebuild window. Numbers by hand from ``tests.leaderboard.web``: the shared prediction gets 3 of 4
turns right (JGA 75.00), the gold itself all four (100.00)."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from leaderboard.rankings.services import cache_key, leaderboard

from leaderboard.challenges.models import Phase
from leaderboard.submissions import services
from leaderboard.submissions.models import Submission
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
        method_name="prediction", enqueue=False,
    )  # fmt: skip
    assert services.run_scoring(run.pk) == "scored"
    reader = Phase.objects.get(pk=phase.pk)
    assert _shown(leaderboard(reader)) == [(first.name, 75.0)]
    assert cache.get(cache_key(reader)) is not None  # warm

    start_worker()
    second = approved_team(phase)
    scored = services.submit(
        team=second, phase=phase, user=second.created_by, files=uploads(GOLD),
        method_name="gold",
    )  # fmt: skip
    wait_for(
        lambda: Submission.objects.filter(pk=scored.pk, status="scored").exists(),
        "the worker to score the run",
        tmp_path,
    )
    again = Phase.objects.get(pk=phase.pk)  # the reader's next request
    assert again.board_version > reader.board_version
    # The worker rebuilds the board right after scoring, under the board's lock: meanwhile a
    # reader gets the previous board, for at most the rebuild window, then the new one.
    previous, new = [(first.name, 75.0)], [(second.name, 100.0), (first.name, 75.0)]
    seen = []

    def shows_the_new_run() -> bool:
        seen.append(_shown(leaderboard(Phase.objects.get(pk=phase.pk))))
        return seen[-1] == new

    wait_for(
        shows_the_new_run,
        "the reader to see the new run",
        tmp_path,
        deadline=settings.LEADERBOARD_REBUILD_SECONDS + 10,
    )
    assert all(shown in (previous, new) for shown in seen)
