"""Sending the accounts' mail tasks to the workers, by their registered names (as
``submissions.queue`` does): a slow or unreachable mail server never holds a request up, and a
password reset answers the same, in the same time, whether the address has an account or not
(only the worker looks)."""

from __future__ import annotations

import logging

from django.db import transaction

from leaderboard.celery import app, mail_queue

log = logging.getLogger(__name__)

#: The name of ``leaderboard.accounts.tasks.send_password_reset``.
SEND_PASSWORD_RESET = "leaderboard.accounts.tasks.send_password_reset"
#: The name of ``leaderboard.accounts.tasks.send_confirmation``.
SEND_CONFIRMATION = "leaderboard.accounts.tasks.send_confirmation"


def _send(name: str, args: list[object]) -> None:
    try:
        app.send_task(name, args=args, queue=mail_queue())
    except Exception:
        # The request has done its part; only the mail is lost, and its page says how to ask
        # again. Never a server error for an unreachable broker.
        log.exception("could not send the task %s", name)


def enqueue_password_reset(address: str) -> None:
    """Have a worker mail a reset link to each active account of ``address``, once the request
    commits."""
    transaction.on_commit(lambda: _send(SEND_PASSWORD_RESET, [address]))


def enqueue_confirmation(user_id: int, address: str) -> None:
    """Have a worker mail the confirmation link of ``address`` to user ``user_id``, once the
    request commits."""
    transaction.on_commit(lambda: _send(SEND_CONFIRMATION, [user_id, address]))
