"""How the site writes a score: two decimals, a dash when there is none, never ``-0.00``;
a change between two scores with its sign (the tables, the charts and their legends alike)."""

from __future__ import annotations

#: Shown where a metric has no value (no turns scored, or not computed).
MISSING = "—"
MINUS = "\u2212"


def score(value: float | None) -> str:
    """``17.93``; a value that rounds to zero is ``0.00`` whatever its sign."""
    if value is None:
        return MISSING
    text = f"{value:.2f}"
    return "0.00" if text == "-0.00" else text


def signed(value: float | None) -> str:
    """``+1.20``, ``-3.45`` (written with a true minus sign, U+2212) or ``0.00`` for a change
    that rounds to none."""
    if value is None:
        return MISSING
    text = score(abs(value))
    if text == "0.00":
        return text
    return ("+" if value > 0 else MINUS) + text
