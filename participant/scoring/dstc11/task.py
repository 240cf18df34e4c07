"""The ``dstc11`` task: Joint Goal Accuracy and Slot Error Rate per user turn, with slot F1,
per-slot and per-domain breakdowns and the optional seen/unseen JGA."""

from __future__ import annotations

from typing import Any

from scoring.align import MISSING_POLICIES
from scoring.dstc11.counting import count
from scoring.dstc11.model import (
    Prediction,
    Reference,
    check_file,
    load_prediction,
    load_reference,
    write_sample,
)
from scoring.formats import FORMATS
from scoring.normalise import PROFILES
from scoring.seen import SEEN_METRICS, TRAINING_FILE, seen_columns, seen_details
from scoring.taskapi import (
    DialogueRatios,
    MetricSpec,
    Options,
    OptionSpec,
    Resampling,
    Task,
    TaskResult,
    finish,
    signature,
)


def _percent(numerator: int, denominator: int) -> float:
    return 100.0 * numerator / denominator if denominator else float("nan")


def score(
    task: Task,
    reference: Reference,
    prediction: Prediction,
    options: Options,
    resampling: Resampling,
) -> TaskResult:
    """Count every turn's errors, then aggregate per dialogue (see :mod:`.counting`)."""
    counts = count(reference, prediction)
    dialogues = counts.dialogues
    columns: dict[str, tuple[list[float], list[float]]] = {
        "jga": ([d.correct for d in dialogues], [d.turns for d in dialogues]),
        "ser": ([d.sub + d.dele + d.ins for d in dialogues], [d.n_ref for d in dialogues]),
        # F1 = 2 TP / (n_pred + n_ref), with TP = n_ref - S - D and n_pred = TP + S + I.
        "slot_f1": (
            [2 * (d.n_ref - d.sub - d.dele) for d in dialogues],
            [2 * d.n_ref - d.dele + d.ins for d in dialogues],
        ),
    }
    true_pos = counts.n_ref - counts.sub - counts.dele
    details: dict[str, Any] = {
        "profile": options["profile"],
        "missing": options["missing"],
        "n_ref": counts.n_ref,
        "sub": counts.sub,
        "del": counts.dele,
        "ins": counts.ins,
        "slot_precision": _percent(true_pos, true_pos + counts.sub + counts.ins),
        "slot_recall": _percent(true_pos, counts.n_ref),
        "per_domain": counts.per_domain,
        "per_slot": counts.per_slot,
    }
    files = {"gold": reference.sha256}
    training = reference.training
    if training is not None:
        marks = [
            [
                (1.0 if mark == "1" else 0.0, all(training.seen(k, (v,)) for k, v in state.items()))
                for mark, state in zip(d.turn_correct, gold_turns, strict=True)
            ]
            for d, gold_turns in zip(dialogues, reference.facts.states, strict=True)
        ]
        seen = seen_columns(marks)
        columns.update(seen)
        details["seen_unseen"] = seen_details(training, seen)
        files["train"] = training.sha256
    warnings = []
    if prediction.missing_turns:
        warnings.append(
            f"{prediction.missing_turns} user turn(s) missing from the prediction "
            f"({prediction.missing_dialogues} whole dialogue(s)) were scored as empty states."
        )
    if counts.out_of_ontology:
        listed = ", ".join(f"{k} ({n})" for k, n in counts.out_of_ontology.items())
        warnings.append(f"slots not in the reference's ontology, scored as insertions: {listed}.")
    return finish(
        task=task,
        format=prediction.format,
        signature=signature(
            task.name,
            [f"norm:{options['profile']}", f"missing:{options['missing']}"],
            resampling,
            files,
        ),
        dialogues=DialogueRatios(
            tuple(d.dialogue_id for d in dialogues),
            columns,
            tuple(d.turn_correct for d in dialogues),
        ),
        resampling=resampling,
        counts={
            "dialogues": len(dialogues),
            "turns": counts.turns,
            "gold_values": counts.n_ref,
            "missing_dialogues": prediction.missing_dialogues,
            "missing_turns": prediction.missing_turns,
        },
        details=details,
        warnings=warnings,
    )


TASK = Task(
    name="dstc11",
    label="DSTC11 speech-aware DST",
    description="Spoken MultiWOZ: Joint Goal Accuracy and Slot Error Rate per user turn.",
    formats=FORMATS,
    metrics=(
        MetricSpec("jga", "JGA", description="Joint goal accuracy."),
        MetricSpec("ser", "SER", direction="lower", description="Slot error rate."),
        MetricSpec("slot_f1", "Slot F1", interval=False, description="Exact slot-value F1."),
        *SEEN_METRICS,
    ),
    primary="jga",
    tiebreak="ser",
    options=(
        OptionSpec("profile", "Normalisation", "default", PROFILES),
        OptionSpec("missing", "Missing turns", "reject", MISSING_POLICIES),
    ),
    reference_files=(TRAINING_FILE,),
    read_reference=load_reference,
    read_prediction=load_prediction,
    check_file=check_file,
    compute=score,
    write_sample=write_sample,
)
