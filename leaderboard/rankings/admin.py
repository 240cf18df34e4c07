"""Admin: published snapshots (read-only) and figures reported elsewhere."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.http import HttpRequest

from leaderboard.challenges.admin import OrganiserScoped, metric_names
from leaderboard.challenges.models import Challenge
from leaderboard.challenges.roles import organised, path_label
from leaderboard.rankings.models import ReportedResult, Snapshot
from scoring import TASKS


@admin.register(Snapshot)
class SnapshotAdmin(OrganiserScoped):
    list_display = ("__str__", "number", "published_at", "published_by")
    readonly_fields = ("phase", "number", "data", "published_by", "published_at")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # published by the reveal action only

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class ReportedResultForm(forms.ModelForm):
    """The figures and the condition are checked by ``ReportedResult.clean`` (metric names of
    the challenge's task, numbers from 0 to 100, a condition of the chosen phase), errors shown
    on their field."""

    class Meta:
        model = ReportedResult
        fields = ("phase", "condition", "label", "metrics", "source", "shown")


def metrics_help(tasks: list[str]) -> str:
    """The metric names the figures may use, for the tasks the form may be about (the
    challenge's; in a new row's form, those of every challenge the user may choose)."""
    tasks = sorted(set(tasks) & set(TASKS)) or sorted(TASKS)
    if len(tasks) == 1:
        names = metric_names(tasks[0])
    else:
        names = "; ".join(f"{task}: {metric_names(task)}" for task in tasks)
    example = TASKS[tasks[0]].primary
    return (
        "the reported figures by metric name of the challenge's task, each a number from 0 to "
        f'100, e.g. {{"{example}": 45.1}}. Metrics: {names}.'
    )


@admin.register(ReportedResult)
class ReportedResultAdmin(OrganiserScoped):
    list_display = ("label", "condition_path", "metrics", "shown", "source")
    list_filter = ("shown", "phase__challenge")
    list_select_related = ("condition__phase__challenge",)
    form = ReportedResultForm

    @admin.display(description="condition", ordering="condition")
    def condition_path(self, obj: ReportedResult) -> str:
        return path_label(obj.condition)

    def get_form(
        self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any
    ) -> Any:
        form = super().get_form(request, obj, change=change, **kwargs)
        if obj is not None:
            tasks = [obj.phase.challenge.task]
        else:
            challenges = organised(Challenge.objects.all(), request.user)
            tasks = list(challenges.values_list("task", flat=True).distinct())
        form.base_fields["metrics"].help_text = metrics_help(tasks)
        return form
