"""An upload sent again with the same ``Idempotency-Key`` (the client retrying after a lost
reply) is answered with the stored submission: stored once, charged once."""

from __future__ import annotations

import pytest

from leaderboard.submissions.models import Submission
from tests.leaderboard.factories import approved_team, phase_with_references, uploads
from tests.leaderboard.web import GOLD_BYTES, PREDICTION

pytestmark = pytest.mark.django_db


def _post(client, phase, key: str | None):
    headers = {} if key is None else {"HTTP_IDEMPOTENCY_KEY": key}
    return client.post(
        f"/api/v1/phases/{phase.pk}/submissions/",
        {"method_name": "m", **uploads(PREDICTION)},
        **headers,
    )


def test_the_same_key_twice_stores_one_submission(client, isolation, enqueued):
    phase = phase_with_references(GOLD_BYTES, total_quota=5)
    team = approved_team(phase)
    client.force_login(team.created_by)
    first = _post(client, phase, "a1b2c3")
    assert first.status_code == 201, first.content
    again = _post(client, phase, "a1b2c3")
    assert again.status_code == 200 and again.json()["id"] == first.json()["id"]
    assert Submission.objects.filter(team=team).count() == 1
    assert Submission.objects.get(team=team).charged
    other = _post(client, phase, "d4e5f6")
    assert other.status_code == 201 and other.json()["id"] != first.json()["id"]
    plain = _post(client, phase, None)
    assert plain.status_code == 201
    assert Submission.objects.filter(team=team, charged=True).count() == 3


def test_a_malformed_key_is_refused_and_nothing_is_stored(client, isolation, enqueued):
    phase = phase_with_references(GOLD_BYTES)
    team = approved_team(phase)
    client.force_login(team.created_by)
    for key in ("x" * 65, "has space", "naïve"):
        answer = _post(client, phase, key)
        assert answer.status_code == 400
        assert "Idempotency-Key" in answer.json()["error"]["message"]
    assert not Submission.objects.filter(team=team).exists()
