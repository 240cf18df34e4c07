"""The leaderboard page of a phase; ``?fragment=1`` returns only its tables (for polling)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.cache import add_never_cache_headers

from leaderboard.challenges.models import Phase
from leaderboard.challenges.services import can_see_results
from leaderboard.rankings.charts import CHART_LIMIT
from leaderboard.rankings.services import leaderboard

#: Seconds between two refreshes of the tables by the page's script.
REFRESH_SECONDS = 5


def phase_leaderboard(request: HttpRequest, slug: str, phase: str) -> HttpResponse:
    selected = get_object_or_404(
        Phase.objects.select_related("challenge"), challenge__slug=slug, slug=phase
    )
    visible = can_see_results(selected, request.user)
    context = {
        "phase": selected,
        "challenge": selected.challenge,
        "visible": visible,
        "board": leaderboard(selected) if visible else None,
        "refresh_seconds": REFRESH_SECONDS,
        "chart_limit": CHART_LIMIT,
    }
    if request.GET.get("fragment") == "1":
        response = render(request, "rankings/tables.html", context)
    else:
        response = render(request, "rankings/leaderboard.html", context)
    add_never_cache_headers(response)
    return response
