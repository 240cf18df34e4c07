"""Deployment checks (``manage.py check --deploy``) of settings a mistake in which shows only
later, in a participant's mail (or in a log that should never hold one)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.core.checks import Error, Tags, Warning, register
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


#: Django's backends that deliver no mail, and what each does with it instead: a link in a
#: password-reset or confirmation mail signs its holder in, so it must not land in a log.
UNSENT_MAIL = {
    "django.core.mail.backends.console.EmailBackend": "prints every mail, with its "
    "password-reset and address-confirmation links, into the log of the process that sends it",
    "django.core.mail.backends.filebased.EmailBackend": "writes every mail, with its "
    "password-reset and address-confirmation links, into files on the server",
    "django.core.mail.backends.locmem.EmailBackend": "keeps every mail in memory: nobody "
    "receives one",
    "django.core.mail.backends.dummy.EmailBackend": "drops every mail: nobody receives one",
}


@register(Tags.security, deploy=True)
def mail_is_sent(app_configs: Any = None, **kwargs: Any) -> list[Error]:
    """Without ``EMAIL_HOST`` the site prints its mail (the embedded mode's default, for a
    developer's terminal); a deployed site must send it instead."""
    instead = UNSENT_MAIL.get(settings.EMAIL_BACKEND)
    if instead is None:
        return []
    return [
        Error(
            f"EMAIL_BACKEND is {settings.EMAIL_BACKEND}, which {instead}.",
            hint="Set EMAIL_HOST (and EMAIL_PORT, EMAIL_HOST_USER, EMAIL_HOST_PASSWORD, "
            "EMAIL_USE_TLS or EMAIL_USE_SSL) to your SMTP server, and leave EMAIL_BACKEND unset.",
            id="trackboard.E001",
        )
    ]
