"""The ``multiwoz22`` task: loading a reference (gold + schema), a prediction, and scoring."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from scoring.align import MISSING_POLICIES, align
from scoring.errors import InvalidFile
from scoring.formats import Budget, budget
from scoring.multiwoz22.data import FORMATS, Dialogues, Turn, read_dialogues
from scoring.multiwoz22.metrics import score_dialogues
from scoring.multiwoz22.schema import Schema, name_key, read_schema
from scoring.multiwoz22.values import MATCHES, normalise_value
from scoring.seen import (
    SEEN_METRICS,
    TRAINING_FILE,
    TrainingValues,
    read_training_values,
    seen_columns,
    seen_details,
)
from scoring.taskapi import (
    DialogueRatios,
    FileSpec,
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
    schema: Schema
    gold: Dialogues
    training: TrainingValues | None = None
    #: the most a prediction for it can hold (see :class:`scoring.formats.Budget`)
    limit: Budget | None = None

    @property
    def sha256(self) -> str:
        return self.gold.sha256

    def layout(self) -> tuple[tuple[str, int], ...]:
        """Each dialogue's id as written and its number of user turns (for a sample file)."""
        ids = self.gold.original_ids
        return tuple((ids[key], len(turns)) for key, turns in self.gold.turns.items())

    def summary(self) -> dict[str, Any]:
        """Counts shown to organisers."""
        turns = self.gold.turns
        return {
            "dialogues": len(turns),
            "turns": sum(map(len, turns.values())),
            "services": sorted(self.schema.services),
            "format": self.gold.format,
        }


@dataclass(frozen=True)
class Prediction:
    parsed: Dialogues
    turns: tuple[tuple[Turn, ...], ...]
    missing_dialogues: int
    missing_turns: int


def write_sample(layout: tuple[tuple[str, int], ...]) -> bytes:
    """``sgd-dialogues`` with every user turn and no frame (an empty state in every service),
    one dialogue per line."""
    rows = [
        json.dumps(
            {"dialogue_id": dialogue_id, "turns": [{"speaker": "USER", "frames": []}] * turns}
        )
        for dialogue_id, turns in layout
    ]
    return ("[\n" + ",\n".join(rows) + "\n]\n").encode()


def load_reference(gold: Source, files: Mapping[str, Source], options: Options) -> Reference:
    """Read a schema and a gold file in the ``sgd-dialogues`` format (and training values)."""
    schema = files.get("schema")
    if schema is None:
        raise InvalidFile("a multiwoz22 reference needs its schema file (schema.json).")
    parsed_schema = read_schema(schema.data, schema.name)
    dialogues = read_dialogues(gold.data, gold.name, parsed_schema, gold=True)
    source = files.get("training_values")
    training = None
    if source is not None:
        training = read_training_values(
            source.data, source.name, name_key, lambda _slot, v: normalise_value(v)
        )
    # A user turn may carry a frame for every service with every slot (and wrong values).
    services = parsed_schema.services.values()
    names = len(parsed_schema.services) + sum(len(s.slots) for s in services)
    turns = sum(map(len, dialogues.turns.values()))
    limit = budget(gold.data, len(dialogues.turns), turns, 16 + 4 * names)
    return Reference(parsed_schema, dialogues, training, limit)


def load_prediction(source: Source, reference: Reference, options: Options) -> Prediction:
    """Read a prediction (``sgd-dialogues`` or ``flat-states``) and align it with the gold."""
    parsed = read_dialogues(
        source.data, source.name, reference.schema, gold=False, limit=reference.limit
    )
    aligned = align(
        source.name,
        reference.gold.turns,
        reference.gold.original_ids,
        parsed.turns,
        parsed.original_ids,
        options["missing"],
        {},
    )
    return Prediction(parsed, aligned.turns, aligned.missing_dialogues, aligned.missing_turns)


def check_file(source: Source, options: Options) -> str:
    """Check a prediction without the reference (nor its schema); its format."""
    return read_dialogues(source.data, source.name, None, gold=False).format


def score(
    task: Task,
    reference: Reference,
    prediction: Prediction,
    options: Options,
    resampling: Resampling,
) -> TaskResult:
    """Score a prediction against a reference; see :mod:`scoring.multiwoz22.metrics`."""
    match = options["match"]
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
    if not with_intents:
        del columns["intent_acc"], columns["requested_f1"]
    details: dict[str, Any] = {"match": match, "missing": options["missing"]}
    files = {"gold": reference.gold.sha256, "schema": reference.schema.sha256}
    if training is not None:
        seen_unseen = seen_columns(marks)
        columns.update(seen_unseen)
        details["seen_unseen"] = seen_details(training, seen_unseen)
        files["train"] = training.sha256
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
    settings = [
        "match:fuzzy-token-sort-rounded" if match == "fuzzy" else "match:exact",
        "norm:lower",
        f"missing:{options['missing']}",
    ]
    return finish(
        task=task,
        format=prediction.parsed.format,
        signature=signature(task.name, settings, resampling, files),
        dialogues=DialogueRatios(
            tuple(reference.gold.original_ids.values()),
            columns,
            tuple("".join("1" if joint == 1 else "0" for joint, _ in turns) for turns in marks),
        ),
        resampling=resampling,
        counts={
            "dialogues": len(gold_turns),
            "turns": sum(len(t) for t in gold_turns),
            "missing_dialogues": prediction.missing_dialogues,
            "missing_turns": prediction.missing_turns,
        },
        details=details,
        warnings=warnings,
    )


TASK = Task(
    name="multiwoz22",
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
        *SEEN_METRICS,
    ),
    primary="jga",
    tiebreak="avg_goal",
    options=(
        OptionSpec("match", "Value matching", "exact", MATCHES),
        OptionSpec("missing", "Missing turns", "reject", MISSING_POLICIES),
    ),
    reference_files=(
        FileSpec("schema", "Schema (schema.json)", required=True, public=True),
        TRAINING_FILE,
    ),
    read_reference=load_reference,
    read_prediction=load_prediction,
    check_file=check_file,
    compute=score,
    write_sample=write_sample,
)
