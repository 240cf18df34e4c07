from __future__ import annotations

from django.urls import path

from leaderboard.submissions import views

app_name = "submissions"
urlpatterns = [
    path("challenges/<slug:slug>/<slug:phase>/submit/", views.submit, name="submit"),
    path("challenges/<slug:slug>/<slug:phase>/submissions/", views.mine, name="mine"),
    path("submissions/<int:pk>/", views.detail, name="detail"),
    path("submissions/<int:pk>/compare/", views.compare, name="compare"),
    path("submissions/<int:pk>/correctness.csv", views.correctness_csv, name="correctness"),
    path("submissions/<int:pk>/status.json", views.status, name="status"),
    path("submissions/<int:pk>/cancel/", views.cancel, name="cancel"),
    path("submissions/<int:pk>/final/", views.final, name="final"),
    path("submissions/<int:pk>/public/", views.public, name="public"),
    path("submissions/<int:pk>/edit/", views.edit, name="edit"),
]
