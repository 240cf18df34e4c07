from __future__ import annotations

from django.urls import include, path

from leaderboard.challenges import views

app_name = "challenges"
urlpatterns = [
    path("", views.challenge_list, name="list"),
    path("challenges/<slug:slug>/", views.detail, name="detail"),
    path("challenges/<slug:slug>/register/", views.register, name="register"),
    # the organisers' pages of a challenge (leaderboard.organisers), named in this namespace
    path("", include("leaderboard.organisers.urls")),
]
