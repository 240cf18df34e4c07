"""Token workflows: create (the key is returned once), revoke, and look a key up."""

from __future__ import annotations

import datetime as dt
import hashlib
import secrets

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db.models import QuerySet
from django.utils import timezone

from leaderboard.api.models import ApiToken

#: Every key starts with this, so a leaked key is easy to recognise (and to grep for).
KEY_PREFIX = "tb_"
#: A token's ``last_used_at`` is written at most this often (one UPDATE, not one per request).
TOUCH_INTERVAL = dt.timedelta(minutes=1)


class TokenError(ValueError):
    """A token action that cannot be done; the message is safe to show the user."""


def digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def tokens_of(user: AbstractBaseUser) -> QuerySet[ApiToken]:
    return ApiToken.objects.filter(user=user)


def create_token(user: AbstractBaseUser, name: str = "") -> tuple[ApiToken, str]:
    """A new token for ``user``; returns the row and the key, which is never available again."""
    if tokens_of(user).count() >= settings.API_MAX_TOKENS_PER_USER:
        raise TokenError(
            f"You already have {settings.API_MAX_TOKENS_PER_USER} tokens; revoke one first."
        )
    key = KEY_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(
        user=user, name=name.strip()[:100], prefix=key[:10], digest=digest(key)
    )
    return token, key


def revoke_token(user: AbstractBaseUser, pk: int) -> bool:
    """Delete one of ``user``'s tokens; False when it is not theirs (or already gone)."""
    deleted, _ = tokens_of(user).filter(pk=pk).delete()
    return bool(deleted)


def user_for_key(key: str) -> AbstractBaseUser | None:
    """The active user a key belongs to, or None; records when the token was last used."""
    if not key.startswith(KEY_PREFIX):
        return None
    token = ApiToken.objects.select_related("user").filter(digest=digest(key)).first()
    if token is None or not token.user.is_active:
        return None
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at > TOUCH_INTERVAL:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
    return token.user
