"""Formatting of scores and intervals, shared by the leaderboard and the result pages."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from django import template
from django.core.serializers.json import DjangoJSONEncoder
from django.utils.html import format_html
from django.utils.safestring import mark_safe

from leaderboard import numbers
from leaderboard.numbers import MISSING
from leaderboard.rankings import charts

register = template.Library()


@register.filter
def score(value: float | None) -> str:
    """A percentage with two decimals, or a dash."""
    return numbers.score(value)


@register.filter
def signed(value: float | None) -> str:
    """A change in points with its sign (``+1.20``), as the charts write it."""
    return numbers.signed(value)


@register.filter
def detail_value(value: Any) -> str:
    """A scorer detail as text: a float with two decimals, a count or setting as it is."""
    if value is None:
        return MISSING
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return numbers.score(value)
    return str(value)


@register.simple_tag
def with_ci(value: float | None, low: float | None, high: float | None) -> str:
    """``17.93 [16.80, 19.05]`` as HTML, the interval in a smaller, labelled span."""
    if value is None:
        return format_html('<span class="missing" title="no score">{}</span>', MISSING)
    if low is None or high is None:
        return format_html("{}", numbers.score(value))
    return format_html(
        '{} <span class="ci" title="95% confidence interval">[{}, {}]</span>',
        numbers.score(value),
        numbers.score(low),
        numbers.score(high),
    )


@register.filter
def signatures(rows: Iterable[Any]) -> list[str]:
    """The distinct scorer signatures of a table's rows, in first-seen order."""
    seen: dict[str, None] = {}
    for row in rows:
        if row.signature:
            seen.setdefault(row.signature, None)
    return list(seen)


@register.filter
def get_item(mapping: Any, key: str) -> Any:
    """``mapping[key]`` in a template, None when absent."""
    try:
        return mapping.get(key)
    except AttributeError:
        return None


@register.filter
def turn_marks(flags: str) -> str:
    """``"1101"`` as ``✓✓✗✓``: the scorer's per-turn verdicts of one dialogue."""
    return "".join("\u2713" if flag == "1" else "\u2717" for flag in flags or "")


@register.filter
def pair_with(only_a: list[Any], only_b: list[Any]) -> list[tuple[str, list[Any], str]]:
    """The two sides of a comparison as (side, rows, other side), for one template loop."""
    return [("A", only_a, "B"), ("B", only_b, "A")]


@register.filter
def primary_column(columns: Iterable[Any]) -> Any:
    """The ranked column of a board (``rankings.columns.Column`` with ``primary`` set)."""
    return next((c for c in columns if c.primary), None)


@register.filter
def condition_symbols(board: Any) -> list[tuple[str, str]]:
    """(condition label, marker name) as the board's scatter chart draws them."""
    return charts.condition_symbols(board)


#: What ``django.utils.html.json_script`` escapes: the JSON cannot close the script element.
_SCRIPT_ESCAPES = {ord(">"): "\\u003E", ord("<"): "\\u003C", ord("&"): "\\u0026"}


@register.filter
def compact_json_script(value: Any, element_id: str) -> str:
    """``json_script`` without the spaces after separators (a tenth of a large board's
    chart data), escaped the same way."""
    text = json.dumps(value, cls=DjangoJSONEncoder, separators=(",", ":"))
    return format_html(
        '<script id="{}" type="application/json">{}</script>',
        element_id,
        mark_safe(text.translate(_SCRIPT_ESCAPES)),
    )


@register.filter
def first_rows(rows: Sequence[Any], limit: int | None) -> Sequence[Any]:
    """The first ``limit`` rows of a table (every row when ``limit`` is None)."""
    return rows if limit is None else rows[:limit]
