from __future__ import annotations

from django.urls import path

from leaderboard.rankings import paper_views, views

app_name = "rankings"
_PHASE = "challenges/<slug:slug>/<slug:phase>/"
urlpatterns = [
    path(f"{_PHASE}leaderboard/", views.phase_leaderboard, name="leaderboard"),
    path(f"{_PHASE}leaderboard.json", views.export_json, name="export-json"),
    path(f"{_PHASE}leaderboard.csv", views.export_csv, name="export-csv"),
    path(f"{_PHASE}table.<slug:suffix>", paper_views.paper_table, name="table"),
    path(f"{_PHASE}pairwise/", paper_views.pairwise, name="pairwise"),
    path(f"{_PHASE}robustness/", paper_views.robustness, name="robustness"),
    path(f"{_PHASE}errors/", paper_views.errors, name="errors"),
    path(f"{_PHASE}archive.json", views.export_archive, name="archive"),
    path(f"{_PHASE}snapshots/", views.snapshots, name="snapshots"),
    path(f"{_PHASE}snapshots/<int:number>/", views.snapshot, name="snapshot"),
    path(f"{_PHASE}reveal/", views.reveal_phase, name="reveal"),
]
