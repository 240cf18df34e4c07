"""URL map. No route serves private storage: references and prediction files have no URL."""

from __future__ import annotations

from django.contrib import admin
from django.urls import include, path

from leaderboard.api.views import Index as ApiIndex
from leaderboard.operations.health import healthz, livez, readyz, readyz_web
from leaderboard.operations.metrics import metrics

handler400 = "leaderboard.views.bad_request"
handler500 = "leaderboard.views.server_error"

urlpatterns = [
    path("admin/", admin.site.urls),
    path("livez", livez, name="livez"),
    path("healthz", healthz, name="healthz"),
    path("readyz", readyz, name="readyz"),
    path("readyz/web", readyz_web, name="readyz-web"),
    path("metrics", metrics, name="metrics"),
    # the same index as /api/v1/: where a visitor trying /api/ lands
    path("api/", ApiIndex.as_view(), name="api-root"),
    path("api/v1/", include("leaderboard.api.urls")),
    # the site's own account pages (profile, mail choice, data, deletion, tokens), then
    # django-allauth's: sign-up, confirmation, log-in/out, password reset and change, identity
    # providers
    path("accounts/", include("leaderboard.accounts.urls")),
    path("accounts/", include("allauth.urls")),
    path("teams/", include("leaderboard.teams.urls")),
    path("", include("leaderboard.rankings.urls")),
    path("", include("leaderboard.submissions.urls")),
    path("", include("leaderboard.challenges.urls")),
]
