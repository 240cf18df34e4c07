"""Admin for teams and challenge registrations (approval)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from leaderboard.teams.models import Membership, Participation, Team
from leaderboard.teams.services import set_participation_status


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    autocomplete_fields = ("user",)


@admin.register(Team)
class TeamAdmin(admin.ModelAdmin):
    list_display = ("name", "slug", "anonymous", "created_by", "created")
    search_fields = ("name", "slug")
    prepopulated_fields = {"slug": ("name",)}
    readonly_fields = ("invite_code",)
    inlines = [MembershipInline]


@admin.register(Participation)
class ParticipationAdmin(admin.ModelAdmin):
    list_display = ("team", "challenge", "status", "created")
    list_filter = ("status", "challenge")
    search_fields = ("team__name",)
    actions = ["approve", "reject"]

    def get_queryset(self, request: HttpRequest) -> Any:
        queryset = super().get_queryset(request)
        if request.user.is_superuser:
            return queryset
        return queryset.filter(challenge__organisers=request.user)

    @admin.action(description="Approve the selected registrations")
    def approve(self, request: HttpRequest, queryset: Any) -> None:
        for participation in queryset:
            set_participation_status(participation, Participation.Status.APPROVED)

    @admin.action(description="Reject the selected registrations")
    def reject(self, request: HttpRequest, queryset: Any) -> None:
        for participation in queryset:
            set_participation_status(participation, Participation.Status.REJECTED)
