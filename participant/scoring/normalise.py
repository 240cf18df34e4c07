"""Slot-key and value normalisation for the ``dstc11`` task (docs/scoring.md).

The same function is applied to the gold and to the prediction. Results are memoised: a
MultiWOZ file repeats a few thousand distinct (slot, value) pairs tens of thousands of times.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

PROFILES = ("default", "strict")
TIME_SLOTS = frozenset({"arriveby", "leaveat", "time"})
_SLOT_ALIASES = {"arrive": "arriveby", "leave": "leaveat"}

_WHITESPACE = re.compile(r"\s+")
_DELETED = str.maketrans("", "", "()\u2019'")
# h:mm am, h am, hpm (space optional); h is one or two digits, mm exactly two.
_CLOCK_12 = re.compile(r"(\d{1,2})(?::(\d{2}))? ?(am|pm)")
_CLOCK_24 = re.compile(r"(\d{1,2}):(\d{2})")
_FOUR_DIGITS = re.compile(r"(\d{2})(\d{2})")


@lru_cache(maxsize=4096)
def slot_key(domain: str, slot: str) -> str:
    """Return the canonical ``domain-slot`` key.

    Domain and slot are lower-cased and trimmed, spaces are removed from the slot, a leading
    ``book`` is dropped (``bookday`` is ``day``) and ``arrive``/``leave`` become
    ``arriveby``/``leaveat``.
    """
    domain = domain.strip().lower()
    name = slot.strip().lower().replace(" ", "")
    if name.startswith("book") and len(name) > 4:
        name = name[4:]
    name = _SLOT_ALIASES.get(name, name)
    return f"{domain}-{name}"


def split_key(key: str) -> tuple[str, str]:
    """Split a canonical key into (domain, slot)."""
    domain, _, slot = key.partition("-")
    return domain, slot


def normalise_time(text: str) -> str:
    """Return ``HH:MM`` for the clock formats of the default profile; other text unchanged."""
    match = _CLOCK_12.fullmatch(text)
    if match:
        hour, minutes, half = int(match[1]), match[2] or "00", match[3]
        if hour > 12:
            return text
        # 12 am is midnight and 12 pm noon; other pm hours gain 12.
        hour = hour % 12 + (12 if half == "pm" else 0)
        return f"{hour:02d}:{minutes}"
    match = _CLOCK_24.fullmatch(text) or _FOUR_DIGITS.fullmatch(text)
    if match and int(match[1]) < 24:
        return f"{int(match[1]):02d}:{match[2]}"
    return text


def _default(slot: str, value: str) -> str | None:
    text = value.lower().translate(_DELETED).replace("&", " and ")
    text = _WHITESPACE.sub(" ", text).strip()
    if not text or text == "none":
        return None
    if text == "dont care":
        return "dontcare"
    if slot in TIME_SLOTS:
        return normalise_time(text)
    return text


def _strict(slot: str, value: str) -> str | None:
    text = value.lower().strip()
    return text or None


def value_normaliser(profile: str) -> Callable[[str, str], str | None]:
    """Return the memoised ``(slot, raw value) -> value or None (absent)`` function of a profile.

    ``slot`` is the slot part of a canonical key (``leaveat``), which decides whether the time
    rules apply.
    """
    if profile == "default":
        return _default_cached
    if profile == "strict":
        return _strict_cached
    from scoring.errors import ScoringError

    raise ScoringError(
        f"unknown normalisation profile {profile!r}; choose one of: " + ", ".join(PROFILES)
    )


_default_cached = lru_cache(maxsize=65536)(_default)
_strict_cached = lru_cache(maxsize=65536)(_strict)
