from __future__ import annotations

from django.urls import include, path

from leaderboard.challenges import views
from leaderboard.challenges.feeds import AnnouncementFeed

app_name = "challenges"
urlpatterns = [
    path("", views.challenge_list, name="list"),
    path("challenges/<slug:slug>/", views.detail, name="detail"),
    path("challenges/<slug:slug>/register/", views.register, name="register"),
    path(
        "challenges/<slug:slug>/announcements.atom",
        AnnouncementFeed(),
        name="announcements_feed",
    ),
    path(
        "challenges/<slug:slug>/<slug:phase>/data/<slug:condition>/sample.json",
        views.sample,
        name="sample",
    ),
    path(
        "challenges/<slug:slug>/<slug:phase>/data/files/<int:pk>/",
        views.phase_file,
        name="phase_file",
    ),
    path(
        "challenges/<slug:slug>/<slug:phase>/data/<slug:condition>/<slug:name>/",
        views.reference_file,
        name="reference_file",
    ),
    # the organisers' pages of a challenge (leaderboard.organisers), named in this namespace
    path("", include("leaderboard.organisers.urls")),
]
