"""The organisers' pages of a challenge, under ``challenges/<slug>/organise/``.

``challenges.urls`` includes them, so their names stay in the ``challenges`` namespace
(``challenges:organise``, ``challenges:decide``, ...): they are pages of a challenge."""

from __future__ import annotations

from django.urls import path

from leaderboard.organisers import views, withdrawals

_ORGANISE = "challenges/<slug:slug>/organise/"
urlpatterns = [
    path(_ORGANISE, views.organise, name="organise"),
    path(f"{_ORGANISE}registrations/<int:pk>/", views.decide, name="decide"),
    path(f"{_ORGANISE}organisers/", views.co_organisers, name="co_organisers"),
    path(f"{_ORGANISE}announcements/", views.announce, name="announce"),
    path(
        f"{_ORGANISE}announcements/<int:pk>/delete/",
        views.delete_announcement,
        name="delete_announcement",
    ),
    path(f"{_ORGANISE}references/<int:pk>/", views.review_reference, name="review_reference"),
    path(
        f"{_ORGANISE}submissions/<int:pk>/files.zip",
        views.submission_files,
        name="submission_files",
    ),
    path(f"{_ORGANISE}<slug:phase>/files.zip", views.phase_files, name="phase_files"),
    path(f"{_ORGANISE}<slug:phase>/rescore/", views.rescore_phase, name="rescore"),
    path(
        f"{_ORGANISE}<slug:phase>/withdrawals/",
        withdrawals.withdrawals,
        name="withdrawals",
    ),
]
