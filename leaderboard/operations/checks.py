"""Deployment checks (``manage.py check --deploy``) of settings a mistake in which shows only
later, in a participant's mail."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.core.checks import Tags, Warning, register
from django.http.request import validate_host


@register(Tags.security, deploy=True)
def site_url_is_served(app_configs: Any = None, **kwargs: Any) -> list[Warning]:
    """Every link in a mail is built on ``SITE_URL``: it must name a host this site answers
    (``ALLOWED_HOSTS``), or the links lead to another machine (``localhost`` by default)."""
    host = urlsplit(settings.SITE_URL).hostname or ""
    if validate_host(host, settings.ALLOWED_HOSTS):
        return []
    return [
        Warning(
            f"TRACKBOARD_SITE_URL is {settings.SITE_URL}, whose host {host!r} is not among the "
            "hosts this site serves (ALLOWED_HOSTS): the links in every mail would lead there.",
            hint="Set TRACKBOARD_SITE_URL to the address participants use, e.g. "
            "https://trackboard.example.org.",
            id="trackboard.W001",
        )
    ]
