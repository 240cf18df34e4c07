"""The client address every per-address limit counts (log-ins, API throttles, rejected
uploads), from one setting: ``TRUSTED_PROXIES``."""

from __future__ import annotations

from typing import Any

from django.conf import settings


def client_address(request: Any) -> str:
    """``REMOTE_ADDR``, or behind ``TRUSTED_PROXIES`` proxies the entry of ``X-Forwarded-For``
    that many from the right (the one the outermost trusted proxy wrote). Entries further left
    were written by the client and are never read, so a client cannot choose its address.
    DRF's rule for ``NUM_PROXIES``, which settings.py sets from the same value."""
    meta = request.META
    remote = meta.get("REMOTE_ADDR", "")
    proxies = settings.TRUSTED_PROXIES
    forwarded = meta.get("HTTP_X_FORWARDED_FOR")
    if not proxies or not forwarded:
        return remote
    entries = forwarded.split(",")
    return entries[-min(proxies, len(entries))].strip()[:64] or remote
