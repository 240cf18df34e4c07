"""Readers of environment variables for settings.py.

Each takes the variable's name and a default (used when the variable is unset or empty), and
raises ``ImproperlyConfigured`` naming the variable when it cannot read the value: a typo in a
deployment stops the process at start-up instead of falling back silently to a default.
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import unquote, urlsplit

from django.core.exceptions import ImproperlyConfigured

RATE_PERIODS = frozenset({"s", "sec", "second", "m", "min", "minute", "h", "hour", "d", "day"})


def env_str(name: str, default: str) -> str:
    """The variable as it is; ``default`` only when it is unset (an empty value stays empty)."""
    return os.environ.get(name, default)


def env_bool(name: str, default: bool) -> bool:
    """``true``/``false``, ``1``/``0``, ``yes``/``no`` or ``on``/``off``, in any case."""
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    value = raw.strip().lower()
    if value in {"1", "true", "yes", "on"}:
        return True
    if value in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfigured(f"{name}={raw!r} is not a boolean (use true/false, 1/0, yes/no)")


def env_int(name: str, default: int, *, minimum: int | None = None) -> int:
    """A whole number, at least ``minimum`` when one is given."""
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not an integer") from None
    if minimum is not None and value < minimum:
        raise ImproperlyConfigured(f"{name}={value} must be at least {minimum}")
    return value


def env_float(name: str, default: float, *, minimum: float | None = None) -> float:
    """A number, at least ``minimum`` when one is given."""
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not a number") from None
    if minimum is not None and value < minimum:
        raise ImproperlyConfigured(f"{name}={value} must be at least {minimum}")
    return value


def env_list(name: str, default: list[str]) -> list[str]:
    """Comma-separated items, blanks dropped; set but empty means an empty list."""
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def env_path(name: str, default: Path) -> Path:
    """An absolute path (``~`` expanded, resolved against the working directory)."""
    raw = os.environ.get(name)
    return Path(raw).expanduser().resolve() if raw else default


def env_rate(name: str, default: str) -> str:
    """A DRF throttle rate such as ``30/hour`` or ``5/min``."""
    raw = env_str(name, default).strip()
    count, _, period = raw.partition("/")
    if not count.isdigit() or period not in RATE_PERIODS:
        raise ImproperlyConfigured(f"{name}={raw!r} is not a rate like 30/hour or 5/min")
    return raw


def env_account_rate(name: str, default: str, per: str) -> str:
    """An ``env_rate`` (``10/hour``) as django-allauth's limits write it (``10/1h/ip``),
    counted ``per`` client address (``ip``), per address or account asked for (``key``) or per
    signed-in user (``user``)."""
    count, _, period = env_rate(name, default).partition("/")
    return f"{count}/1{period[0]}/{per}"


def env_client(id_variable: str, secret_variable: str) -> tuple[str, str] | None:
    """An identity provider's client id and secret, or None when neither is set."""
    client_id, secret = env_str(id_variable, "").strip(), env_str(secret_variable, "").strip()
    if bool(client_id) != bool(secret):
        raise ImproperlyConfigured(
            f"{id_variable} and {secret_variable} go together: set both, or neither to offer "
            "no sign-in through that provider"
        )
    return (client_id, secret) if client_id else None


def env_site_url(name: str, default: str) -> str:
    """An ``http(s)://host[:port][/prefix]`` address, without a trailing slash."""
    raw = env_str(name, default).strip()
    parts = urlsplit(raw)
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.query or parts.fragment:
        raise ImproperlyConfigured(
            f"{name}={raw!r} is not a site address like https://trackboard.example.org"
        )
    return raw.rstrip("/")


def database_from_url(url: str, *, conn_max_age: int = 0, test_name: str = "") -> dict[str, object]:
    """Django's DATABASES entry for ``postgres://user:password@host:port/name?options``.

    The query string becomes the connection's OPTIONS (``?sslmode=require``). Written here
    rather than depending on dj-database-url: we accept one scheme and four fields. Errors name
    DATABASE_URL, the variable settings.py reads the URL from.
    """
    parts = urlsplit(url)
    if parts.scheme not in {"postgres", "postgresql"}:
        raise ImproperlyConfigured(
            f"DATABASE_URL scheme {parts.scheme!r} is not supported; use postgres://"
        )
    name = unquote(parts.path.lstrip("/"))
    if not name:
        raise ImproperlyConfigured("DATABASE_URL has no database name (postgres://.../NAME)")
    try:
        port = parts.port
    except ValueError:
        raise ImproperlyConfigured("DATABASE_URL has an invalid port") from None
    options: dict[str, str] = {}
    for pair in filter(None, parts.query.split("&")):
        key, _, value = pair.partition("=")
        options[unquote(key)] = unquote(value)
    config: dict[str, object] = {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": name,
        "USER": unquote(parts.username or ""),
        "PASSWORD": unquote(parts.password or ""),
        "HOST": parts.hostname or "",
        "PORT": str(port or ""),
        "OPTIONS": options,
        "CONN_MAX_AGE": conn_max_age,
        "CONN_HEALTH_CHECKS": True,
    }
    if test_name:
        config["TEST"] = {"NAME": test_name}
    return config


def parse_rate(rate: str) -> tuple[int, int]:
    """``30/hour`` -> (30, 3600): the count and the window in seconds of a rate that
    :func:`env_rate` accepted."""
    count, _, period = rate.partition("/")
    seconds = {"s": 1, "m": 60, "h": 3600, "d": 86400}[period[0]]
    return int(count), seconds
