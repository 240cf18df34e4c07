"""Personal access tokens for the REST API and the ``trackboard`` command.

Our own small model rather than DRF's ``authtoken``: that one stores the key in clear text and
allows one token per user. Here only a SHA-256 digest is stored (a leaked database or backup
gives no usable key), a user may hold several named tokens (a laptop, a training cluster) and
revoke each one, and the page shows when each was created and last used.

A token also says what it may do (its scope) and until when (``expires_at``): a key pasted
into a CI job to upload runs need not be able to change the team, and a forgotten one stops
working by itself. The scopes form a ladder, each one including those below it.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class Scope(models.TextChoices):
    """What a token may do, lowest first; each scope includes every one before it."""

    READ = "read", "read: read anything you may read"
    SUBMIT = "submit", "submit: read, upload runs, edit and choose your runs"
    TEAM = "team", "team: submit, and change teams, membership and registrations"
    ORGANISE = "organise", "organise: everything you may do, the organiser API included"


#: The scopes from the narrowest to the widest (the order of :class:`Scope`).
LADDER: tuple[str, ...] = tuple(Scope.values)


def includes(scope: str, needed: str) -> bool:
    """Whether a token of ``scope`` may do what needs ``needed``."""
    return LADDER.index(scope) >= LADDER.index(needed)


class ApiToken(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(max_length=100, blank=True)
    #: The first characters of the key, shown on the profile page to tell tokens apart.
    prefix = models.CharField(max_length=16)
    #: hex SHA-256 of the whole key; the key itself is shown once and never stored.
    digest = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(default=timezone.now)
    last_used_at = models.DateTimeField(null=True, blank=True)
    scope = models.CharField(max_length=16, choices=Scope.choices, default=Scope.SUBMIT)
    #: After this the token is refused (401) until its owner renews it on the profile page.
    expires_at = models.DateTimeField()

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.user} {self.prefix}… ({self.name or 'unnamed'})"

    @property
    def expired(self) -> bool:
        return self.expires_at <= timezone.now()
