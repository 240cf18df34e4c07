"""Every terminal failure mails the team, the lease reaper's included: from a task of its own,
sent after the commit, retried when the mail server does not take the message."""

from __future__ import annotations

import datetime as dt

import pytest
from django.core import mail
from django.core.mail.backends.locmem import EmailBackend
from django.utils import timezone

from leaderboard.submissions import services
from leaderboard.submissions.models import Submission
from tests.leaderboard.factories import approved_team, phase_with_references
from tests.leaderboard.web import GOLD_BYTES, scored_submission

pytestmark = pytest.mark.django_db


def _expired_last_attempt(settings) -> Submission:
    """A run whose worker died on its last attempt: scoring, lease expired, attempts used."""
    phase = phase_with_references(GOLD_BYTES)
    team = approved_team(phase)
    run = scored_submission(team, phase, "lost worker", score=False)
    Submission.objects.filter(pk=run.pk).update(
        status=Submission.Status.SCORING,
        attempts=settings.SCORING_MAX_ATTEMPTS,
        lease_until=timezone.now() - dt.timedelta(seconds=1),
    )
    return run


def test_the_reapers_failure_mails_the_team_after_the_commit(
    settings, django_capture_on_commit_callbacks, notified
):
    run = _expired_last_attempt(settings)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        services.reap_expired_leases()
    assert notified == [] and mail.outbox == []  # nothing before the commit
    for callback in callbacks:
        callback()
    run.refresh_from_db()
    assert run.status == "failed" and not run.charged
    assert notified == [run.pk]
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert f"#{run.pk}" in message.subject and "failed" in message.subject
    assert message.to == [run.team.created_by.email]
    assert "3 attempt(s)" in message.body


class _RefusesOnce(EmailBackend):
    """A mail server that refuses the first message it is given."""

    refused = 0

    def send_messages(self, messages):
        if not _RefusesOnce.refused:
            _RefusesOnce.refused += 1
            raise ConnectionRefusedError("the mail server is down")
        return super().send_messages(messages)


def test_a_mail_the_server_refused_is_retried(
    settings, django_capture_on_commit_callbacks, notified
):
    settings.EMAIL_BACKEND = f"{__name__}._RefusesOnce"
    run = _expired_last_attempt(settings)
    with django_capture_on_commit_callbacks(execute=True):
        services.reap_expired_leases()
    assert _RefusesOnce.refused == 1
    assert len(mail.outbox) == 1 and f"#{run.pk}" in mail.outbox[0].subject
