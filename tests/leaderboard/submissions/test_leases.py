"""The scoring claim's heartbeat renews its short lease while the scoring runs, from a thread
of its own, and stops when the scoring ends or another claim has taken the row over."""

from __future__ import annotations

import datetime as dt
import json
import time

import pytest

from leaderboard.submissions import services
from leaderboard.submissions.leases import Heartbeat
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


def test_the_heartbeat_keeps_a_claim_alive_past_its_first_lease(claimed):
    pk, held = claimed
    with Heartbeat(pk, held, LEASE) as heartbeat:
        time.sleep(1.5)  # past the first lease's end, several renewals in
        assert heartbeat.held > held
        assert _lease(pk) == heartbeat.held
    assert not heartbeat.lost
    last = heartbeat.held
    time.sleep(0.5)
    assert _lease(pk) == last  # stopped with the block


def test_the_heartbeat_stops_when_another_claim_took_the_row_over(claimed):
    pk, held = claimed
    with Heartbeat(pk, held, LEASE) as heartbeat:
        Submission.objects.filter(pk=pk).update(lease_until=held - dt.timedelta(seconds=10))
        taken = Submission.claim(pk, dt.timedelta(seconds=60))
        assert taken is not None
        time.sleep(0.5)
        assert heartbeat.lost
    assert _lease(pk) == taken
