"""Admin for organisers: challenges, phases with their conditions, reference versions.

Staff who organise a challenge but are not superusers see, and can choose in any form, only
the challenges they organise (their phases and conditions). Saving or deleting anything here
marks the leaderboards of its challenge changed (a title, a label or the dates show on them); a
change of the
scoring settings (task, ranked metric, scorer options) re-queues every scored submission
concerned; a change of a phase's split re-computes every stored Result's public and private
figures in the same save (allowed only until results have been shown); once revealed, a
phase's dates are fixed (``Phase.refusals``) and late submissions go to a post-challenge phase
(the phase list's action); a phase's results visibility is locked once it has scored
submissions. A reference version that would change stored scores is stored inactive and
activated from its review page (``organisers.views.review_reference``), which shows its
impact first."""

from __future__ import annotations

import copy
import hashlib
from typing import Any

from django import forms
from django.contrib import admin
from django.db import models
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse

from leaderboard.challenges import roles
from leaderboard.challenges.admin_trail import Audited, changed_fields
from leaderboard.challenges.audit import AuditEntry
from leaderboard.challenges.config import (
    CHOICE_NOT_WITH_LADDER,
    LADDER_NEEDS_SPLIT,
    scoring_problems,
)
from leaderboard.challenges.facts import declaration_problems
from leaderboard.challenges.models import Challenge, Condition, Phase, PhaseFile, Reference
from leaderboard.challenges.references import check_reference
from leaderboard.challenges.services import (
    PostChallengeError,
    activate_reference,
    add_reference,
    open_post_challenge,
)
from leaderboard.submissions.impact import needs_review
from leaderboard.submissions.services import recompute_parts, rescore_all
from scoring import TASKS, ScoringError


class OrganiserScoped(Audited):
    """Every organiser-facing admin: staff who are not superusers see and change only the rows
    of the challenges they organise (``roles.organised``), choose only among those
    challenges' rows in every foreign-key field, filter lists by them only, and read every
    choice as "challenge / phase / condition"."""

    def get_queryset(self, request: HttpRequest) -> Any:
        return roles.organised(super().get_queryset(request), request.user)

    def formfield_for_foreignkey(
        self, db_field: models.ForeignKey[Any, Any], request: HttpRequest, **kwargs: Any
    ) -> Any:
        related = db_field.related_model
        if (related._meta.app_label, related._meta.model_name) in roles.CHALLENGE_PATHS:
            queryset = kwargs.get("queryset", related._default_manager.all())
            kwargs["queryset"] = roles.organised(queryset, request.user)
        field = super().formfield_for_foreignkey(db_field, request, **kwargs)
        if field is not None and related in (Challenge, Phase, Condition, Reference):
            field.label_from_instance = roles.path_label  # type: ignore[method-assign]  # Django's way to relabel one field's choices
        return field

    # What is saved or deleted here may show on the boards of its challenge's phases: the
    # admin's edits are changes like the services' (``Phase.changed``, built once committed).
    def save_related(self, request: HttpRequest, form: Any, formsets: Any, change: bool) -> None:
        super().save_related(request, form, formsets, change)
        Phase.changed(*_phases_of(form.instance))

    def delete_model(self, request: HttpRequest, obj: Any) -> None:
        phases = _phases_of(obj)
        super().delete_model(request, obj)
        Phase.changed(*phases)

    def delete_queryset(self, request: HttpRequest, queryset: Any) -> None:
        phases = {pk for obj in queryset for pk in _phases_of(obj)}
        super().delete_queryset(request, queryset)
        Phase.changed(*phases)

    def get_list_filter(self, request: HttpRequest) -> Any:
        # A related filter lists only the values of the rows this user sees, never every
        # challenge's or phase's name.
        return [
            (name, admin.RelatedOnlyFieldListFilter)
            if isinstance(name, str) and ("__" in name or name in _RELATED)
            else name
            for name in super().get_list_filter(request)
        ]


def _phases_of(obj: models.Model) -> list[int]:
    """The phases of the challenges ``obj`` belongs to (``roles.CHALLENGE_PATHS``)."""
    if obj.pk is None:
        return []
    model = type(obj)
    challenges = model._default_manager.filter(pk=obj.pk).values_list(
        roles.challenge_path(model), flat=True
    )
    return list(Phase.objects.filter(challenge_id__in=challenges).values_list("pk", flat=True))


#: list filters that follow a foreign key without a ``__`` in their name
_RELATED = {"challenge", "phase", "condition", "team"}


