"""The links mailed to confirm an address: Django's own signed tokens (the password reset's
generator, with a salt of their own), so nothing is stored until the link is opened.

A token is made from the user, their current address, the address they confirmed (if any) and
the time: it stops working once that address is confirmed, when the address changes, and after
``PASSWORD_RESET_TIMEOUT`` (three days by default)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.tokens import PasswordResetTokenGenerator

from leaderboard.accounts.models import EmailConfirmation


class ConfirmationTokenGenerator(PasswordResetTokenGenerator):
    key_salt = "leaderboard.accounts.tokens.ConfirmationTokenGenerator"

    def _make_hash_value(self, user: Any, timestamp: int) -> str:
        confirmed = (
            EmailConfirmation.objects.filter(user=user).values_list("email", flat=True).first()
        )
        return f"{user.pk}|{user.email}|{confirmed or ''}|{timestamp}"


confirmation_tokens = ConfirmationTokenGenerator()
