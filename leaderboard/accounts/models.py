"""What a user chose about the mail Trackboard sends them. The address they confirmed is
django-allauth's ``EmailAddress(verified=True)``."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import User
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


def wants_submission_mail(user: User) -> bool:
    found = MailPreference.objects.filter(user=user).values_list("submission_mail", flat=True)
    return next(iter(found), True)


def wants_announcement_mail(user: User) -> bool:
    found = MailPreference.objects.filter(user=user).values_list("announcement_mail", flat=True)
    return next(iter(found), True)
