"""The analyses of a phase's board, under ``challenges/<slug>/<phase>/``.

``rankings.urls`` includes them, so their names stay in the ``rankings`` namespace
(``rankings:table``, ``rankings:pairwise``, ``rankings:robustness``, ``rankings:errors``): they
are read from the board, linked from its page."""

from __future__ import annotations

from django.urls import path

from leaderboard.analyses import views

_PHASE = "challenges/<slug:slug>/<slug:phase>/"
urlpatterns = [
    path(f"{_PHASE}table.<slug:suffix>", views.paper_table, name="table"),
    path(f"{_PHASE}pairwise/", views.pairwise, name="pairwise"),
    path(f"{_PHASE}robustness/", views.robustness, name="robustness"),
    path(f"{_PHASE}errors/", views.errors, name="errors"),
]
