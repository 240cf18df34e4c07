"""The upload form of a phase: a file per condition, the method, and a team when needed."""

from __future__ import annotations

from typing import Any

from django import forms
from django.core.files.uploadedfile import UploadedFile
from django.db.models import QuerySet

from leaderboard.challenges.models import Condition, Phase
from leaderboard.teams.models import Team


def file_field_name(condition: Condition) -> str:
    return f"file_{condition.key}"


class SubmissionForm(forms.Form):
    method_name = forms.CharField(
        max_length=200, label="Method name", help_text="Shown on the leaderboard."
    )
    method_description = forms.CharField(
        required=False, label="Description", widget=forms.Textarea(attrs={"rows": 3})
    )
    url = forms.URLField(
        required=False, label="Paper or code URL", assume_scheme="https", max_length=200
    )

    def __init__(self, *args: Any, phase: Phase, teams: QuerySet[Team], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.phase = phase
        self.teams = list(teams)
        self.conditions = list(phase.conditions.order_by("order", "key"))
        if len(self.teams) > 1:
            self.fields["team"] = forms.ModelChoiceField(
                queryset=teams, label="Team", empty_label=None
            )
        for condition in self.conditions:
            self.fields[file_field_name(condition)] = forms.FileField(
                label=f"{condition.label} predictions",
                required=not phase.allow_partial,
            )
        self.order_fields(["team"])

    def close(self) -> None:
        """Render the file inputs disabled (no submission is left). Only the widgets: an
        upload sent anyway is still read and refused by the quota check, as before."""
        for condition in self.conditions:
            self.fields[file_field_name(condition)].widget.attrs["disabled"] = True

    def team(self) -> Team:
        if "team" in self.fields:
            return self.cleaned_data["team"]
        return self.teams[0]

    def files_by_condition(self) -> dict[str, UploadedFile]:
        uploads = {}
        for condition in self.conditions:
            upload = self.cleaned_data.get(file_field_name(condition))
            if upload:
                uploads[condition.key] = upload
        return uploads

    def file_fields(self) -> list[tuple[Condition, forms.BoundField]]:
        return [(c, self[file_field_name(c)]) for c in self.conditions]

    def other_fields(self) -> list[forms.BoundField]:
        names = {file_field_name(c) for c in self.conditions}
        return [self[name] for name in self.fields if name not in names]
