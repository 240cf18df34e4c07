"""What a user chose about the mail Trackboard sends them, and which address they confirmed."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class MailPreference(models.Model):
    """A user's choices about the mail Trackboard sends; no row means the defaults (all on)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="mail_preference",
    )
    #: mail when a team's submission is scored or fails
    submission_mail = models.BooleanField(default=True)
    #: mail the announcements of the challenges a team of theirs is registered for (apart
    #: from the above: a participant may want the organisers' news, not each score)
    announcement_mail = models.BooleanField(default=True)

    def __str__(self) -> str:
        return (
            f"{self.user}: submission mail {'on' if self.submission_mail else 'off'}, "
            f"announcement mail {'on' if self.announcement_mail else 'off'}"
        )


class EmailConfirmation(models.Model):
    """The address a user proved they read (they opened the link mailed to it). It counts while
    it is still the user's address: a changed address is unconfirmed until its own link is
    opened (``teams.services.address_confirmed`` reads it). No row: never confirmed."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="email_confirmation",
    )
    email = models.EmailField()
    confirmed_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.user}: {self.email} confirmed {self.confirmed_at:%Y-%m-%d}"


def wants_submission_mail(user: object) -> bool:
    found = MailPreference.objects.filter(user=user).values_list("submission_mail", flat=True)
    return next(iter(found), True)


def wants_announcement_mail(user: object) -> bool:
    found = MailPreference.objects.filter(user=user).values_list("announcement_mail", flat=True)
    return next(iter(found), True)
