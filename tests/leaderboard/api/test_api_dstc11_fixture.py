"""The published figures through the API: augpt.json against test-dstc11.gold.json.

Expected figures from tests/data/README.md (computed independently of this code):
default profile, JGA 17.93, SER 45.40.
"""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from leaderboard.challenges.services import add_reference
from leaderboard.submissions import services
from tests.leaderboard.api.conftest import token_client
from tests.leaderboard.factories import (
    KEYS,
    ChallengeFactory,
    ConditionFactory,
    PhaseFactory,
    approved_team,
)

pytestmark = [pytest.mark.django_db, pytest.mark.slow]


def test_the_submission_detail_gives_jga_17_93_and_ser_45_40_on_each_condition(fixtures_dir):
    gold = (fixtures_dir / "dstc11" / "test-dstc11.gold.json").read_bytes()
    augpt = (fixtures_dir / "mwzeval-predictions" / "augpt.json").read_bytes()
    # The challenge's default scorer options (profile default, missing reject).
    phase = PhaseFactory(challenge=ChallengeFactory(scorer_options={}))
    for order, key in enumerate(KEYS):
        condition = ConditionFactory(phase=phase, key=key, order=order)
        add_reference(condition, gold, "test-dstc11.gold.json")
    team = approved_team(phase)
    client = token_client(team.created_by)
    files = {key: SimpleUploadedFile("augpt.json", augpt) for key in KEYS}
    created = client.post(
        f"/api/v1/phases/{phase.pk}/submissions/",
        {"method_name": "AuGPT", **files},
        format="multipart",
    )
    assert created.status_code == 201, created.content
    assert services.run_scoring(created.json()["id"]) == "scored"

    body = client.get(f"/api/v1/submissions/{created.json()['id']}/").json()
    assert body["status"] == "scored"
    assert list(body["results"]) == list(KEYS)
    for result in body["results"].values():
        assert f"{result['metrics']['jga']['value']:.2f}" == "17.93"
        assert f"{result['metrics']['ser']['value']:.2f}" == "45.40"
        assert result["signature"].startswith("dstc11|norm:default|missing:reject|")
