"""Admin for organisers: challenges, phases with their conditions, reference versions."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.http import HttpRequest

from leaderboard.challenges.models import Challenge, Condition, Phase, Reference
from leaderboard.challenges.references import check_reference
from leaderboard.challenges.services import activate_reference, add_reference
from leaderboard.rankings.snapshots import RevealError, reveal
from leaderboard.submissions.services import rescore_all
from scoring import ScoringError


class OrganiserScoped(admin.ModelAdmin):
    """Staff who are not superusers see only the challenges they organise."""

    challenge_path = "challenge"

    def get_queryset(self, request: HttpRequest) -> Any:
        queryset = super().get_queryset(request)
        if request.user.is_superuser:
            return queryset
        return queryset.filter(**{f"{self.challenge_path}__organisers": request.user})


class PhaseInline(admin.TabularInline):
    model = Phase
    extra = 0
    fields = ("name", "slug", "order", "opens_at", "closes_at", "daily_quota", "total_quota")
    show_change_link = True


@admin.register(Challenge)
class ChallengeAdmin(OrganiserScoped):
    challenge_path = "pk"
    list_display = ("title", "slug", "task", "primary_metric", "registration", "created")
    prepopulated_fields = {"slug": ("title",)}
    filter_horizontal = ("organisers",)
    inlines = [PhaseInline]

    def get_queryset(self, request: HttpRequest) -> Any:
        queryset = admin.ModelAdmin.get_queryset(self, request)
        return queryset if request.user.is_superuser else queryset.filter(organisers=request.user)


class ConditionInline(admin.TabularInline):
    model = Condition
    extra = 0
    fields = ("key", "label", "order")


@admin.register(Phase)
class PhaseAdmin(OrganiserScoped):
    list_display = ("__str__", "state", "opens_at", "closes_at", "results_visibility", "revealed")
    list_filter = ("challenge", "results_visibility", "revealed")
    prepopulated_fields = {"slug": ("name",)}
    # ``revealed`` is set by the reveal action (which also freezes the snapshot), never by hand.
    readonly_fields = ("revealed",)
    inlines = [ConditionInline]
    actions = ["reveal", "rescore"]

    @admin.action(description="Reveal: publish the private leaderboard as a new snapshot")
    def reveal(self, request: HttpRequest, queryset: Any) -> None:
        for phase in queryset:
            try:
                snapshot = reveal(phase, request.user)
            except RevealError as exc:
                self.message_user(request, f"{phase}: {exc}", level="error")
            else:
                self.message_user(request, f"{phase}: published snapshot {snapshot.number}.")

    @admin.action(description="Re-score every scored submission (after a scorer change)")
    def rescore(self, request: HttpRequest, queryset: Any) -> None:
        n = sum(len(rescore_all(phase=phase)) for phase in queryset)
        self.message_user(request, f"{n} submission(s) queued for re-scoring.")


class ReferenceForm(forms.ModelForm):
    upload = forms.FileField(help_text="gold file; validated with the scorer on upload")
    schema = forms.FileField(
        required=False, help_text="schema.json (tasks that need one: multiwoz22)"
    )
    training_values = forms.FileField(
        required=False,
        help_text="slot values seen in training (optional): adds JGA on seen/unseen turns",
    )

    class Meta:
        model = Reference
        fields = ("condition",)

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        upload = cleaned.get("upload")
        condition = cleaned.get("condition")
        if upload is not None and condition is not None:
            data = b"".join(upload.chunks())
            files = {
                name: (b"".join(cleaned[name].chunks()), cleaned[name].name)
                for name in ("schema", "training_values")
                if cleaned.get(name) is not None
            }
            try:
                check_reference(condition.phase.challenge, data, upload.name, files)
            except ScoringError as exc:
                raise forms.ValidationError(str(exc)) from exc
            cleaned["data"] = data
            cleaned["files"] = files
        return cleaned


@admin.register(Reference)
class ReferenceAdmin(OrganiserScoped):
    challenge_path = "condition__phase__challenge"
    list_display = ("condition", "short_sha256", "active", "uploaded_at", "dialogues", "turns")
    list_filter = ("active", "condition__phase__challenge")
    actions = ["make_active"]
    # The file itself is never linked: private storage has no URL.
    readonly_fields = ("condition", "sha256", "summary", "active", "uploaded_at")

    def get_form(self, request: HttpRequest, obj: Any = None, **kwargs: Any) -> Any:
        if obj is None:
            kwargs["form"] = ReferenceForm
        return super().get_form(request, obj, **kwargs)

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return self.readonly_fields if obj is not None else ()

    def get_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        if obj is not None:
            return self.readonly_fields
        return ("condition", "upload", "schema", "training_values")

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        if change:
            return
        created = add_reference(
            form.cleaned_data["condition"],
            form.cleaned_data["data"],
            form.cleaned_data["upload"].name,
            form.cleaned_data["files"],
        )
        rescore_all(condition=created.condition)
        obj.pk = created.pk
        obj.refresh_from_db()

    @admin.display(description="sha256")
    def short_sha256(self, obj: Reference) -> str:
        return obj.sha256[:12]

    @admin.display(description="dialogues")
    def dialogues(self, obj: Reference) -> object:
        return obj.summary.get("dialogues")

    @admin.display(description="turns")
    def turns(self, obj: Reference) -> object:
        return obj.summary.get("turns")

    @admin.action(description="Make the selected version the active reference")
    def make_active(self, request: HttpRequest, queryset: Any) -> None:
        for reference in queryset:
            activate_reference(reference)
            rescore_all(condition=reference.condition)
        self.message_user(request, "Activated; every scored submission of it is being re-scored.")

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # Versions are kept: Results point to the reference they were computed against.
        return False


admin.site.site_header = "Trackboard administration"
