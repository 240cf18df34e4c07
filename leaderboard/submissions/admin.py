"""Admin for submissions and results: inspect, mark baselines, re-score or re-queue."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.db import models
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html

from leaderboard.challenges.admin import OrganiserScoped
from leaderboard.challenges.facts import check_facts
from leaderboard.challenges.roles import path_label
from leaderboard.submissions.models import Result, Submission, SubmissionFile
from leaderboard.submissions.services import rescore


class SubmissionFactsForm(forms.ModelForm):
    """An organiser corrects what a submission declared about its system: checked against the
    challenge's declarations as an upload is (``challenges.facts.check_facts``)."""

    class Meta:
        model = Submission
        fields = ["facts"]  # the admin adds the others (with its own field overrides)
        help_texts = {
            "facts": 'declared fact key -> value, e.g. {"asr": "Whisper", "params": 0.77}; '
            "checked against the challenge's declared system facts"
        }

    def clean_facts(self) -> dict[str, Any]:
        given = self.cleaned_data.get("facts") or {}
        if not isinstance(given, dict):
            raise forms.ValidationError("give a mapping of declared fact keys to values")
        values, problems = check_facts(self.instance.phase.challenge.facts(), given)
        if problems:
            raise forms.ValidationError(list(problems.values()))
        return values


class SubmissionFileInline(admin.TabularInline):
    model = SubmissionFile
    extra = 0
    # ``file`` is left out on purpose: private storage has no URL to link to.
    fields = ("condition", "original_name", "sha256", "size")
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class ResultInline(admin.TabularInline):
    model = Result
    extra = 0
    fields = ("condition", "primary", "primary_low", "primary_high", "current", "signature")
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Submission)
class SubmissionAdmin(OrganiserScoped):
    list_display = (
        "pk",
        "team",
        "phase",
        "method_name",
        "status",
        "attempts",
        "is_baseline",
        "charged",
        "created_at",
    )
    list_filter = ("status", "is_baseline", "phase__challenge", "phase")
    search_fields = ("team__name", "method_name")
    # Status moves only through the state machine (services), never by editing the field.
    readonly_fields = (
        "team",
        "phase",
        "files_zip",
        "submitter",
        "status",
        "attempts",
        "lease_until",
        "error",
        "charged",
        "created_at",
        "scored_at",
    )
    fields = (
        "team",
        "phase",
        "files_zip",
        "submitter",
        "method_name",
        "method_description",
        "url",
        "facts",
        "is_baseline",
        "selected_for_final",
        *readonly_fields[4:],
    )
    form = SubmissionFactsForm
    inlines = [SubmissionFileInline, ResultInline]
    # Django 6's default, set explicitly: a paper/code URL typed without a scheme is https.
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}
    actions = ["rescore_selected"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    @admin.display(description="files")
    def files_zip(self, obj: Submission) -> str:
        """A link to the submission's files as a zip (the organisers' download, logged)."""
        url = reverse("challenges:submission_files", args=[obj.phase.challenge.slug, obj.pk])
        return format_html('<a href="{}" download>Download its files (zip)</a>', url)

    @admin.action(description="Re-score the selected scored and failed submissions")
    def rescore_selected(self, request: HttpRequest, queryset: Any) -> None:
        # A failed one is queued again too (after a reference fix); it stays uncharged.
        done = sum(
            rescore(submission, include_failed=True, actor=request.user) for submission in queryset
        )
        self.message_user(
            request,
            f"{done} submission(s) queued for scoring again (only scored and failed ones are).",
        )


#: a Result's per-dialogue statistics: thousands of numbers, and bytes no form could show
PER_DIALOGUE = ("dialogues", "ratios", "primary_ratios")


@admin.register(Result)
class ResultAdmin(OrganiserScoped):
    list_display = ("submission", "condition_path", "primary", "current", "reference", "created_at")
    list_filter = ("condition__phase__challenge",)
    list_select_related = ("condition__phase__challenge",)
    exclude = PER_DIALOGUE
    readonly_fields = [f.name for f in Result._meta.fields if f.name not in PER_DIALOGUE]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # Evidence: only an operator's recorded erasure removes one (``manage.py erase``).
        return False

    @admin.display(description="condition", ordering="condition")
    def condition_path(self, obj: Result) -> str:
        return path_label(obj.condition)
