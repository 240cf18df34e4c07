"""Token workflows: create (the key is returned once), renew, revoke, and look a key up."""

from __future__ import annotations

import datetime as dt
import hashlib
import secrets

from django.conf import settings
from django.contrib.auth.models import User
from django.db.models import QuerySet
from django.utils import timezone

from leaderboard.api.models import ApiToken, Scope
from leaderboard.challenges.factors import holds_secrets

#: Every key starts with this, so a leaked key is easy to recognise (and to grep for).
KEY_PREFIX = "tb_"
#: A token's ``last_used_at`` is written at most this often (one UPDATE, not one per request).
TOUCH_INTERVAL = dt.timedelta(minutes=1)
#: The lifetimes the profile page offers, in days; a new or renewed token lives the default.
LIFETIME_DAYS = (7, 30, 90, 365)
DEFAULT_LIFETIME_DAYS = 90


class TokenError(ValueError):
    """A token action that cannot be done; the message is safe to show the user."""


def digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def tokens_of(user: User) -> QuerySet[ApiToken]:
    return ApiToken.objects.filter(user=user)


def may_organise(user: User) -> bool:
    """Whether ``user`` may be given an "organise" token: those who hold secrets
    (``challenges.factors.holds_secrets``: staff, or an organiser of a challenge); anyone
    else's would do no more than a "team" one."""
    return holds_secrets(user)


def scopes_for(user: User) -> list[Scope]:
    """The scopes ``user`` may choose for a new token, narrowest first."""
    return [s for s in Scope if s != Scope.ORGANISE or may_organise(user)]


def create_token(
    user: User,
    name: str = "",
    *,
    scope: str = Scope.SUBMIT,
    days: int = DEFAULT_LIFETIME_DAYS,
) -> tuple[ApiToken, str]:
    """A new token for ``user`` that may do what ``scope`` allows for ``days`` days; returns
    the row and the key, which is never available again."""
    if scope not in scopes_for(user):
        raise TokenError("Only organisers of a challenge may make a token that organises.")
    if tokens_of(user).count() >= settings.API_MAX_TOKENS_PER_USER:
        raise TokenError(
            f"You already have {settings.API_MAX_TOKENS_PER_USER} tokens; revoke one first."
        )
    key = KEY_PREFIX + secrets.token_urlsafe(32)
    now = timezone.now()
    token = ApiToken.objects.create(
        user=user,
        name=name.strip()[:100],
        prefix=key[:10],
        digest=digest(key),
        scope=scope,
        created_at=now,
        expires_at=now + dt.timedelta(days=days),
    )
    return token, key


def renew_token(user: User, pk: int) -> ApiToken | None:
    """Give one of ``user``'s tokens (expired or not) the default lifetime from now; None when
    it is not theirs. The key stays the same: the programs holding it keep working."""
    token = tokens_of(user).filter(pk=pk).first()
    if token is None:
        return None
    token.expires_at = timezone.now() + dt.timedelta(days=DEFAULT_LIFETIME_DAYS)
    token.save(update_fields=["expires_at"])
    return token


def revoke_token(user: User, pk: int) -> bool:
    """Delete one of ``user``'s tokens; False when it is not theirs (or already gone)."""
    deleted, _ = tokens_of(user).filter(pk=pk).delete()
    return bool(deleted)


def token_for_key(key: str) -> ApiToken | None:
    """The token ``key`` is, when its user is active (expired or not: the caller says which),
    else None."""
    if not key.startswith(KEY_PREFIX):
        return None
    token = ApiToken.objects.select_related("user").filter(digest=digest(key)).first()
    if token is None or not token.user.is_active:
        return None
    return token


def touch(token: ApiToken) -> None:
    """Record that ``token`` was just accepted (at most one write per ``TOUCH_INTERVAL``)."""
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at > TOUCH_INTERVAL:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
