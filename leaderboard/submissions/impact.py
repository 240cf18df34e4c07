"""What making a reference version active would do, shown to the organiser before they confirm.

Every scored or failed submission with a file for the version's condition is scored against
the version in this process, for its point figure only (the intervals and the stored Results
come with the real re-scoring after the confirmation): each either re-scores, with its ranked
metric now and after and its rank among the condition's submissions now and after, or fails
with the scorer's message. Nothing is stored."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from leaderboard.challenges.models import Reference
from leaderboard.challenges.references import loaded_reference
from leaderboard.submissions.models import Result, Submission
from scoring import ScoringError, Source


@dataclass(frozen=True)
class Change:
    submission: Submission
    #: the ranked metric on the whole reference: now (current Result) and on the version
    now: float | None
    after: float | None
    #: the scorer's message when the version refuses the file
    failure: str = ""
    rank_now: int | None = None
    rank_after: int | None = None

    @property
    def outcome(self) -> str:
        if self.failure:
            return "fails"
        if self.submission.status == Submission.Status.FAILED:
            return "scored again (failed now)"
        return "re-scored"

    @property
    def rank_changes(self) -> bool:
        return self.rank_now != self.rank_after


@dataclass(frozen=True)
class Impact:
    reference: Reference
    metric: str
    changes: list[Change]
    #: dialogues of the active version that this one lacks, and the ones it adds (ids as
    #: the scorer keys them; empty when the sets are the same or nothing was scored)
    removed: tuple[str, ...] = ()
    added: tuple[str, ...] = ()
    #: the dialogue counts of the active version and of this one (their summaries)
    dialogues_now: int | None = None
    dialogues_after: int | None = None

    @property
    def dialogues_change(self) -> bool:
        return bool(self.removed or self.added) or (
            self.dialogues_now is not None
            and self.dialogues_after is not None
            and self.dialogues_now != self.dialogues_after
        )

    @property
    def consequences(self) -> list[str]:
        """What activating it would do that an organiser must agree to, in words: runs that
        would fail, a different set of dialogues (empty: nothing needs a confirmation)."""
        found = []
        if self.failing:
            found.append(
                f"{len(self.failing)} submission(s) would fail on this condition and leave "
                "its board"
            )
        if self.removed or self.added:
            found.append(
                f"the condition's dialogues change ({len(self.removed)} removed, "
                f"{len(self.added)} added): every score on it is on other dialogues"
            )
        elif self.dialogues_change:
            found.append(
                f"the condition's dialogues change ({self.dialogues_now} now, "
                f"{self.dialogues_after} in this version): every score on it is on other "
                "dialogues"
            )
        return found

    @property
    def failing(self) -> list[Change]:
        return [c for c in self.changes if c.failure]

    @property
    def rescored(self) -> list[Change]:
        return [c for c in self.changes if not c.failure]

    @property
    def rank_changes(self) -> list[Change]:
        return [c for c in self.changes if c.rank_changes]


def _number(value: object) -> float | None:
    if not isinstance(value, int | float) or math.isnan(value):
        return None
    return float(value)


def _ranks(values: dict[int, float | None], higher: bool) -> dict[int, int]:
    """Rank of each submission with a value among those with one (1 = best, ties share)."""
    known = {pk: v for pk, v in values.items() if v is not None}
    return {
        pk: 1 + sum(1 for o in known.values() if (o > v if higher else o < v))
        for pk, v in known.items()
    }


def reference_impact(reference: Reference) -> Impact:
    """Score the condition's scored and failed submissions against ``reference`` (read only).

    Raises ``OSError`` when a stored file cannot be read."""
    condition = reference.condition
    challenge = condition.phase.challenge
    task = challenge.scoring_task()
    options = challenge.task_options()
    # The point figures do not depend on the bootstrap: one resample is enough here.
    resampling = replace(challenge.resampling(), n_boot=1)
    metric = challenge.primary
    higher = next(m.direction for m in task.metrics if m.name == metric) == "higher"
    gold = loaded_reference(reference)
    submissions = (
        Submission.objects.filter(
            phase_id=condition.phase_id,
            files__condition=condition,
            status__in=[Submission.Status.SCORED, Submission.Status.FAILED],
        )
        .select_related("team")
        .order_by("pk")
    )
    now = dict(
        Result.objects.filter(
            condition=condition, current=True, submission__in=submissions
        ).values_list("submission_id", "primary")
    )
    found: list[Change] = []
    ids_after: set[str] | None = None
    for submission in submissions:
        item = submission.files.get(condition=condition)
        try:
            with item.file.open("rb") as handle:
                data = handle.read()
            prediction = task.load_prediction(Source(data, item.original_name), gold, options)
            scored = task.score(gold, prediction, options, resampling)
            after = _number(scored.metrics()[metric])
            ids_after = ids_after or set(scored.dialogues.ids)
        except ScoringError as exc:
            found.append(Change(submission, now.get(submission.pk), None, failure=str(exc)))
        else:
            found.append(Change(submission, now.get(submission.pk), after))
    rank_now = _ranks({c.submission.pk: c.now for c in found}, higher)
    rank_after = _ranks({c.submission.pk: c.after for c in found}, higher)
    changes = [
        replace(c, rank_now=rank_now.get(pk), rank_after=rank_after.get(pk))
        for c, pk in ((c, c.submission.pk) for c in found)
    ]
    ids_now: set[str] = set()
    active = condition.references.filter(active=True).exclude(pk=reference.pk).first()
    if active is not None:
        stored = (
            Result.objects.filter(condition=condition, reference=active, current=True)
            .values_list("dialogues", flat=True)
            .first()
        )
        ids_now = set((stored or {}).get("ids") or [])
    removed: tuple[str, ...] = ()
    added: tuple[str, ...] = ()
    if ids_now and ids_after is not None:
        removed, added = tuple(sorted(ids_now - ids_after)), tuple(sorted(ids_after - ids_now))
    return Impact(
        reference=reference,
        metric=metric,
        changes=changes,
        removed=removed,
        added=added,
        dialogues_now=_count(active.summary if active else None),
        dialogues_after=_count(reference.summary),
    )


def _count(summary: dict[str, object] | None) -> int | None:
    value = (summary or {}).get("dialogues")
    return value if isinstance(value, int) else None


def needs_review(reference: Reference) -> bool:
    """Whether activating ``reference`` would change anything stored: its condition has an
    active version and scored or failed submissions with a file for it."""
    condition = reference.condition
    return (
        condition.references.filter(active=True).exclude(pk=reference.pk).exists()
        and Submission.objects.filter(
            files__condition=condition,
            status__in=[Submission.Status.SCORED, Submission.Status.FAILED],
        ).exists()
    )
