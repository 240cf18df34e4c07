"""What a participant may download to start: per condition a sample submission (every dialogue
and user turn of the active reference, states empty), the task's public reference files (a
MultiWOZ 2.2 schema, training values) and the files organisers publish with a phase.

A sample is written by the task from the reference's dialogue ids and turn counts only
(``scoring.Task.sample``), so it holds no gold value; the ids and counts are what the inputs
participants receive already show. A reference file is offered only when its task marks it
public (``FileSpec.public``); the gold never is."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import Prefetch
from django.db.models.fields.files import FieldFile
from django.http import FileResponse, Http404, HttpResponse
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.http import content_disposition_header

from leaderboard.challenges.models import (
    Challenge,
    Condition,
    Phase,
    PhaseFile,
    Reference,
    ReferenceFile,
)
from leaderboard.challenges.references import loaded_reference


@dataclass(frozen=True)
class Download:
    title: str
    name: str
    url: str
    size: int | None = None
    sha256: str = ""
    description: str = ""


@dataclass(frozen=True)
class ConditionData:
    condition: Condition
    #: dialogues and user turns of the active reference (None: no reference yet)
    dialogues: int | None
    turns: int | None
    files: tuple[Download, ...] = ()
    #: where its sample submission is downloaded (once it has a reference)
    sample_url: str = ""


@dataclass(frozen=True)
class PhaseData:
    phase: Phase
    conditions: tuple[ConditionData, ...]
    files: tuple[Download, ...] = field(default_factory=tuple)

    @property
    def empty(self) -> bool:
        return not self.files and all(c.dialogues is None for c in self.conditions)


def sample_name(condition: Condition) -> str:
    phase = condition.phase
    return f"{phase.challenge.slug}-{phase.slug}-{condition.key}-sample.json"


def _size(stored: FieldFile) -> int | None:
    try:
        return int(stored.size)
    except OSError:
        return None


def public_files(challenge: Challenge) -> set[str]:
    """The names of the task's reference files participants may download."""
    return {spec.name for spec in challenge.scoring_task().reference_files if spec.public}


def phase_data(challenge: Challenge) -> list[PhaseData]:
    """Per phase, what can be downloaded: each condition's sample (once it has a reference)
    with the public files of its active reference, and the phase's own files."""
    public = public_files(challenge)
    active = Reference.objects.filter(active=True).prefetch_related(
        Prefetch("files", ReferenceFile.objects.filter(name__in=public))
    )
    phases = challenge.phases.order_by("order", "opens_at").prefetch_related(
        Prefetch("conditions__references", active, to_attr="active"), "files"
    )
    result = []
    for phase in phases:
        rows = []
        for condition in phase.conditions.all():
            reference = condition.active[0] if condition.active else None  # type: ignore[attr-defined]  # the Prefetch above sets it
            if reference is None:
                rows.append(ConditionData(condition, None, None))
                continue
            files = tuple(
                Download(
                    f.name.replace("_", " ").capitalize(),
                    f.original_name,
                    reverse(
                        "challenges:reference_file",
                        args=[challenge.slug, phase.slug, condition.key, f.name],
                    ),
                    _size(f.file),
                    f.sha256,
                )
                for f in reference.files.all()
            )
            summary = reference.summary
            sample_url = reverse(
                "challenges:sample", args=[challenge.slug, phase.slug, condition.key]
            )
            rows.append(
                ConditionData(
                    condition, summary.get("dialogues"), summary.get("turns"), files, sample_url
                )
            )
        files = tuple(
            Download(
                f.title,
                f.original_name,
                reverse("challenges:phase_file", args=[challenge.slug, phase.slug, f.pk]),
                f.size,
                f.sha256,
                f.description,
            )
            for f in phase.files.all()
        )
        result.append(PhaseData(phase, tuple(rows), files))
    return result


def condition_of(challenge: Challenge, phase_slug: str, key: str) -> Condition:
    return get_object_or_404(
        Condition.objects.select_related("phase__challenge"),
        phase__challenge=challenge,
        phase__slug=phase_slug,
        key=key,
    )


def sample(condition: Condition) -> bytes:
    """The sample submission of the condition's active reference; Http404 without one.
    Raises ``OSError`` when the stored reference cannot be read."""
    reference = condition.active_reference()
    if reference is None:
        raise Http404("this condition has no reference yet")
    data: bytes = condition.phase.challenge.scoring_task().sample(loaded_reference(reference))
    return data


def sample_response(condition: Condition) -> HttpResponse:
    response = HttpResponse(sample(condition), content_type="application/json")
    response["Content-Disposition"] = content_disposition_header(True, sample_name(condition))
    return response


def file_response(stored: FieldFile, name: str) -> FileResponse:
    """The stored file as a download named ``name`` (FileResponse closes it)."""
    return FileResponse(stored.open("rb"), as_attachment=True, filename=name)


def reference_file(condition: Condition, name: str) -> ReferenceFile:
    """A public file of the condition's active reference; Http404 for any other."""
    if name not in public_files(condition.phase.challenge):
        raise Http404("no such file")
    found = ReferenceFile.objects.filter(
        reference__condition=condition, reference__active=True, name=name
    ).first()
    if found is None:
        raise Http404("no such file")
    return found


def phase_file(challenge: Challenge, phase_slug: str, pk: int) -> PhaseFile:
    return get_object_or_404(PhaseFile, pk=pk, phase__challenge=challenge, phase__slug=phase_slug)
