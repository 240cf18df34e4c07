"""Admin for teams and challenge registrations (approval).

Organisers who are not superusers see the teams registered for the challenges they organise,
read only and without their invite code, creator or members (an invite code would let them
join the team), and those challenges' registrations."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.http import HttpRequest

from leaderboard.challenges.admin import OrganiserScoped
from leaderboard.teams import names
from leaderboard.teams.models import Membership, Participation, Team
from leaderboard.teams.services import TeamError, name_taken, set_participation_status


class TeamAdminForm(forms.ModelForm):
    """The admin's team form: the name goes through the same rules as on the site."""

    class Meta:
        model = Team
        fields = "__all__"

    def clean_name(self) -> str:
        try:
            name = names.normalise(self.cleaned_data.get("name") or "")
        except names.InvalidName as exc:
            raise forms.ValidationError(str(exc)) from None
        other = name_taken(name, exclude=self.instance if self.instance.pk else None)
        if other is not None:
            raise forms.ValidationError(
                f"“{name}” reads the same as the name of the team “{other.name}”."
            )
        return name


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    autocomplete_fields = ("user",)


@admin.register(Team)
class TeamAdmin(OrganiserScoped):
    form = TeamAdminForm
    list_display = ("name", "slug", "anonymous", "created_by", "created")
    search_fields = ("name", "slug")
    prepopulated_fields = {"slug": ("name",)}
    readonly_fields = ("invite_code",)
    inlines = [MembershipInline]

    def get_list_display(self, request: HttpRequest) -> Any:
        if request.user.is_superuser:
            return self.list_display
        return ("name", "slug", "anonymous", "created")

    def get_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        if request.user.is_superuser:
            return super().get_fields(request, obj)
        return ("name", "slug", "anonymous", "created")

    def get_inlines(self, request: HttpRequest, obj: Any = None) -> Any:
        return self.inlines if request.user.is_superuser else []

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return bool(request.user.is_superuser)


@admin.register(Participation)
class ParticipationAdmin(OrganiserScoped):
    list_display = ("team", "challenge", "status", "created")
    list_filter = ("status", "challenge")
    search_fields = ("team__name",)
    actions = ["approve", "reject"]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        # The status moves only through the actions (or the dashboard), which check that no
        # member would be in two approved teams of the challenge.
        return ("status",) if obj is None else ("team", "challenge", "status")

    @admin.action(description="Approve the selected registrations")
    def approve(self, request: HttpRequest, queryset: Any) -> None:
        for participation in queryset:
            try:
                set_participation_status(
                    participation, Participation.Status.APPROVED, actor=request.user
                )
            except TeamError as exc:
                self.message_user(request, f"{participation.team}: {exc}", level="error")

    @admin.action(description="Reject the selected registrations")
    def reject(self, request: HttpRequest, queryset: Any) -> None:
        for participation in queryset:
            set_participation_status(
                participation, Participation.Status.REJECTED, actor=request.user
            )
