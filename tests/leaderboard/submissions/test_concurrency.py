"""Quota under concurrency: the Participation row lock admits exactly the remaining quota."""

from __future__ import annotations

import json
import threading

import pytest
from django.db import connection

from leaderboard.submissions import services
from leaderboard.submissions.models import Submission
from scoring.synth import make_gold
from tests.leaderboard.factories import approved_team, phase_with_references, uploads

GOLD = make_gold(8, seed=11)


@pytest.mark.django_db(transaction=True)
def test_ten_concurrent_uploads_against_a_remaining_quota_of_two_accept_exactly_two(
    postgres, enqueued
):
    phase = phase_with_references(json.dumps(GOLD).encode(), daily_quota=3)
    team = approved_team(phase)
    services.submit(
        team=team, phase=phase, user=team.created_by, files=uploads(GOLD), method_name="first"
    )
    start = threading.Barrier(10)
    outcomes: list[str] = []
    lock = threading.Lock()

    def upload(n: int) -> None:
        try:
            files = uploads(GOLD)
            start.wait()
            try:
                services.submit(
                    team=team,
                    phase=phase,
                    user=team.created_by,
                    files=files,
                    method_name=f"run {n}",
                )
                outcome = "accepted"
            except services.QuotaExceeded:
                outcome = "refused"
            except Exception as exc:  # reported, so a crash does not look like a refusal
                outcome = f"error: {exc!r}"
            with lock:
                outcomes.append(outcome)
        finally:
            connection.close()  # each thread opened its own connection

    threads = [threading.Thread(target=upload, args=(n,)) for n in range(10)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(outcomes) == ["accepted"] * 2 + ["refused"] * 8
    assert Submission.objects.filter(team=team, charged=True).count() == 3
    assert len(enqueued) == 3
