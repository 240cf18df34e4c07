"""The upload form of a phase: a file per condition, the method, what the challenge asks about
the system (its declared facts), and a team when needed."""

from __future__ import annotations

from typing import Any

from django import forms
from django.core.files.uploadedfile import UploadedFile
from django.db.models import QuerySet

from leaderboard.challenges.facts import Fact
from leaderboard.challenges.models import Condition, Phase
from leaderboard.submissions.models import method_url
from leaderboard.submissions.services import FactsRefused, checked_facts
from leaderboard.teams.models import Team


def file_field_name(condition: Condition) -> str:
    return f"file_{condition.key}"


def fact_field_name(fact: Fact) -> str:
    return f"fact_{fact.key}"


def _fact_field(fact: Fact) -> forms.Field:
    """The form field of a declared fact; its value is checked by ``checked_facts`` (in
    ``clean``), as the API's is."""
    label = fact.heading
    common: dict[str, Any] = {"label": label, "required": False, "help_text": fact.help}
    if fact.kind == "choice":
        choices = [("", "---------"), *((c, c) for c in fact.choices)]
        return forms.ChoiceField(choices=choices, **common)
    if fact.kind == "flag":
        return forms.ChoiceField(
            choices=[("", "---------"), ("yes", "yes"), ("no", "no")], **common
        )
    if fact.kind == "number":
        return forms.CharField(
            max_length=40, widget=forms.TextInput(attrs={"inputmode": "decimal"}), **common
        )
    return forms.CharField(max_length=200, **common)


class MethodForm(forms.Form):
    """What a team says about its method: given at upload, and editable afterwards by its
    members (``services.metadata``), under the same limits."""

    method_name = forms.CharField(
        max_length=200, label="Method name", help_text="Shown on the leaderboard."
    )
    method_description = forms.CharField(
        required=False, label="Description", widget=forms.Textarea(attrs={"rows": 3})
    )
    url = forms.URLField(
        required=False,
        label="Paper or code URL",
        assume_scheme="https",
        max_length=200,
        validators=[method_url],
    )


class SubmissionForm(MethodForm):
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
        self.facts = phase.challenge.facts()
        for fact in self.facts:
            field = _fact_field(fact)
            if fact.required:
                # said on the field; the check itself is ``checked_facts``'s (in ``clean``)
                field.widget.attrs["required"] = True
            self.fields[fact_field_name(fact)] = field
        self.order_fields(["team"])

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        try:
            cleaned["facts"] = checked_facts(self.phase, self.given_facts())
        except FactsRefused as exc:
            for key, message in exc.messages.items():
                fact = next((f for f in self.facts if f.key == key), None)
                self.add_error(fact_field_name(fact) if fact else None, message)
        return cleaned

    def given_facts(self) -> dict[str, Any]:
        """What the form says about the system, by declared key (empty fields left out)."""
        found = {}
        for fact in self.facts:
            value = self.cleaned_data.get(fact_field_name(fact))
            if value not in (None, ""):
                found[fact.key] = value
        return found

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

    def fact_fields(self) -> list[forms.BoundField]:
        return [self[fact_field_name(f)] for f in self.facts]

    def other_fields(self) -> list[forms.BoundField]:
        names = {file_field_name(c) for c in self.conditions}
        names |= {fact_field_name(f) for f in self.facts}
        return [self[name] for name in self.fields if name not in names]
