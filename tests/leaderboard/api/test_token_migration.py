"""The tokens made before scopes and expiry keep working after the migration: "organise" for
those who organise a challenge or are staff, "team" for everyone else, 90 days from the
migration to renew them."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.db.migrations.loader import MigrationLoader
from django.utils import timezone
from rest_framework.test import APIClient

from leaderboard.api.models import ApiToken
from leaderboard.api.services import digest
from tests.leaderboard.factories import ChallengeFactory, UserFactory

BEFORE = [("api", "0001_initial")]


def _migrate(targets: list[tuple[str, str]]) -> None:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)


@pytest.mark.django_db(transaction=True)
def test_tokens_made_before_scopes_keep_working_with_their_owners_widest_scope():
    organiser, staff, participant = UserFactory(), UserFactory(is_staff=True), UserFactory()
    ChallengeFactory().organisers.add(organiser)
    keys = {user.pk: f"tb_before-scopes-{user.pk}" for user in (organiser, staff, participant)}
    try:
        _migrate(BEFORE)
        old = MigrationLoader(connection).project_state(BEFORE).apps.get_model("api", "ApiToken")
        for pk, key in keys.items():
            old.objects.create(user_id=pk, name="old", prefix=key[:10], digest=digest(key))
        migrated_at = timezone.now()
        _migrate(MigrationLoader(connection).graph.leaf_nodes())
        scopes = {t.user_id: t.scope for t in ApiToken.objects.all()}
        assert scopes == {organiser.pk: "organise", staff.pk: "organise", participant.pk: "team"}
        for token in ApiToken.objects.all():
            left = token.expires_at - migrated_at
            assert dt.timedelta(days=90) <= left < dt.timedelta(days=90, minutes=5)
        # the participant's old key still changes the team, as it could before
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {keys[participant.pk]}")
        created = client.post("/api/v1/teams/", {"name": "Old Key Team"}, format="json")
        assert created.status_code == 201, created.content
    finally:
        _migrate(MigrationLoader(connection).graph.leaf_nodes())
