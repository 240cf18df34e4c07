"""Celery tasks of the accounts: the password-reset and confirmation mails, apart from the
request that asked for them (a slow or hung mail server delays the mail only). Each attempt
waits at most EMAIL_TIMEOUT for the server; a failed attempt is retried with back-off."""

from __future__ import annotations

import logging
from collections.abc import Callable

from celery import shared_task

from leaderboard.accounts import services
from leaderboard.accounts.queue import SEND_CONFIRMATION, SEND_PASSWORD_RESET

log = logging.getLogger(__name__)

#: Seconds before each retry of a mail the server did not take; after the last, it is dropped
#: (the page that asked for it says how to ask again).
MAIL_BACKOFF = (30, 120, 600)


def _retrying(task, what: str, send: Callable[[], int]) -> int:  # type: ignore[no-untyped-def]
    try:
        return send()
    except OSError as exc:
        retries = task.request.retries
        if retries >= len(MAIL_BACKOFF):
            log.exception("gave up sending %s", what)
            return 0
        log.warning("sending %s failed, retrying: %r", what, exc)
        raise task.retry(exc=exc, countdown=MAIL_BACKOFF[retries]) from exc


@shared_task(
    bind=True,
    name=SEND_PASSWORD_RESET,
    acks_late=True,
    max_retries=len(MAIL_BACKOFF),
    soft_time_limit=60,
    time_limit=90,
)
def send_password_reset(self, address: str) -> int:  # type: ignore[no-untyped-def]
    """Mail a reset link to the accounts of ``address`` (none for an unknown one)."""
    return _retrying(self, "a password reset", lambda: services.mail_password_reset(address))


@shared_task(
    bind=True,
    name=SEND_CONFIRMATION,
    acks_late=True,
    max_retries=len(MAIL_BACKOFF),
    soft_time_limit=60,
    time_limit=90,
)
def send_confirmation(self, user_id: int, address: str) -> int:  # type: ignore[no-untyped-def]
    """Mail user ``user_id`` the link that confirms ``address``."""
    return _retrying(
        self,
        f"the confirmation of user {user_id}",
        lambda: services.mail_confirmation(user_id, address),
    )
