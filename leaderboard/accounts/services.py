"""Account rules the site keeps beside django-allauth's flows: one account per address whatever
its capitals, and an address counted as confirmed by an operator (``confirm_address``) or by the
demo. The confirmed address's single record is allauth's ``EmailAddress(verified=True)``."""

from __future__ import annotations

from allauth.account.models import EmailAddress
from axes.utils import reset as reset_login_failures
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import transaction

from leaderboard.security import login_username


class AccountError(ValueError):
    """An account action that cannot be done; the message is safe to show the user."""


TAKEN = (
    "An account already uses this e-mail address (addresses are the same whatever their "
    "capitals). Log in to it, or reset its password if you forgot it."
)


def address_taken(address: str, *, exclude: User | None = None) -> bool:
    """Whether another account has ``address``, ignoring case."""
    found = get_user_model().objects.filter(email__iexact=address.strip())
    if exclude is not None:
        found = found.exclude(pk=exclude.pk)
    return found.exists()


@transaction.atomic
def confirm(user: User) -> None:
    """Record ``user``'s current address as confirmed: their one address (as after allauth's
    change of address, any other is dropped), primary."""
    address = getattr(user, "email", "")
    EmailAddress.objects.filter(user=user).exclude(email__iexact=address).delete()
    updated = EmailAddress.objects.filter(user=user).update(primary=True, verified=True)
    if not updated:
        EmailAddress.objects.create(user=user, email=address.lower(), primary=True, verified=True)


def lift_login_lock(sender: object, user: User | None = None, **_: object) -> None:
    """Forget the failed log-ins to ``user``'s account, from every address, so a lock they put
    on it is lifted (the receiver of allauth's ``password_reset`` signal: whoever reset the
    password reads the account's mail). Failures are recorded by what was typed, the username
    or an address of the account."""
    if user is None:
        return
    names = [
        user.get_username(),
        *EmailAddress.objects.filter(user=user).values_list("email", flat=True),
    ]
    for name in names:
        username = login_username(None, {"username": name})
        if username:
            reset_login_failures(username=username)