def metric_names(task: str) -> str:
    """``jga (JGA, higher is better), ser (...)``: a task's metrics for help texts."""
    return ", ".join(f"{m.name} ({m.label}, {m.direction} is better)" for m in TASKS[task].metrics)


def _per_task(describe: Any) -> str:
    return "; ".join(f"{name}: {describe(task)}" for name, task in TASKS.items())


def _options(task: Any) -> str:
    return ", ".join(f"{o.name} ({'|'.join(o.choices)})" for o in task.options) or "none"


class ChallengeForm(forms.ModelForm):
    """The task, its ranked metric, its scorer options and its declared system facts, checked
    as ``create_challenge`` checks them, each error on its field."""

    task = forms.ChoiceField(choices=[(name, f"{t.label} ({name})") for name, t in TASKS.items()])

    class Meta:
        model = Challenge
        fields = "__all__"
        help_texts = {
            "primary_metric": "the ranked metric; empty: the task's own. By task: "
            + _per_task(lambda t: ", ".join(m.name for m in t.metrics)),
            "scorer_options": "the task's options and the bootstrap's n_boot, level and seed, "
            'e.g. {"n_boot": 1000, "level": 0.95, "seed": 12345}. Options by task: '
            + _per_task(_options),
        }

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if "scorer_options" in cleaned and cleaned["scorer_options"] is None:
            cleaned["scorer_options"] = {}  # an emptied field: every default
        draft = Challenge(
            task=cleaned.get("task") or "",
            primary_metric=cleaned.get("primary_metric") or "",
            scorer_options=cleaned.get("scorer_options"),
        )
        if "task" not in self.errors:
            for name, problems in scoring_problems(draft).items():
                self.add_error(name, problems)
        if "system_facts" in cleaned and cleaned["system_facts"] is None:
            cleaned["system_facts"] = []
        found = declaration_problems(cleaned.get("system_facts"))
        if found and "system_facts" not in self.errors:
            self.add_error("system_facts", found)
        return cleaned


class PhaseInline(admin.TabularInline):
    model = Phase
    extra = 0
    fields = ("name", "slug", "order", "opens_at", "closes_at", "daily_quota", "total_quota")
    show_change_link = True


@admin.register(Challenge)
class ChallengeAdmin(OrganiserScoped):
    list_display = ("title", "slug", "task", "primary_metric", "registration", "created")
    prepopulated_fields = {"slug": ("title",)}
    filter_horizontal = ("organisers",)
    form = ChallengeForm
    inlines = [PhaseInline]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        # The operator names a challenge's organisers; the user list is not theirs to read.
        return () if request.user.is_superuser else ("organisers",)

    def save_related(self, request: HttpRequest, form: Any, formsets: Any, change: bool) -> None:
        super().save_related(request, form, formsets, change)
        challenge = form.instance
        if change and {"task", "primary_metric", "scorer_options"} & changed_fields(form):
            # Each Result's values and ranking columns were computed with the old settings.
            n = len(rescore_all(challenge=challenge, actor=request.user))
            self.message_user(
                request,
                f"The scoring settings changed: {n} submission(s) queued for re-scoring.",
            )


class ConditionInline(admin.TabularInline):
    model = Condition
    extra = 0
    fields = ("key", "label", "order")


class PhaseFileForm(forms.ModelForm):
    """A file published with the phase: its name, size and sha256 are taken from the upload."""

    class Meta:
        model = PhaseFile
        fields = ("title", "description", "file")
        # the stored file has no URL (private storage): the page links it from the data section
        widgets = {"file": forms.FileInput}

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        upload = cleaned.get("file")
        if upload is not None and "file" in self.changed_data:
            digest = hashlib.sha256()
            size = 0
            for chunk in upload.chunks():
                digest.update(chunk)
                size += len(chunk)
            upload.seek(0)
            self.instance.original_name = upload.name[-255:]
            self.instance.size = size
            self.instance.sha256 = digest.hexdigest()
        return cleaned


class PhaseFileInline(admin.TabularInline):
    """Files every participant may download from the challenge's data section (inputs,
    manifests, transcripts); never a gold, which is uploaded as a reference."""

    model = PhaseFile
    form = PhaseFileForm
    extra = 0
    fields = ("title", "description", "file", "size", "sha256")
    readonly_fields = ("size", "sha256")


