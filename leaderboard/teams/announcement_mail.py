"""The mail of a challenge's announcements (``challenges.announcements``), sent by the
``teams.tasks`` on the mail queue after the post commits (``leaderboard.background``).

One message per person, addressed to that person only: ``mail_all`` finds the recipients and
sends one ``MAIL_ANNOUNCEMENT_TO`` each, so a mail server that fails retries that person's
message alone and never mails anyone twice for it. Each message is checked again when it is
sent: an announcement deleted in the meantime, a person who left the team, whose team is no
longer approved or who turned announcement mail off (``MailPreference.announcement_mail``)
gets nothing."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.mail import EmailMessage
from django.db.models import QuerySet
from django.urls import reverse

from leaderboard.background import MAIL_ANNOUNCEMENT_TO
from leaderboard.celery import send
from leaderboard.challenges.announcements import Announcement
from leaderboard.teams.models import Participation


def recipients(challenge: Any) -> QuerySet[Any]:
    """The people an announcement of ``challenge`` is mailed to: the active members, with an
    address, of every team whose registration is approved, each once, but for those who turned
    announcement mail off."""
    return (
        get_user_model()
        .objects.filter(
            is_active=True,
            memberships__team__participations__challenge=challenge,
            memberships__team__participations__status=Participation.Status.APPROVED,
        )
        .exclude(email="")
        .exclude(mail_preference__announcement_mail=False)
        .distinct()
        .order_by("pk")
    )


def mail_all(announcement_id: int) -> int:
    """Send one ``mail_announcement_to`` for each recipient of the announcement; returns how
    many (none when it was deleted meanwhile). The body of ``tasks.mail_announcement``."""
    found = Announcement.objects.filter(pk=announcement_id).select_related("challenge").first()
    if found is None:
        return 0
    people = list(recipients(found.challenge).values_list("pk", flat=True))
    for user_id in people:
        send(MAIL_ANNOUNCEMENT_TO, announcement_id, user_id)
    return len(people)


def _absolute(path: str) -> str:
    return f"{settings.SITE_URL}{path}"


def mail_one(announcement_id: int, user_id: int) -> int:
    """Mail the announcement to user ``user_id``, addressed to them alone, if they are still
    one of its recipients; returns the messages sent (0 or 1). The body of
    ``tasks.mail_announcement_to``; a mail server that fails raises ``OSError``, which the
    task's declared policy retries."""
    found = Announcement.objects.filter(pk=announcement_id).select_related("challenge").first()
    if found is None:
        return 0
    user = recipients(found.challenge).filter(pk=user_id).first()
    if user is None:
        return 0
    challenge = found.challenge
    body = (
        f"{found.body}\n\n"
        f"-- \nThe organisers of {challenge.title}, on {_absolute(found.path())}\n"
        f"Every announcement: {_absolute(reverse('challenges:detail', args=[challenge.slug]))}"
        f"\nYou get this as a member of a team registered for {challenge.title}. To stop "
        f"announcement mail, untick 'E-mail me the announcements of my challenges' on "
        f"{_absolute(reverse('accounts:profile'))}#mail"
    )
    message = EmailMessage(
        f"{challenge.title}: {found.title}", body, settings.DEFAULT_FROM_EMAIL, [user.email]
    )
    return message.send()
