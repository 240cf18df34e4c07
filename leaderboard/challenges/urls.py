from __future__ import annotations

from django.urls import path

from leaderboard.challenges import organise, views

app_name = "challenges"
urlpatterns = [
    path("", views.challenge_list, name="list"),
    path("challenges/<slug:slug>/", views.detail, name="detail"),
    path("challenges/<slug:slug>/register/", views.register, name="register"),
    path("challenges/<slug:slug>/organise/", organise.organise, name="organise"),
    path(
        "challenges/<slug:slug>/organise/registrations/<int:pk>/",
        organise.decide,
        name="decide",
    ),
    path(
        "challenges/<slug:slug>/organise/references/<int:pk>/",
        organise.review_reference,
        name="review_reference",
    ),
    path(
        "challenges/<slug:slug>/organise/submissions/<int:pk>/files.zip",
        organise.submission_files,
        name="submission_files",
    ),
    path(
        "challenges/<slug:slug>/organise/<slug:phase>/files.zip",
        organise.phase_files,
        name="phase_files",
    ),
    path(
        "challenges/<slug:slug>/organise/<slug:phase>/rescore/",
        organise.rescore_phase,
        name="rescore",
    ),
]
