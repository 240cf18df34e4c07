"""``{{ text|markdown }}``: a challenge page's Markdown as sanitised HTML (``challenges.pages``)."""

from __future__ import annotations

from django import template
from django.utils.safestring import SafeString, mark_safe

from leaderboard.challenges.pages import render

register = template.Library()


@register.filter
def markdown(text: str) -> SafeString:
    # sanitised by nh3 in ``render``
    return mark_safe(render(text))
