"""The ``dstc11`` task as a registry entry: the existing functions, unchanged, behind the
generic :class:`~scoring.taskapi.Task` interface, plus the optional seen/unseen breakdown."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from scoring.dstc11.model import MISSING_POLICIES, Prediction, Reference
from scoring.dstc11.model import load_prediction as _load_prediction
from scoring.dstc11.model import load_reference as _load_reference
from scoring.formats import FORMATS
from scoring.normalise import PROFILES, slot_key, value_normaliser
from scoring.results import Settings, Statistics, score
from scoring.seen import TrainingValues, read_training_values, seen_columns
from scoring.taskapi import (
    DialogueRatios,
    FileSpec,
    MetricSpec,
    OptionSpec,
    Resampling,
    Source,
    Task,
    TaskResult,
    finish,
)

SEEN_METRICS = (
    MetricSpec(
        "jga_seen",
        "JGA (seen values)",
        optional=True,
        description="JGA over turns whose gold values were all seen in training.",
    ),
    MetricSpec(
        "jga_unseen",
        "JGA (unseen values)",
        optional=True,
        description="JGA over turns with at least one gold value unseen in training.",
    ),
)
TRAINING_FILE = FileSpec(
    "training_values",
    "Training values",
    required=False,
    description="JSON list of 'slot=value' or 'value' strings, or {slot: [values]}.",
)


@dataclass(frozen=True)
class Dstc11Reference:
    """The gold reference and, optionally, the slot values seen in training."""

    gold: Reference
    training: TrainingValues | None = None


def with_training(signature: str, training: TrainingValues | None) -> str:
    """Insert ``train:sha256:xxxxxxxx`` before the version when a breakdown was computed."""
    if training is None:
        return signature
    head, sep, version = signature.rpartition("|v:")
    return f"{head}|train:sha256:{training.sha256[:8]}{sep}{version}"


def _split_key(text: str) -> str:
    domain, _, slot = text.partition("-")
    return slot_key(domain, slot)


def load_reference(
    gold: Source, files: Mapping[str, Source], options: Mapping[str, str]
) -> Dstc11Reference:
    reference = _load_reference(gold.data, gold.name)
    training = files.get("training_values")
    values = None
    if training is not None:
        profile = options.get("profile", "default")
        values = read_training_values(
            training.data, training.name, _split_key, value_normaliser(profile)
        )
    return Dstc11Reference(reference, values)


def load_prediction(
    source: Source, reference: Dstc11Reference, options: Mapping[str, str]
) -> Prediction:
    return _load_prediction(
        source.data,
        reference.gold,
        source.name,
        options.get("missing", "reject"),
        options.get("profile", "default"),
    )


def score_task(
    reference: Dstc11Reference,
    prediction: Prediction,
    options: Mapping[str, str],
    resampling: Resampling,
    statistics: Statistics | None = None,
) -> TaskResult:
    """Score with :func:`scoring.score` and wrap the result; the numbers are the same."""
    settings = Settings(
        profile=options.get("profile", "default"),
        missing=options.get("missing", "reject"),
        n_boot=resampling.n_boot,
        level=resampling.level,
        seed=resampling.seed,
    )
    native = score(reference.gold, prediction, settings, statistics)
    dialogues = native.per_dialogue
    columns: dict[str, tuple[tuple[float, ...], tuple[float, ...]]] = {
        "jga": (tuple(d.correct for d in dialogues), tuple(d.turns for d in dialogues)),
        "ser": (
            tuple(d.sub + d.dele + d.ins for d in dialogues),
            tuple(d.n_ref for d in dialogues),
        ),
        # F1 = 2 TP / (n_pred + n_ref), with TP = n_ref - S - D and n_pred = TP + S + I.
        "slot_f1": (
            tuple(2 * (d.n_ref - d.sub - d.dele) for d in dialogues),
            tuple(2 * d.n_ref - d.dele + d.ins for d in dialogues),
        ),
    }
    details: dict[str, Any] = {"native": native.as_dict()}
    if reference.training is not None:
        training = reference.training
        states = reference.gold.facts(settings.profile).states
        turns = [
            [
                (1.0 if mark == "1" else 0.0, all(training.seen(k, (v,)) for k, v in st.items()))
                for mark, st in zip(d.turn_correct, gold_turns, strict=True)
            ]
            for d, gold_turns in zip(dialogues, states, strict=True)
        ]
        columns.update(seen_columns(turns))
        seen_turns = int(sum(columns["jga_seen"][1]))
        details["seen_unseen"] = {
            "training_values_sha256": training.sha256,
            "seen_turns": seen_turns,
            "unseen_turns": native.turns - seen_turns,
        }
    ratios = DialogueRatios(tuple(d.dialogue_id for d in dialogues), columns)
    seen_only = finish(
        task="dstc11",
        format=native.format,
        signature=with_training(native.signature, reference.training),
        metrics=SEEN_METRICS,
        dialogues=ratios,
        resampling=resampling,
        statistics=statistics,
        counts={
            "dialogues": native.dialogues,
            "turns": native.turns,
            "gold_values": native.n_ref,
            "missing_turns": native.missing_turns,
        },
        details=details,
        warnings=native.warnings,
    )
    return dataclasses.replace(
        seen_only,
        values={
            "jga": native.jga,
            "ser": native.ser,
            "slot_f1": native.slot_f1,
            **seen_only.values,
        },
        cis={"jga": native.jga_ci, "ser": native.ser_ci, **seen_only.cis},
        native=native,
    )


TASK = Task(
    name="dstc11",
    label="DSTC11 speech-aware DST",
    description="Spoken MultiWOZ: Joint Goal Accuracy and Slot Error Rate (DESIGN.md).",
    formats=FORMATS,
    metrics=(
        MetricSpec("jga", "JGA", description="Joint goal accuracy."),
        MetricSpec("ser", "SER", direction="lower", description="Slot error rate."),
        MetricSpec("slot_f1", "Slot F1", interval=False, description="Exact slot-value F1."),
        *SEEN_METRICS,
    ),
    primary="jga",
    options=(
        OptionSpec("profile", "Normalisation", "default", PROFILES),
        OptionSpec("missing", "Missing turns", "reject", MISSING_POLICIES),
    ),
    reference_files=(TRAINING_FILE,),
    load_reference=load_reference,
    load_prediction=load_prediction,
    score=score_task,
)
