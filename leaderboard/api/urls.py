"""``/api/v1/``: the endpoints (docs/api.md), the OpenAPI schema and its docs page."""

from __future__ import annotations

from django.urls import path, re_path
from django.views.decorators.gzip import gzip_page
from drf_spectacular.views import (
    SpectacularAPIView,
    SpectacularRedocView,
    SpectacularSwaggerSplitView,
)
from rest_framework.permissions import AllowAny

from leaderboard.api import organise, papers, views

app_name = "api"
urlpatterns = [
    path("", views.Index.as_view(), name="index"),
    path("challenges/", views.ChallengeList.as_view(), name="challenges"),
    path("challenges/<slug:slug>/", views.ChallengeDetail.as_view(), name="challenge"),
    path(
        "challenges/<slug:slug>/announcements/",
        views.ChallengeAnnouncements.as_view(),
        name="announcements",
    ),
    path(
        "challenges/<slug:slug>/register/",
        views.ChallengeRegister.as_view(),
        name="register",
    ),
    path(
        "challenges/<slug:slug>/registrations/",
        views.ChallengeRegistrations.as_view(),
        name="registrations",
    ),
    path(
        "phases/<int:pk>/leaderboard/",
        # compressed: the board holds no secret (rankings.caching)
        gzip_page(views.PhaseLeaderboard.as_view()),
        name="leaderboard",
    ),
    path(
        "phases/<int:pk>/leaderboard.csv",
        gzip_page(views.PhaseLeaderboardCSV.as_view()),
        name="leaderboard-csv",
    ),
    path(
        "phases/<int:pk>/samples/<slug:condition>/",
        views.ConditionSample.as_view(),
        name="sample",
    ),
    path("phases/<int:pk>/table/", papers.PhaseTable.as_view(), name="table"),
    path("phases/<int:pk>/pairwise/", papers.PhasePairwise.as_view(), name="pairwise"),
    path("phases/<int:pk>/errors/", papers.PhaseErrors.as_view(), name="errors"),
    path("phases/<int:pk>/robustness/", papers.PhaseRobustness.as_view(), name="robustness"),
    path("phases/<int:pk>/shakeup/", papers.PhaseShakeup.as_view(), name="shakeup"),
    path("phases/<int:pk>/submissions/", views.SubmissionCreate.as_view(), name="submit"),
    path("phases/<int:pk>/history/", views.PhaseHistory.as_view(), name="history"),
    path("submissions/", views.SubmissionList.as_view(), name="submissions"),
    path("submissions/<int:pk>/", views.SubmissionDetail.as_view(), name="submission"),
    path("submissions/<int:pk>/cancel/", views.SubmissionCancel.as_view(), name="cancel"),
    path("teams/", views.TeamCreate.as_view(), name="teams"),
    path("teams/mine/", views.TeamsMine.as_view(), name="teams-mine"),
    path("teams/<slug:slug>/join/", views.TeamJoin.as_view(), name="team-join"),
    path("teams/<slug:slug>/leave/", views.TeamLeave.as_view(), name="team-leave"),
    path("teams/<slug:slug>/invite/", views.TeamInvite.as_view(), name="team-invite"),
    path("me/export/", views.MeExport.as_view(), name="me-export"),
    path(
        "organise/phases/<int:pk>/submissions/",
        organise.PhaseSubmissions.as_view(),
        name="organise-submissions",
    ),
    path(
        "organise/phases/<int:pk>/results/",
        organise.PhaseResults.as_view(),
        name="organise-results",
    ),
    path(
        "organise/phases/<int:pk>/archive/",
        organise.PhaseArchive.as_view(),
        name="organise-archive",
    ),
    path(
        "organise/phases/<int:pk>/snapshots/",
        organise.PhaseSnapshots.as_view(),
        name="organise-snapshots",
    ),
    path("organise/phases/<int:pk>/files/", organise.PhaseFiles.as_view(), name="organise-files"),
    path("organise/phases/<int:pk>/audit/", organise.PhaseAudit.as_view(), name="organise-audit"),
    path(
        "schema/",
        SpectacularAPIView.as_view(permission_classes=[AllowAny]),
        name="schema",
    ),
    path(
        "docs/",
        SpectacularSwaggerSplitView.as_view(url_name="api:schema", permission_classes=[AllowAny]),
        name="docs",
    ),
    path("redoc/redoc.standalone.js", views.RedocBundle.as_view(), name="redoc-bundle"),
    path(
        "redoc/",
        SpectacularRedocView.as_view(url_name="api:schema", permission_classes=[AllowAny]),
        name="redoc",
    ),
    # anything else (the index answers the empty path), a line break included: the API's own
    # 404, not the site's page
    re_path(r"^(?P<rest>[\s\S]+)$", views.NotFound.as_view(), name="not-found"),
]
