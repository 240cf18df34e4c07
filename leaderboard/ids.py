"""Row ids taken from requests."""

from __future__ import annotations

#: The largest id a row can have (a signed 64-bit integer, as Postgres and SQLite store it).
LARGEST = 2**63 - 1


def row_id(text: str) -> int | None:
    """The id written in ``text`` (decimal digits only), or None when no row can have it: the
    database is never asked about a number it cannot hold (SQLite raises on one)."""
    if not text.isascii() or not text.isdigit() or len(text) > 19:
        return None
    value = int(text)
    return value if 0 < value <= LARGEST else None
