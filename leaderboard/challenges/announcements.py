"""Announcements: what a challenge's organisers tell everyone, in Markdown, on the challenge's
page (newest first), in the API and in the Atom feed; optionally mailed to the members of every
registered team.

They are public as the challenge page is: whoever may read the challenge reads its
announcements. Posting and deleting one is an audit-log action, written in the same
transaction. The body is rendered as the challenge's pages are (``challenges.pages``:
sanitised, no raw HTML, no script).

With mail, ``post`` sends ``MAIL_ANNOUNCEMENT`` once it commits; the teams app, which knows who
is in a registered team, writes and sends the messages (``teams.announcement_mail``)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models, transaction
from django.db.models import QuerySet
from django.urls import reverse
from django.utils import timezone

from leaderboard.background import MAIL_ANNOUNCEMENT
from leaderboard.celery import send
from leaderboard.challenges import audit

#: the longest title, in characters (a mail's subject carries it)
TITLE_LENGTH = 200


class Announcement(models.Model):
    """One announcement of a challenge's organisers (``post`` writes it)."""

    challenge = models.ForeignKey(
        "challenges.Challenge", on_delete=models.CASCADE, related_name="announcements"
    )
    title = models.CharField(max_length=TITLE_LENGTH)
    body = models.TextField(help_text="Markdown")
    #: the organiser who posted it (kept in the audit log by name should the account go)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    posted_at = models.DateTimeField(default=timezone.now)
    #: the organiser asked for it to be mailed to the members of every registered team
    mailed = models.BooleanField(default=False)

    class Meta:
        ordering = ["-posted_at", "-pk"]
        indexes = [models.Index(fields=["challenge", "posted_at"], name="announcement_posted")]

    def __str__(self) -> str:
        return f"{self.challenge.slug}: {self.title}"

    def anchor(self) -> str:
        """Its ``id`` on the challenge page."""
        return f"announcement-{self.pk}"

    def path(self) -> str:
        """Where it is read: its place on the challenge page."""
        return f"{reverse('challenges:detail', args=[self.challenge.slug])}#{self.anchor()}"


class AnnouncementError(ValueError):
    """An announcement that cannot be posted; the message is safe to show the organiser."""


def of(challenge: Any) -> QuerySet[Announcement]:
    """The challenge's announcements, newest first."""
    return Announcement.objects.filter(challenge=challenge).order_by("-posted_at", "-pk")


def post(challenge: Any, *, title: str, body: str, author: Any, mail: bool) -> Announcement:
    """Post an announcement on ``challenge``, recorded in the audit log; with ``mail``, the
    members of every registered team are mailed it once the post commits. Only an organiser of
    the challenge may post."""
    # one line: a mail's subject carries it
    title, body = " ".join(title.split()), body.strip()
    if not challenge.is_organised_by(author):
        raise AnnouncementError("Only an organiser of this challenge can post announcements.")
    if not title or not body:
        raise AnnouncementError("An announcement needs a title and a text.")
    if len(title) > TITLE_LENGTH:
        raise AnnouncementError(f"Keep the title within {TITLE_LENGTH} characters.")
    with transaction.atomic():
        announcement = Announcement.objects.create(
            challenge=challenge, title=title, body=body, author=author, mailed=mail
        )
        audit.record(
            challenge, "announcement-posted", actor=author, subject=title,
            after={"mailed": mail},
        )  # fmt: skip
        if mail:
            send(MAIL_ANNOUNCEMENT, announcement.pk)
    return announcement


def delete(announcement: Announcement, *, actor: Any) -> None:
    """Delete a (mistaken) announcement, recorded in the audit log with what it said. Mail
    not sent yet is not sent; mail already sent cannot be taken back."""
    challenge = announcement.challenge
    if not challenge.is_organised_by(actor):
        raise AnnouncementError("Only an organiser of this challenge can delete announcements.")
    with transaction.atomic():
        audit.record(
            challenge, "announcement-deleted", actor=actor, subject=announcement.title,
            before={"posted_at": announcement.posted_at, "mailed": announcement.mailed,
                    "body": announcement.body},
        )  # fmt: skip
        announcement.delete()
