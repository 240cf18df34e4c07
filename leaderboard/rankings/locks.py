"""The lock of a board's rebuild, in the cache: one builder at a time per board
(``services.leaderboard``), and the reservation that an upload, a re-score or a scored
submission makes for the worker that builds its phase's board next (``reserve``).

Without the reservation, the lock is free from the moment a scoring commits until that
worker's task arrives, and under steady reading a reader nearly always takes it first: the
web processes then build every board (a second or more of CPU each at 500 teams) while the
worker finds the lock taken and does nothing. Reserved, readers get the last board built
until the worker has built the new one; a reservation whose task never comes (broker down,
worker gone) expires after ``LEADERBOARD_REBUILD_SECONDS``, and the next reader builds the
board.

A builder holds the lock for up to ``HOLD_SECONDS``: a build takes a second or two at 500 teams
on an idle machine and many more on a busy one, where a second builder taking over would only
slow the first down further. That bound is for a builder that died: readers get the last board
built meanwhile.
"""

from __future__ import annotations

import secrets

from django.conf import settings
from django.core.cache import cache

#: Part of every key of the boards' cache entries (``services``): bump it when a release
#: changes what a cached board holds.
CACHE_VERSION = 7

#: Seconds a builder holds a board's lock at most (a builder that died holds it that long).
HOLD_SECONDS = 60


def lock_key(phase_id: int, part: str = "public") -> str:
    return f"leaderboard:v{CACHE_VERSION}:phase:{phase_id}:{part}:rebuilding"


def reserve(phase_id: int, part: str = "public") -> str:
    """Take the lock of the phase's board for the worker task about to be sent: its token, or
    ``""`` when someone holds the lock already (that builder goes on to the newest version)
    or the cache is down."""
    token = secrets.token_hex(8)
    held = cache.add(lock_key(phase_id, part), token, settings.LEADERBOARD_REBUILD_SECONDS)
    return token if held else ""


def handed_over(phase_id: int, part: str = "public") -> str:
    """The lock, held by the caller, reserved for the worker task about to be sent instead:
    its new token (as ``reserve``)."""
    token = secrets.token_hex(8)
    cache.set(lock_key(phase_id, part), token, settings.LEADERBOARD_REBUILD_SECONDS)
    return token


def release(phase_id: int, token: str, part: str = "public") -> None:
    """Give back a reservation whose task could not be sent (the next reader builds)."""
    if token and cache.get(lock_key(phase_id, part)) == token:
        cache.delete(lock_key(phase_id, part))