class PhaseForm(forms.ModelForm):
    """A phase's life is one-way (``Phase.refusals``): once revealed its dates are fixed, the
    split is fixed once results have been shown, the results visibility once it has scored
    submissions; each refusal is an error on its field saying why."""

    class Meta:
        model = Phase
        fields = "__all__"

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        fraction = cleaned.get("split_fraction")
        if cleaned.get("ladder") and fraction is not None and fraction >= 1:
            self.add_error("ladder", LADDER_NEEDS_SPLIT)
        if cleaned.get("ladder") and cleaned.get("team_chooses_public_run"):
            self.add_error("team_chooses_public_run", CHOICE_NOT_WITH_LADDER)
        stored = Phase.objects.filter(pk=self.instance.pk).first() if self.instance.pk else None
        if stored is not None:
            draft = copy.copy(stored)
            for name, value in cleaned.items():
                if name in self.fields and hasattr(draft, name):
                    setattr(draft, name, value)
            for name, problem in draft.refusals(stored).items():
                self.add_error(name if name in self.fields else None, problem)
        return cleaned


@admin.register(Phase)
class PhaseAdmin(OrganiserScoped):
    list_display = ("__str__", "state", "opens_at", "closes_at", "results_visibility", "revealed")
    list_filter = ("challenge", "results_visibility", "revealed")
    prepopulated_fields = {"slug": ("name",)}
    # ``revealed`` is set by the reveal action (which also freezes the snapshot), never by hand.
    readonly_fields = ("revealed", "post_challenge")
    form = PhaseForm
    inlines = [ConditionInline, PhaseFileInline]
    actions = ["reveal", "rescore", "post_challenge"]

    def save_related(self, request: HttpRequest, form: Any, formsets: Any, change: bool) -> None:
        super().save_related(request, form, formsets, change)
        phase = form.instance
        if change and {"split_fraction", "split_seed"} & changed_fields(form):
            # Each Result's public and private figures were computed on the old split: they
            # are computed again from the stored per-dialogue figures in this same save.
            n = recompute_parts(phase)
            self.message_user(
                request,
                f"The split changed: the public and private figures of {n} stored result(s) "
                "were computed again on the new split.",
            )

    @admin.action(description="Reveal: preview the private leaderboard, then publish it")
    def reveal(self, request: HttpRequest, queryset: Any) -> HttpResponse | None:
        # Publishing happens on the preview page, after the organiser has seen the ranking.
        if queryset.count() != 1:
            self.message_user(request, "Select exactly one phase to preview.", level="error")
            return None
        phase = queryset.select_related("challenge").get()
        return HttpResponseRedirect(
            reverse("rankings:reveal", args=[phase.challenge.slug, phase.slug])
        )

    @admin.action(description="Open a post-challenge phase for late submissions (after a reveal)")
    def post_challenge(self, request: HttpRequest, queryset: Any) -> None:
        for phase in queryset.select_related("challenge"):
            try:
                post = open_post_challenge(phase, actor=request.user)
            except (PostChallengeError, OSError, ScoringError) as exc:
                self.message_user(request, f"{phase.name}: {exc}", level="error")
                continue
            self.message_user(
                request,
                f"{post.name} is open until {post.closes_at:%Y-%m-%d %H:%M} UTC (change its "
                f"closing date on its page); {phase.name} stays closed and revealed.",
            )

    @admin.action(description="Re-score every scored submission (after a scorer change)")
    def rescore(self, request: HttpRequest, queryset: Any) -> None:
        n = sum(len(rescore_all(phase=phase, actor=request.user)) for phase in queryset)
        self.message_user(request, f"{n} submission(s) queued for re-scoring.")


#: every file a task's reference may have besides the gold, by its name in the task
_FILES = {spec.name: spec for task in TASKS.values() for spec in task.reference_files}
EXTRA_FILES = {name: _FILES[name] for name in sorted(_FILES)}


def _file_help(name: str) -> str:
    spec = EXTRA_FILES[name]
    needs = [t for t, task in TASKS.items() if any(f.name == name and f.required
                                                   for f in task.reference_files)]  # fmt: skip
    takes = [t for t, task in TASKS.items() if any(f.name == name for f in task.reference_files)]
    rule = f"required for {', '.join(needs)}" if needs else "optional"
    return f"{spec.label}: {rule}; taken by {', '.join(takes)}. {spec.description}".strip()


