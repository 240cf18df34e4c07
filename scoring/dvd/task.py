"""The ``dvd`` task (DVD-DST): loading, scoring and its registry entry."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from scoring.align import MISSING_POLICIES, align
from scoring.dvd.data import EMPTY, FORMATS, DvdFile, DvdState, read_dvd
from scoring.dvd.metrics import score_dialogues
from scoring.errors import InvalidFile
from scoring.results import Statistics
from scoring.taskapi import (
    DialogueRatios,
    MetricSpec,
    OptionSpec,
    Resampling,
    Source,
    Task,
    TaskResult,
    finish,
)
from scoring.version import __version__

NAME = "dvd"


@dataclass(frozen=True)
class Reference:
    gold: DvdFile

    @property
    def sha256(self) -> str:
        return self.gold.sha256


@dataclass(frozen=True)
class Prediction:
    parsed: DvdFile
    turns: tuple[tuple[DvdState, ...], ...]
    missing_dialogues: int
    missing_turns: int


def load_reference(data: bytes, name: str = "gold.json") -> Reference:
    """Read a DVD-DST gold file (either form, see :mod:`scoring.dvd.data`)."""
    gold = read_dvd(data, name)
    if not gold.turns:
        raise InvalidFile(f"{name}: the reference contains no dialogues.")
    return Reference(gold)


def load_prediction(
    data: bytes, reference: Reference, name: str = "prediction.json", missing: str = "reject"
) -> Prediction:
    """Read a prediction and align it with the reference's dialogues and turns."""
    parsed = read_dvd(data, name)
    aligned = align(
        name,
        reference.gold.turns,
        reference.gold.original_ids,
        parsed.turns,
        parsed.original_ids,
        missing,
        EMPTY,
    )
    return Prediction(parsed, aligned.turns, aligned.missing_dialogues, aligned.missing_turns)


def score(
    reference: Reference,
    prediction: Prediction,
    missing: str = "reject",
    resampling: Resampling | None = None,
    statistics: Statistics | None = None,
) -> TaskResult:
    """Score a prediction; see :mod:`scoring.dvd.metrics` for the definitions."""
    resampling = resampling or Resampling()
    resampling.check()
    gold_turns = tuple(reference.gold.turns.values())
    columns = score_dialogues(gold_turns, prediction.turns)
    signature = "|".join(
        [
            NAME,
            "iou:none-none=1",
            f"missing:{missing}",
            *resampling.signature_parts(),
            f"gold:sha256:{reference.gold.sha256[:8]}",
            f"v:{__version__}",
        ]
    )
    warnings = []
    if prediction.missing_turns:
        warnings.append(
            f"{prediction.missing_turns} turn(s) missing from the prediction "
            f"({prediction.missing_dialogues} whole dialogue(s)) were scored as empty states."
        )
    return finish(
        task=NAME,
        format=prediction.parsed.format,
        signature=signature,
        metrics=TASK.metrics,
        dialogues=DialogueRatios(tuple(reference.gold.original_ids.values()), columns),
        resampling=resampling,
        statistics=statistics,
        counts={
            "dialogues": len(gold_turns),
            "turns": sum(len(t) for t in gold_turns),
            "missing_turns": prediction.missing_turns,
        },
        details={"missing": missing},
        warnings=warnings,
    )


def _load_reference(gold: Source, files: Mapping[str, Source], options: Mapping[str, str]) -> Any:
    return load_reference(gold.data, gold.name)


def _load_prediction(source: Source, reference: Any, options: Mapping[str, str]) -> Any:
    return load_prediction(source.data, reference, source.name, options.get("missing", "reject"))


def _score(
    reference: Any,
    prediction: Any,
    options: Mapping[str, str],
    resampling: Resampling,
    statistics: Any,
) -> TaskResult:
    return score(reference, prediction, options.get("missing", "reject"), resampling, statistics)


TASK = Task(
    name=NAME,
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
    options=(OptionSpec("missing", "Missing turns", "reject", MISSING_POLICIES),),
    reference_files=(),
    load_reference=_load_reference,
    load_prediction=_load_prediction,
    score=_score,
)
