"""Teams, their members, and their registration for challenges."""

from __future__ import annotations

import secrets
from typing import Any

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.crypto import get_random_string

from leaderboard.teams import names


def new_invite_code() -> str:
    """16 letters and digits (95 bits; ``get_random_string``'s own alphabet): no "-" or "_",
    so a code never reads as an option on a command line (``trackboard team join SLUG CODE``)
    nor breaks when a link is copied."""
    return get_random_string(16)


def new_alias() -> str:
    """A random label for an anonymous team (``Anonymous team K7QX2M``): it tells nothing of
    the team, not even when it was created."""
    return "".join(secrets.choice(ALIAS_ALPHABET) for _ in range(6))


#: no 0/O or 1/I, which read alike
ALIAS_ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"


class Team(models.Model):
    name = models.CharField(max_length=100, unique=True)
    slug = models.SlugField(unique=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    invite_code = models.CharField(max_length=32, unique=True, default=new_invite_code)
    members = models.ManyToManyField(
        settings.AUTH_USER_MODEL, through="Membership", related_name="teams"
    )
    #: shown as "Anonymous team <alias>" to everyone but the challenge's organisers (and its
    #: members); its page is then theirs only
    anonymous = models.BooleanField(default=False)
    alias = models.CharField(max_length=16, unique=True, default=new_alias, editable=False)
    #: what the name is compared by (``names.key``: its TR39 confusable skeleton); set on save
    name_key = models.TextField(db_index=True, editable=False, default="")
    #: the team page lists the members' names to everyone; off: to its members and the
    #: organisers of its challenges only
    list_members = models.BooleanField(default=False)
    created = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def save(self, *args: Any, **kwargs: Any) -> None:
        self.name_key = names.key(self.name)
        update_fields = kwargs.get("update_fields")
        if update_fields is not None and "name" in update_fields:
            kwargs["update_fields"] = {*update_fields, "name_key"}
        super().save(*args, **kwargs)

    @property
    def anonymous_label(self) -> str:
        return anonymous_label(self.alias)


def anonymous_label(alias: str) -> str:
    """How boards, exports and snapshots name an anonymous team, by its alias."""
    return f"Anonymous team {alias}"


class Membership(models.Model):
    class Role(models.TextChoices):
        OWNER = "owner", "owner"
        MEMBER = "member", "member"

    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    role = models.CharField(max_length=16, choices=Role.choices, default=Role.MEMBER)
    joined = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["team", "user"], name="membership_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.user} in {self.team} ({self.role})"


class Participation(models.Model):
    """A team registered for a challenge. Its row is also the lock that serialises quota checks."""

    class Status(models.TextChoices):
        PENDING = "pending", "pending approval"
        APPROVED = "approved", "approved"
        REJECTED = "rejected", "rejected"

    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="participations")
    challenge = models.ForeignKey(
        "challenges.Challenge", on_delete=models.CASCADE, related_name="participations"
    )
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    created = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["team", "challenge"], name="participation_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.team} @ {self.challenge} ({self.status})"