class ReferenceUpload(forms.ModelForm):
    """A new reference version: the gold and the task's other files, checked with the scorer
    (``ReferenceForm`` adds a file field per file name a task knows)."""

    upload = forms.FileField(help_text="gold file; validated with the scorer on upload")

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
                for name in EXTRA_FILES
                if cleaned.get(name) is not None
            }
            try:
                check_reference(condition.phase.challenge, data, upload.name, files)
            except ScoringError as exc:
                raise forms.ValidationError(str(exc)) from exc
            cleaned["data"] = data
            cleaned["files"] = files
        return cleaned


ReferenceForm = type(
    "ReferenceForm",
    (ReferenceUpload,),
    {name: forms.FileField(required=False, help_text=_file_help(name)) for name in EXTRA_FILES},
)


@admin.register(Reference)
class ReferenceAdmin(OrganiserScoped):
    list_display = ("condition_path", "short_sha256", "active", "uploaded_at", "dialogues", "turns")
    list_filter = ("active", "condition__phase__challenge")
    list_select_related = ("condition__phase__challenge",)
    actions = ["make_active"]
    # The file itself is never linked: private storage has no URL.
    readonly_fields = ("condition", "sha256", "summary", "active", "uploaded_at")

    def get_form(
        self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any
    ) -> Any:
        if obj is None:
            kwargs["form"] = ReferenceForm
        return super().get_form(request, obj, change, **kwargs)

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return self.readonly_fields if obj is not None else ()

    def get_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        if obj is not None:
            return self.readonly_fields
        return ("condition", "upload", *EXTRA_FILES)

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        if change:
            return
        condition = form.cleaned_data["condition"]
        # A version that would change stored scores waits, inactive, for the review page.
        draft = Reference(condition=condition)
        created = add_reference(
            condition,
            form.cleaned_data["data"],
            form.cleaned_data["upload"].name,
            form.cleaned_data["files"],
            active=not needs_review(draft),
            actor=request.user,
        )
        if created.active:
            rescore_all(condition=created.condition, include_failed=True, actor=request.user)
        obj.pk = created.pk
        obj.refresh_from_db()

    def response_add(self, request: HttpRequest, obj: Any, post_url_continue: Any = None) -> Any:
        if obj.active:
            return super().response_add(request, obj, post_url_continue)
        self.message_user(
            request,
            f"{obj.condition.phase.name} / {obj.condition.label}: version {obj.sha256[:12]} is "
            "stored but not active yet. Review what it would change, then activate it.",
        )
        return _review(obj)

    @admin.display(description="condition", ordering="condition")
    def condition_path(self, obj: Reference) -> str:
        return roles.path_label(obj.condition)

    @admin.display(description="sha256")
    def short_sha256(self, obj: Reference) -> str:
        return obj.sha256[:12]

    @admin.display(description="dialogues")
    def dialogues(self, obj: Reference) -> object:
        return obj.summary.get("dialogues")

    @admin.display(description="turns")
    def turns(self, obj: Reference) -> object:
        return obj.summary.get("turns")

    @admin.action(description="Review the selected version's impact, then make it active")
    def make_active(self, request: HttpRequest, queryset: Any) -> HttpResponse | None:
        if queryset.count() != 1:
            self.message_user(request, "Select exactly one version to review.", level="error")
            return None
        reference = queryset.select_related("condition__phase__challenge").get()
        if reference.active:
            self.message_user(request, "That version is already the active one.")
            return None
        if not needs_review(reference):
            activate_reference(reference, actor=request.user)
            n = len(
                rescore_all(condition=reference.condition, include_failed=True, actor=request.user)
            )
            self.message_user(request, f"Activated; {n} submission(s) queued for re-scoring.")
            return None
        return _review(reference)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # Versions are kept: Results point to the reference they were computed against.
        return False


def _review(reference: Reference) -> HttpResponseRedirect:
    challenge = reference.condition.phase.challenge
    return HttpResponseRedirect(
        reverse("challenges:review_reference", args=[challenge.slug, reference.pk])
    )


@admin.register(AuditEntry)
class AuditEntryAdmin(Audited):
    """The whole site's trail, for superusers: every challenge's entries, those of rows of no
    challenge (accounts, groups) and those of challenges since deleted. Read only."""

    list_display = ("at", "actor_name", "action", "challenge", "phase", "subject")
    list_filter = ("action",)
    search_fields = ("subject", "actor_name")
    list_select_related = ("challenge", "phase")

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return bool(request.user.is_superuser)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


admin.site.site_header = "Trackboard administration"
