"""URL map. No route serves private storage: references and prediction files have no URL."""

from __future__ import annotations

from django.contrib import admin
from django.urls import path

from leaderboard.views import healthz

urlpatterns = [
    path("admin/", admin.site.urls),
    path("healthz", healthz, name="healthz"),
]
