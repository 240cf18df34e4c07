"""Personal access tokens for the REST API and the ``trackboard`` command.

Our own small model rather than DRF's ``authtoken``: that one stores the key in clear text and
allows one token per user. Here only a SHA-256 digest is stored (a leaked database or backup
gives no usable key), a user may hold several named tokens (a laptop, a training cluster) and
revoke each one, and the page shows when each was created and last used.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


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

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.user} {self.prefix}… ({self.name or 'unnamed'})"
