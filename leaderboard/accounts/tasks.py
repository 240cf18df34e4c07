"""Celery tasks of the accounts: the account mails (an address's confirmation, a password
reset), composed by the request (``adapter.AccountAdapter.send_mail``) and sent here, apart from
it (a slow or hung mail server delays the mail only). Their queue and retries are declared in
``leaderboard.background``."""

from __future__ import annotations

from typing import Any

from celery import shared_task

from leaderboard.accounts.adapter import mail_from_fields
from leaderboard.background import SEND_ACCOUNT_MAIL, options


@shared_task(**options(SEND_ACCOUNT_MAIL))
def send_account_mail(fields: dict[str, Any]) -> int:
    """Send the message ``adapter.mail_fields`` described; returns the messages sent."""
    return mail_from_fields(fields).send()
