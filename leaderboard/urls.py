"""URL map. No route serves private storage: references and prediction files have no URL."""

from __future__ import annotations

from django.contrib import admin
from django.urls import include, path

from leaderboard.accounts.views import ResetConfirmView, ResetView
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
    path("accounts/", include("leaderboard.accounts.urls")),
    # The password reset's form and new-password page, before Django's own of the same names
    # and paths: the mail goes out from a worker, limits apply, a reset lifts the log-in lock.
    path("accounts/password_reset/", ResetView.as_view(), name="password_reset"),
    path(
        "accounts/reset/<uidb64>/<token>/",
        ResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    # allauth's log-in (the password, then the second factor's code when the person has one),
    # its account pages and the second factor's pages (``mfa_*``), before Django's log-in.
    path("accounts/", include("allauth.urls")),
    # login, logout (POST), password_change*, password_reset_done/_complete under their
    # default names.
    path("accounts/", include("django.contrib.auth.urls")),
    path("teams/", include("leaderboard.teams.urls")),
    path("", include("leaderboard.rankings.urls")),
    path("", include("leaderboard.submissions.urls")),
    path("", include("leaderboard.challenges.urls")),
]
