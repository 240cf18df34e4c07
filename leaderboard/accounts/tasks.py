"""Celery tasks of the accounts: the password-reset and confirmation mails, apart from the
request that asked for them (a slow or hung mail server delays the mail only). Their queue and
retries are declared in ``leaderboard.background``."""

from __future__ import annotations

from celery import shared_task

from leaderboard.accounts import services
from leaderboard.background import SEND_CONFIRMATION, SEND_PASSWORD_RESET, options


@shared_task(**options(SEND_PASSWORD_RESET))
def send_password_reset(address: str) -> int:
    """Mail a reset link to the accounts of ``address`` (none for an unknown one)."""
    return services.mail_password_reset(address)


@shared_task(**options(SEND_CONFIRMATION))
def send_confirmation(user_id: int, address: str) -> int:
    """Mail user ``user_id`` the link that confirms ``address``."""
    return services.mail_confirmation(user_id, address)
