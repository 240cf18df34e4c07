"""Formatting for the result page: a change between two scores, with its sign."""

from __future__ import annotations

from django import template

from leaderboard import numbers

register = template.Library()


@register.filter
def signed(value: float | None) -> str:
    """A change with its sign, written as the leaderboard and its charts write one
    (``leaderboard.numbers.signed``)."""
    return numbers.signed(value)
