"""Formatting of scores and intervals, shared by the leaderboard and the result pages."""

from __future__ import annotations

import json
from typing import Any

from django import template
from django.core.serializers.json import DjangoJSONEncoder
from django.utils.html import format_html
from django.utils.safestring import mark_safe

from leaderboard import numbers, plotting
from leaderboard.numbers import MISSING

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


@register.simple_tag
def rank_ci(row: Any) -> str:
    """A row's rank interval as HTML, ``[2-5]`` with an en dash (``[3]`` for a single rank), in
    a smaller span; nothing when it has none."""
    low, high = getattr(row, "rank_low", None), getattr(row, "rank_high", None)
    if low is None or high is None:
        return ""
    shown = str(low) if low == high else f"{low}\u2013{high}"
    # explained once, in the table's header and caption: the page repeats it on every row
    return format_html('<span class="rank-ci">[{}]</span>', shown)


@register.simple_tag
def scored(count: int | None) -> str:
    """The scored submissions behind a row, as HTML after its score (a space before it);
    nothing when the row does not say (snapshots published before they were counted, or a
    column other than the ranked one: ``rankings.pages.Figures``)."""
    if count is None:
        return ""
    return format_html(' <span class="scored">{} scored</span>', count)


@register.filter
def places(change: int | None) -> str:
    """Places gained as the shake-up writes them: ``+2``, ``-1`` (with a minus sign), ``±0``."""
    if change is None:
        return MISSING
    if change == 0:
        return "\u00b10"
    return f"+{change}" if change > 0 else f"\u2212{-change}"


@register.filter
def correlation(value: float | None) -> str:
    """A rank correlation with two decimals (a minus sign for negatives), or a dash."""
    if value is None:
        return MISSING
    text = f"{value:.2f}"
    return "0.00" if text == "-0.00" else text.replace("-", numbers.MINUS)


@register.filter
def baseline_method(method: str) -> str:
    """A baseline's method marked as one, unless its name already says so."""
    return plotting.baseline_method(method)


@register.filter
def turn_marks(flags: str) -> str:
    """``"1101"`` as ``✓✓✗✓``: the scorer's per-turn verdicts of one dialogue."""
    return "".join("\u2713" if flag == "1" else "\u2717" for flag in flags or "")


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
