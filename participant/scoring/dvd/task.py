"""The ``dvd`` task (DVD-DST): loading, scoring and its registry entry."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from scoring.align import MISSING_POLICIES, align
from scoring.dvd.data import EMPTY, FORMATS, DvdFile, DvdState, read_dvd
from scoring.dvd.metrics import score_dialogues
from scoring.errors import InvalidFile
from scoring.formats import Budget, budget
from scoring.taskapi import (
    DialogueRatios,
    MetricSpec,
    Options,
    OptionSpec,
    Resampling,
    Source,
    Task,
    TaskResult,
    finish,
    signature,
)


@dataclass(frozen=True)
class Reference:
    gold: DvdFile
    #: the most a prediction for it can hold (see :class:`scoring.formats.Budget`)
    limit: Budget | None = None

    @property
    def sha256(self) -> str:
        return self.gold.sha256

    def layout(self) -> tuple[tuple[str, int], ...]:
        """Each dialogue's id as written and its number of turns (for a sample file)."""
        ids = self.gold.original_ids
        return tuple((ids[key], len(turns)) for key, turns in self.gold.turns.items())

    def summary(self) -> dict[str, Any]:
        """Counts shown to organisers."""
        turns = self.gold.turns
        return {
            "dialogues": len(turns),
            "turns": sum(map(len, turns.values())),
            "format": self.gold.format,
        }


@dataclass(frozen=True)
class Prediction:
    parsed: DvdFile
    turns: tuple[tuple[DvdState, ...], ...]
    missing_dialogues: int
    missing_turns: int


def write_sample(layout: tuple[tuple[str, int], ...]) -> bytes:
    """``token-sequence`` with an empty state ``""`` for every turn, one dialogue per line."""
    rows = [f"{json.dumps(k)}: {json.dumps([''] * n)}" for k, n in layout]
    return ("{\n" + ",\n".join(rows) + "\n}\n").encode()


def load_reference(gold: Source, files: Mapping[str, Source], options: Options) -> Reference:
    """Read a DVD-DST gold file (either form, see :mod:`scoring.dvd.data`)."""
    parsed = read_dvd(gold.data, gold.name)
    if not parsed.turns:
        raise InvalidFile(f"{gold.name}: the reference contains no dialogues.")
    # A state may describe, as JSON, twice the reference's largest state and a few objects more.
    states = [s for turns in parsed.turns.values() for s in turns]
    objects = max((len(s.objects) for s in states), default=0)
    limit = budget(gold.data, len(parsed.turns), len(states), 16 + 12 * (2 * objects + 4))
    return Reference(parsed, limit)


def load_prediction(source: Source, reference: Reference, options: Options) -> Prediction:
    """Read a prediction and align it with the reference's dialogues and turns."""
    parsed = read_dvd(source.data, source.name, reference.limit)
    aligned = align(
        source.name,
        reference.gold.turns,
        reference.gold.original_ids,
        parsed.turns,
        parsed.original_ids,
        options["missing"],
        EMPTY,
    )
    return Prediction(parsed, aligned.turns, aligned.missing_dialogues, aligned.missing_turns)


def check_file(source: Source, options: Options) -> str:
    """Check a prediction without the reference; its format."""
    return read_dvd(source.data, source.name).format


def score(
    task: Task,
    reference: Reference,
    prediction: Prediction,
    options: Options,
    resampling: Resampling,
) -> TaskResult:
    """Score a prediction; see :mod:`scoring.dvd.metrics` for the definitions."""
    gold_turns = tuple(reference.gold.turns.values())
    columns, verdicts = score_dialogues(gold_turns, prediction.turns)
    warnings = []
    if prediction.missing_turns:
        warnings.append(
            f"{prediction.missing_turns} turn(s) missing from the prediction "
            f"({prediction.missing_dialogues} whole dialogue(s)) were scored as empty states."
        )
    settings = ["iou:none-none=1", f"missing:{options['missing']}"]
    return finish(
        task=task,
        format=prediction.parsed.format,
        signature=signature(task.name, settings, resampling, {"gold": reference.sha256}),
        dialogues=DialogueRatios(
            tuple(reference.gold.original_ids.values()), columns, tuple(verdicts)
        ),
        resampling=resampling,
        counts={
            "dialogues": len(gold_turns),
            "turns": sum(len(t) for t in gold_turns),
            "missing_dialogues": prediction.missing_dialogues,
            "missing_turns": prediction.missing_turns,
        },
        details={"missing": options["missing"]},
        warnings=warnings,
    )


TASK = Task(
    name="dvd",
    label="DVD-DST (video-grounded)",
    description="Object states (size, color, material, shape) with a temporal segment.",
    formats=FORMATS,
    metrics=(
        MetricSpec("joint", "Joint Acc", description="All object-slot-value triples right."),
        MetricSpec("joint_iou50", "Joint Acc IoU@0.5", description="Joint and segment IoU>=0.5."),
        MetricSpec("joint_iou70", "Joint Acc IoU@0.7", description="Joint and segment IoU>=0.7."),
        MetricSpec("object_f1", "Object F1", description="Micro F1 of object identities."),
        MetricSpec("slot_f1", "Slot F1", description="Micro F1 of (object, slot) pairs."),
        MetricSpec("state_f1", "State F1", description="Micro F1 of (object, slot, value)."),
    ),
    primary="joint",
    tiebreak="state_f1",
    options=(OptionSpec("missing", "Missing turns", "reject", MISSING_POLICIES),),
    reference_files=(),
    read_reference=load_reference,
    read_prediction=load_prediction,
    check_file=check_file,
    compute=score,
    write_sample=write_sample,
)
