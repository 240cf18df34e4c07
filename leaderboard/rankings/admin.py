"""Admin: published snapshots (read-only) and figures reported elsewhere."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from leaderboard.challenges.admin import OrganiserScoped
from leaderboard.rankings.models import ReportedResult, Snapshot


@admin.register(Snapshot)
class SnapshotAdmin(OrganiserScoped):
    challenge_path = "phase__challenge"
    list_display = ("__str__", "number", "published_at", "published_by")
    readonly_fields = ("phase", "number", "data", "published_by", "published_at")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # published by the reveal action only

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(ReportedResult)
class ReportedResultAdmin(OrganiserScoped):
    challenge_path = "phase__challenge"
    list_display = ("label", "phase", "condition", "metrics", "shown", "source")
    list_filter = ("shown", "phase__challenge")
