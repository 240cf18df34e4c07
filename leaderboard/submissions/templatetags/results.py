"""Formatting for the result page: a change between two scores, with its sign."""

from __future__ import annotations

from django import template

register = template.Library()


@register.filter
def signed(value: float | None) -> str:
    """``+1.25``, ``\u22120.50`` (U+2212 MINUS SIGN) or ``0.00``: two decimals, never ``-0.00``."""
    if value is None:
        return "—"
    shown = f"{abs(value):.2f}"
    if shown == "0.00":
        return shown
    return ("+" if value > 0 else "\u2212") + shown
