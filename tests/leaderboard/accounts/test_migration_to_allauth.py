"""Accounts made before the move to django-allauth (``accounts`` 0004 and 0005) still work after
it: each logs in with its password, by username or by address; a confirmed address still counts
as confirmed (whatever its capitals in the old record), an unconfirmed one, or one whose
confirmation was of an older address, does not. The earlier move to confirmed addresses (0002)
still runs through to the end on accounts made before it."""

from __future__ import annotations

import pytest
from django.contrib.auth.hashers import make_password
from django.db import IntegrityError, connection, transaction
from django.db.migrations.executor import MigrationExecutor
from django.db.migrations.loader import MigrationLoader
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from leaderboard.teams.services import address_confirmed

BEFORE = [("accounts", "0003_announcement_mail")]
PASSWORD = "a-long-unusual-passphrase"


def _migrate(targets: list[tuple[str, str]]) -> None:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)


def _latest() -> list[tuple[str, str]]:
    return MigrationLoader(connection).graph.leaf_nodes("accounts")


@pytest.mark.django_db(transaction=True)
def test_accounts_made_before_the_migration_log_in_and_keep_their_confirmation():
    _migrate(BEFORE)
    try:
        old = MigrationLoader(connection).project_state(BEFORE).apps
        User = old.get_model("auth", "User")
        EmailConfirmation = old.get_model("accounts", "EmailConfirmation")
        made = {}
        for name, email in (
            ("ada", "Ada@example.org"),  # confirmed, the record in other capitals
            ("bo", "bo@example.org"),  # never confirmed
            ("cy", "cy@example.org"),  # confirmed an older address, then changed it
            ("dee", ""),  # no address at all
        ):
            made[name] = User.objects.create(
                username=name, email=email, password=make_password(PASSWORD)
            )
        now = timezone.now()
        EmailConfirmation.objects.create(
            user=made["ada"], email="ada@EXAMPLE.org", confirmed_at=now
        )
        EmailConfirmation.objects.create(user=made["cy"], email="cy@old.example", confirmed_at=now)
    finally:
        _migrate(_latest())

    from django.contrib.auth import get_user_model

    users = get_user_model().objects
    confirmed = {user.username: address_confirmed(user) for user in users.all()}
    assert confirmed == {"ada": True, "bo": False, "cy": False, "dee": False}
    for typed in ("ada", "Ada@example.org", "bo", "cy@example.org", "dee"):
        client = Client()
        response = client.post(reverse("account_login"), {"login": typed, "password": PASSWORD})
        assert response.status_code == 302, typed
        assert client.get(reverse("accounts:profile")).status_code == 200
    # the confirmed account takes part: it creates a team
    client = Client()
    client.post(reverse("account_login"), {"login": "ada", "password": PASSWORD})
    assert client.post(reverse("teams:create"), {"name": "Old Hands"}).status_code == 302
    assert users.get(username="ada").memberships.filter(team__name="Old Hands").exists()


@pytest.mark.django_db(transaction=True)
def test_a_shared_address_stays_with_the_oldest_account_through_every_migration(capsys):
    """Accounts made before confirmed addresses existed (0002), when two could share an address
    ignoring case: the later account of a shared address loses it and is named, the others
    count as confirmed, and still do after the move to allauth (0004)."""
    first_migration = [("accounts", "0001_mail_preferences")]
    _migrate(first_migration)
    try:
        User = (
            MigrationLoader(connection)
            .project_state(first_migration)
            .apps.get_model("auth", "User")
        )
        for name, email in (
            ("dana", "dana@example.org"),
            ("dana-again", "DANA@example.org"),
            ("eve", "eve@example.org"),
        ):
            User.objects.create(username=name, email=email, password=make_password(PASSWORD))
    finally:
        _migrate(_latest())
    assert "dana-again (DANA@example.org)" in capsys.readouterr().out

    from django.contrib.auth import get_user_model

    users = {user.username: user for user in get_user_model().objects.all()}
    assert users["dana-again"].email == ""
    confirmed = {name: address_confirmed(user) for name, user in users.items()}
    assert confirmed == {"dana": True, "dana-again": False, "eve": True}
    # one address, one account, whatever its capitals, whatever writes it
    with pytest.raises(IntegrityError), transaction.atomic():
        get_user_model().objects.filter(username="dana-again").update(email="Eve@example.org")
