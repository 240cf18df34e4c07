"""Standing actors for the API tests: a member (team owner), a member of another team in the
same challenge, an outsider without a team, and the challenge's organiser."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from rest_framework.test import APIClient

from leaderboard.api.services import create_token, scopes_for
from tests.leaderboard.factories import (
    UserFactory,
    approved_team,
    phase_with_references,
    with_second_factor,
)
from tests.leaderboard.web import GOLD_BYTES


@dataclass
class Actors:
    phase: object
    team: object
    member: object
    other_team: object
    other: object
    outsider: object
    organiser: object


@pytest.fixture
def actors(db) -> Actors:
    phase = phase_with_references(GOLD_BYTES)
    team = approved_team(phase)
    other_team = approved_team(phase)
    organiser = UserFactory()
    phase.challenge.organisers.add(with_second_factor(organiser))
    return Actors(
        phase=phase,
        team=team,
        member=team.created_by,
        other_team=other_team,
        other=other_team.created_by,
        outsider=UserFactory(),
        organiser=organiser,
    )


def token_client(user=None, scope=None) -> APIClient:
    """An API client that authenticates with a real token of ``user`` (anonymous: none), of
    ``scope``, by default the widest ``user`` may choose (as every token was before scopes)."""
    client = APIClient()
    if user is not None:
        _, key = create_token(user, "test", scope=scope or scopes_for(user)[-1])
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    return client


@pytest.fixture
def api():
    return token_client
