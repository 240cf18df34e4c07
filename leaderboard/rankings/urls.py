from __future__ import annotations

from django.urls import include, path

from leaderboard.rankings import views

app_name = "rankings"
_PHASE = "challenges/<slug:slug>/<slug:phase>/"
urlpatterns = [
    path(f"{_PHASE}leaderboard/", views.phase_leaderboard, name="leaderboard"),
    path(f"{_PHASE}leaderboard/embed/", views.embed, name="embed"),
    path(f"{_PHASE}leaderboard.json", views.export_json, name="export-json"),
    path(f"{_PHASE}leaderboard.csv", views.export_csv, name="export-csv"),
    # the paper tables and the readers' analyses (leaderboard.analyses), named in this namespace
    path("", include("leaderboard.analyses.urls")),
    path(f"{_PHASE}archive.json", views.export_archive, name="archive"),
    path(f"{_PHASE}snapshots/", views.snapshots, name="snapshots"),
    path(f"{_PHASE}snapshots/<int:number>/", views.snapshot, name="snapshot"),
    path(f"{_PHASE}reveal/", views.reveal_phase, name="reveal"),
]
