"""One way to show a moment on every page: ``30 Nov 2026 14:05 UTC``, 24-hour, in the site's
time zone (``TIME_ZONE``, UTC unless the operator sets another) with the zone's name, inside a
``<time>`` element whose ``datetime`` is the exact ISO 8601 instant. ``static/js/times.js``
rewrites the text in the same format in the reader's own zone when the browser reports it."""

from __future__ import annotations

import datetime as dt

from django import template
from django.utils import timezone
from django.utils.dateformat import format as date_format
from django.utils.html import format_html
from django.utils.safestring import SafeString

register = template.Library()

#: Day, month, year, 24-hour time and the zone's abbreviation.
FORMAT = "j M Y H:i T"


@register.filter
def moment(value: dt.datetime | None) -> str:
    """``value`` as text in the current time zone, zone named (``—`` when there is none)."""
    if value is None:
        return "—"
    if timezone.is_aware(value):
        value = timezone.localtime(value)
    return date_format(value, FORMAT)


@register.filter
def when(value: dt.datetime | None) -> SafeString | str:
    """``value`` as a ``<time>`` element: readable text, machine-readable ``datetime``."""
    if value is None:
        return "—"
    return format_html('<time datetime="{}">{}</time>', value.isoformat(), moment(value))
