"""Account workflows: the confirmation of an address (asked for, mailed, confirmed, changed)
and the password-reset mail. The mails are composed and sent here, by the bodies of the tasks
in ``tasks.py``; requests only send them (``leaderboard.celery.send``)."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import PasswordResetForm
from django.contrib.auth.models import AbstractBaseUser
from django.contrib.auth.tokens import default_token_generator
from django.core.mail import send_mail
from django.db import IntegrityError, transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from leaderboard.accounts.models import EmailConfirmation
from leaderboard.accounts.tokens import confirmation_tokens
from leaderboard.background import SEND_CONFIRMATION
from leaderboard.celery import send


class AccountError(ValueError):
    """An account action that cannot be done; the message is safe to show the user."""


TAKEN = (
    "An account already uses this e-mail address (addresses are the same whatever their "
    "capitals). Log in to it, or reset its password if you forgot it."
)


def absolute(path: str) -> str:
    """``path`` on the site's public address (``SITE_URL``): links in mail are absolute."""
    return f"{settings.SITE_URL}{path}"


def address_taken(address: str, *, exclude: AbstractBaseUser | None = None) -> bool:
    """Whether another account has ``address``, ignoring case."""
    found = get_user_model().objects.filter(email__iexact=address.strip())
    if exclude is not None:
        found = found.exclude(pk=exclude.pk)
    return found.exists()


def request_confirmation(user: AbstractBaseUser) -> None:
    """Have the link that confirms ``user``'s current address mailed to it (by a worker, once
    the request commits)."""
    address = getattr(user, "email", "")
    if address:
        send(SEND_CONFIRMATION, user.pk, address)


def confirm(user: AbstractBaseUser) -> None:
    """Record ``user``'s current address as confirmed."""
    EmailConfirmation.objects.update_or_create(
        user=user, defaults={"email": user.email, "confirmed_at": timezone.now()}
    )


def is_confirmed(user: AbstractBaseUser) -> bool:
    """Whether ``user``'s current address is the one they confirmed."""
    return (
        bool(user.email) and EmailConfirmation.objects.filter(user=user, email=user.email).exists()
    )


def change_address(user: AbstractBaseUser, address: str) -> None:
    """Give ``user`` a new address, unconfirmed until the link mailed to it is opened."""
    address = get_user_model().objects.normalize_email(address.strip())
    if address == user.email:
        raise AccountError("That is already your address.")
    if address_taken(address, exclude=user):
        raise AccountError(TAKEN)
    try:
        with transaction.atomic():
            get_user_model().objects.filter(pk=user.pk).update(email=address)
    except IntegrityError:  # the unique index, for a race the check above lost
        raise AccountError(TAKEN) from None
    user.email = address
    request_confirmation(user)


def confirmation_link(user: AbstractBaseUser) -> str:
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    token = confirmation_tokens.make_token(user)
    return absolute(reverse("accounts:confirm", kwargs={"uidb64": uid, "token": token}))


def mail_confirmation(user_id: int, address: str) -> int:
    """Mail the confirmation link to ``address`` if it is still user ``user_id``'s address and
    not confirmed yet; returns the messages sent. The body of ``tasks.send_confirmation``."""
    user = get_user_model().objects.filter(pk=user_id, is_active=True).first()
    if user is None or user.email != address or is_confirmed(user):
        return 0
    body = render_to_string(
        "accounts/confirmation_email.html",
        {
            "user": user,
            "link": confirmation_link(user),
            "days": max(1, settings.PASSWORD_RESET_TIMEOUT // 86400),
        },
    )
    send_mail("Confirm your e-mail address for Trackboard", body, None, [address])
    return 1


def mail_password_reset(address: str) -> int:
    """Mail a reset link to every active account of ``address`` that has a password (Django's
    own rule for resets); returns the messages sent (none for an unknown address). The body of
    ``tasks.send_password_reset``."""
    sent = 0
    for user in PasswordResetForm().get_users(address):
        uid = urlsafe_base64_encode(force_bytes(user.pk))
        token = default_token_generator.make_token(user)
        link = absolute(reverse("password_reset_confirm", kwargs={"uidb64": uid, "token": token}))
        body = render_to_string(
            "registration/password_reset_email.html", {"user": user, "link": link}
        )
        send_mail("Reset your Trackboard password", body, None, [user.email])
        sent += 1
    return sent
