"""The scoring claim's heartbeat renews its short lease while the scoring runs, from a thread
of its own, and stops when the scoring ends or another claim has taken the row over."""

from __future__ import annotations

import datetime as dt
import json
import time
from collections.abc import Callable

import pytest

from leaderboard.leases import Heartbeat
from leaderboard.submissions import services
from leaderboard.submissions.models import Submission
from scoring.synth import make_gold, make_prediction
from tests.leaderboard.factories import approved_team, phase_with_references, uploads

# The heartbeat's thread has a connection of its own: it must see committed rows.
pytestmark = pytest.mark.django_db(transaction=True)

GOLD = make_gold(2, seed=4)
LEASE = dt.timedelta(seconds=0.6)  # renewed every 0.2 s


@pytest.fixture
def claimed(enqueued):
    phase = phase_with_references(json.dumps(GOLD).encode(), keys=("tts-verbatim",))
    team = approved_team(phase)
    submission = services.submit(
        team=team,
        phase=phase,
        user=team.created_by,
        files=uploads(make_prediction(GOLD, 0.2, seed=1), keys=("tts-verbatim",)),
        method_name="leased",
    )
    held = Submission.claim(submission.pk, LEASE)
    assert held is not None
    return submission.pk, held


def _lease(pk: int) -> dt.datetime:
    return Submission.objects.values_list("lease_until", flat=True).get(pk=pk)


def _heartbeat(pk: int, held: dt.datetime) -> Heartbeat[dt.datetime]:
    """The scoring's heartbeat (``services.run_scoring``)."""
    return Heartbeat(lambda until: Submission.renew(pk, until, LEASE), held, LEASE, f"s{pk}")


def _until(predicate: Callable[[], bool], seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline, "not within the deadline"
        time.sleep(0.02)


def test_the_heartbeat_keeps_a_claim_alive_past_its_first_lease(claimed):
    pk, held = claimed
    with _heartbeat(pk, held) as heartbeat:
        # renewed after the first lease's end: the lease it gave then ends a lease after it
        _until(lambda: heartbeat.held > held + LEASE)
    assert not heartbeat.lost
    assert _lease(pk) == heartbeat.held  # stopped with the block (its thread has ended)


def test_the_heartbeat_stops_when_another_claim_took_the_row_over(claimed):
    pk, held = claimed
    with _heartbeat(pk, held) as heartbeat:
        Submission.objects.filter(pk=pk).update(lease_until=held - dt.timedelta(seconds=10))
        taken = Submission.claim(pk, dt.timedelta(seconds=60))
        assert taken is not None
        _until(lambda: heartbeat.lost)
    assert _lease(pk) == taken
