"""URL map. No route serves private storage: references and prediction files have no URL."""

from __future__ import annotations

from django.contrib import admin
from django.urls import include, path

from leaderboard.operations.health import healthz, readyz

handler500 = "leaderboard.views.server_error"

urlpatterns = [
    path("admin/", admin.site.urls),
    path("healthz", healthz, name="healthz"),
    path("readyz", readyz, name="readyz"),
    path("api/v1/", include("leaderboard.api.urls")),
    path("accounts/", include("leaderboard.accounts.urls")),
    # login, logout (POST), password_change*, password_reset* under their default names.
    path("accounts/", include("django.contrib.auth.urls")),
    path("teams/", include("leaderboard.teams.urls")),
    path("", include("leaderboard.rankings.urls")),
    path("", include("leaderboard.submissions.urls")),
    path("", include("leaderboard.challenges.urls")),
]
