from __future__ import annotations

from django.urls import path

from leaderboard.rankings import views

app_name = "rankings"
urlpatterns = [
    path(
        "challenges/<slug:slug>/<slug:phase>/leaderboard/",
        views.phase_leaderboard,
        name="leaderboard",
    ),
]
