"""E-mail about registrations, sent by the ``teams.tasks`` after the commit (on the mail queue:
``leaderboard.background``): to a challenge's organisers when a registration waits for their
approval (one message per organiser, so none sees the others' addresses), and to a team's
members when their registration is approved or refused.

Whoever turned off the site's mail about their teams (the profile's "E-mail me about my teams"
checkbox, the same opt-out as submission mail) gets none. Links are absolute, on the
``SITE_URL`` setting; no member is named to the organisers beyond the team's name."""

from __future__ import annotations

from django.conf import settings
from django.core.mail import EmailMessage, get_connection, send_mail
from django.db.models import Q, QuerySet
from django.urls import reverse

from leaderboard.teams.models import Participation


def _absolute(path: str) -> str:
    return f"{settings.SITE_URL}{path}"


def _addresses(users: QuerySet) -> list[str]:
    wanted = users.exclude(email="").exclude(Q(mail_preference__submission_mail=False))
    return sorted(set(wanted.values_list("email", flat=True)))


_FOOTER = "\n\nTo stop these messages, untick 'E-mail me about my teams' on {profile}"


def mail_pending(participation_id: int) -> int:
    """Tell the challenge's organisers that a registration waits for them, one message to each
    (addressed to that organiser only); returns the messages sent (0 when it no longer
    waits)."""
    found = (
        Participation.objects.select_related("team", "challenge")
        .filter(pk=participation_id, status=Participation.Status.PENDING)
        .first()
    )
    if found is None:
        return 0
    emails = _addresses(found.challenge.organisers.all())
    if not emails:
        return 0
    link = _absolute(reverse("challenges:organise", args=[found.challenge.slug]))
    subject = f"{found.challenge.title}: {found.team.name} waits for your approval"
    body = (
        f"The team {found.team.name!r} registered for {found.challenge.title}. Approve or "
        f"refuse it on the organiser dashboard: {link}"
        + _FOOTER.format(profile=_absolute(reverse("accounts:profile")))
    )
    messages = [
        EmailMessage(subject, body, settings.DEFAULT_FROM_EMAIL, [email]) for email in emails
    ]
    return get_connection().send_messages(messages) or 0


def mail_decision(participation_id: int) -> int:
    """Tell the team's members that its registration was approved or refused; returns the
    messages sent (0 when it is pending again)."""
    found = (
        Participation.objects.select_related("team", "challenge")
        .filter(pk=participation_id)
        .exclude(status=Participation.Status.PENDING)
        .first()
    )
    if found is None:
        return 0
    emails = _addresses(found.team.members.all())
    if not emails:
        return 0
    challenge = found.challenge
    link = _absolute(reverse("challenges:detail", args=[challenge.slug]))
    if found.status == Participation.Status.APPROVED:
        subject = f"{found.team.name} is approved for {challenge.title}"
        body = f"The organisers approved {found.team.name!r}: your team can submit. {link}"
    else:
        subject = f"{found.team.name} was not approved for {challenge.title}"
        body = (
            f"The organisers refused the registration of {found.team.name!r} for "
            f"{challenge.title}. Ask them (see the challenge's page) if you think it a "
            f"mistake. {link}"
        )
    body += _FOOTER.format(profile=_absolute(reverse("accounts:profile")))
    return send_mail(subject, body, settings.DEFAULT_FROM_EMAIL, emails)
