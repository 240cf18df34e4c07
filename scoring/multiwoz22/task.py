"""The ``multiwoz22`` task: loading a reference (gold + schema), a prediction, and scoring."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from scoring.align import MISSING_POLICIES, align
from scoring.errors import InvalidFile
from scoring.multiwoz22.data import FORMATS, Dialogues, Turn, read_dialogues
from scoring.multiwoz22.metrics import score_dialogues
from scoring.multiwoz22.schema import Schema, name_key, read_schema
from scoring.multiwoz22.values import MATCHES, normalise_value
from scoring.results import Statistics
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
from scoring.version import __version__

NAME = "multiwoz22"


@dataclass(frozen=True)
class Reference:
    schema: Schema
    gold: Dialogues
    training: TrainingValues | None = None

    @property
    def sha256(self) -> str:
        return self.gold.sha256


@dataclass(frozen=True)
class Prediction:
    parsed: Dialogues
    turns: tuple[tuple[Turn, ...], ...]
    missing_dialogues: int
    missing_turns: int


def load_reference(
    gold: bytes,
    schema: bytes,
    name: str = "gold.json",
    schema_name: str = "schema.json",
    training_values: bytes | None = None,
    training_name: str = "training_values.json",
) -> Reference:
    """Read a schema and a gold file in the ``sgd-dialogues`` format (and training values)."""
    parsed_schema = read_schema(schema, schema_name)
    dialogues = read_dialogues(gold, name, parsed_schema, gold=True)
    training = None
    if training_values is not None:
        training = read_training_values(
            training_values, training_name, name_key, lambda _slot, v: normalise_value(v)
        )
    return Reference(parsed_schema, dialogues, training)


def load_prediction(
    data: bytes, reference: Reference, name: str = "prediction.json", missing: str = "reject"
) -> Prediction:
    """Read a prediction (``sgd-dialogues`` or ``flat-states``) and align it with the gold."""
    parsed = read_dialogues(data, name, reference.schema, gold=False)
    aligned = align(
        name,
        reference.gold.turns,
        reference.gold.original_ids,
        parsed.turns,
        parsed.original_ids,
        missing,
        {},
    )
    return Prediction(parsed, aligned.turns, aligned.missing_dialogues, aligned.missing_turns)


def signature(reference: Reference, match: str, missing: str, resampling: Resampling) -> str:
    parts = [
        NAME,
        "match:fuzzy-token-sort-rounded" if match == "fuzzy" else "match:exact",
        "norm:lower",
        f"missing:{missing}",
        *resampling.signature_parts(),
        f"gold:sha256:{reference.gold.sha256[:8]}",
        f"schema:sha256:{reference.schema.sha256[:8]}",
    ]
    if reference.training is not None:
        parts.append(f"train:sha256:{reference.training.sha256[:8]}")
    return "|".join([*parts, f"v:{__version__}"])


def score(
    reference: Reference,
    prediction: Prediction,
    match: str = "exact",
    missing: str = "reject",
    resampling: Resampling | None = None,
    statistics: Statistics | None = None,
) -> TaskResult:
    """Score a prediction against a reference; see :mod:`scoring.multiwoz22.metrics`."""
    resampling = resampling or Resampling()
    resampling.check()
    if match not in MATCHES:
        raise InvalidFile(f"unknown matching {match!r}; choose one of: " + ", ".join(MATCHES))
    gold_turns = tuple(reference.gold.turns.values())
    training = reference.training
    seen = None
    if training is not None:

        def seen(turn: Turn) -> bool:
            return all(
                training.seen(slot, values)
                for frame in turn.values()
                for slot, values in frame.values.items()
            )

    with_intents = prediction.parsed.format == "sgd-dialogues"
    columns, marks = score_dialogues(
        reference.schema, gold_turns, prediction.turns, match, with_intents, seen
    )
    ratios: dict[str, tuple[tuple[float, ...], tuple[float, ...]]] = {
        m: (tuple(num), tuple(den)) for m, (num, den) in columns.items()
    }
    if not with_intents:
        del ratios["intent_acc"], ratios["requested_f1"]
    details: dict[str, Any] = {"match": match, "missing": missing}
    if training is not None:
        ratios.update(seen_columns(marks))
        details["seen_unseen"] = {
            "training_values_sha256": training.sha256,
            "seen_turns": int(sum(ratios["jga_seen"][1])),
            "unseen_turns": int(sum(ratios["jga_unseen"][1])),
        }
    warnings = []
    if not with_intents:
        warnings.append(
            "flat states carry no intents or requested slots: active-intent accuracy and "
            "requested-slot F1 are not computed."
        )
    if prediction.missing_turns:
        warnings.append(
            f"{prediction.missing_turns} user turn(s) missing from the prediction "
            f"({prediction.missing_dialogues} whole dialogue(s)) were scored as empty states."
        )
    if prediction.parsed.off_schema:
        listed = ", ".join(f"{k} ({n})" for k, n in sorted(prediction.parsed.off_schema.items()))
        warnings.append(f"categorical values outside the schema's possible values: {listed}.")
    n_turns = sum(len(t) for t in gold_turns)
    return finish(
        task=NAME,
        format=prediction.parsed.format,
        signature=signature(reference, match, missing, resampling),
        metrics=TASK.metrics,
        dialogues=DialogueRatios(tuple(reference.gold.original_ids.values()), ratios),
        resampling=resampling,
        statistics=statistics,
        counts={
            "dialogues": len(gold_turns),
            "turns": n_turns,
            "missing_turns": prediction.missing_turns,
        },
        details=details,
        warnings=warnings,
    )


def _load_reference(gold: Source, files: Mapping[str, Source], options: Mapping[str, str]) -> Any:
    schema = files.get("schema")
    if schema is None:
        raise InvalidFile("a multiwoz22 reference needs its schema file (schema.json).")
    training = files.get("training_values")
    return load_reference(
        gold.data,
        schema.data,
        gold.name,
        schema.name,
        training.data if training else None,
        training.name if training else "training_values.json",
    )


def _load_prediction(source: Source, reference: Any, options: Mapping[str, str]) -> Any:
    return load_prediction(source.data, reference, source.name, options.get("missing", "reject"))


def _score(
    reference: Any,
    prediction: Any,
    options: Mapping[str, str],
    resampling: Resampling,
    statistics: Any,
) -> TaskResult:
    return score(
        reference,
        prediction,
        options.get("match", "exact"),
        options.get("missing", "reject"),
        resampling,
        statistics,
    )


TASK = Task(
    name=NAME,
    label="MultiWOZ 2.2 (schema-guided)",
    description="Schema-aware, multi-reference DST with joint accuracies across frames.",
    formats=FORMATS,
    metrics=(
        MetricSpec("jga", "JGA", description="Joint goal accuracy across the frames of a turn."),
        MetricSpec("jga_cat", "Cat. JGA", description="JGA over categorical slots."),
        MetricSpec("jga_noncat", "Non-cat. JGA", description="JGA over non-categorical slots."),
        MetricSpec("avg_goal", "Avg. goal acc.", description="Mean accuracy of active slots."),
        MetricSpec("avg_cat", "Avg. cat. acc.", description="Average goal accuracy, categorical."),
        MetricSpec(
            "avg_noncat", "Avg. non-cat. acc.", description="Average goal accuracy, non-cat."
        ),
        MetricSpec("intent_acc", "Intent acc.", description="Active-intent accuracy."),
        MetricSpec("requested_f1", "Req. slot F1", description="Requested-slot F1 per frame."),
        MetricSpec("jga_seen", "JGA (seen)", optional=True, description="Turns all seen."),
        MetricSpec("jga_unseen", "JGA (unseen)", optional=True, description="Turns with unseen."),
    ),
    primary="jga",
    options=(
        OptionSpec("match", "Value matching", "exact", MATCHES),
        OptionSpec("missing", "Missing turns", "reject", MISSING_POLICIES),
    ),
    reference_files=(
        FileSpec("schema", "Schema (schema.json)", required=True),
        FileSpec("training_values", "Training values", required=False),
    ),
    load_reference=_load_reference,
    load_prediction=_load_prediction,
    score=_score,
)
