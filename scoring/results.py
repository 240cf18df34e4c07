"""Scores with intervals and signatures: the public entry points of the ``dstc11`` task."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from scoring.dstc11 import (
    MISSING_POLICIES,
    Counts,
    DialogueStats,
    DomainStats,
    Prediction,
    Reference,
    SlotStats,
    count,
)
from scoring.normalise import PROFILES
from scoring.settings import check_settings
from scoring.version import __version__

if TYPE_CHECKING:
    from scoring.stats import PairedTest

TASK = "dstc11"
DEFAULT_SEED = 12345
DEFAULT_BOOTSTRAP = 1000
DEFAULT_LEVEL = 0.95


class Settings(NamedTuple):
    """How a score is computed; every field is part of the signature."""

    profile: str = "default"
    missing: str = "reject"
    n_boot: int = DEFAULT_BOOTSTRAP
    level: float = DEFAULT_LEVEL
    seed: int = DEFAULT_SEED

    def check(self) -> None:
        from scoring.errors import ScoringError

        if self.profile not in PROFILES:
            raise ScoringError(
                f"unknown normalisation profile {self.profile!r}; choose one of: "
                + ", ".join(PROFILES)
            )
        if self.missing not in MISSING_POLICIES:
            raise ScoringError(
                f"unknown missing-turn policy {self.missing!r}; choose one of: "
                + ", ".join(MISSING_POLICIES)
            )
        check_settings(self.n_boot, self.level)

    def signature(self, gold_sha256: str) -> str:
        """A sacrebleu-style signature, ``dstc11|norm:..|missing:..|ci:..|seed:..|gold:..|v:..``."""
        level = f"{self.level * 100:g}"
        return "|".join(
            [
                TASK,
                f"norm:{self.profile}",
                f"missing:{self.missing}",
                f"ci:bootstrap-{self.n_boot}-dialogue-{level}",
                f"seed:{self.seed}",
                f"gold:sha256:{gold_sha256[:8]}",
                f"v:{__version__}",
            ]
        )


class Score(NamedTuple):
    """The score of one prediction file against one reference. Percentages are on 0-100."""

    format: str
    turns: int
    dialogues: int
    jga: float
    ser: float
    n_ref: int
    sub: int
    dele: int
    ins: int
    slot_precision: float
    slot_recall: float
    slot_f1: float
    jga_ci: tuple[float, float]
    ser_ci: tuple[float, float]
    per_slot: Mapping[str, SlotStats]
    per_domain: Mapping[str, DomainStats]
    per_dialogue: tuple[DialogueStats, ...]
    missing_dialogues: int
    missing_turns: int
    warnings: tuple[str, ...]
    settings: Settings
    signature: str

    def as_dict(self, per_dialogue: bool = False) -> dict[str, Any]:
        """A JSON-ready dict (the CLI's ``--json`` output and what the server stores)."""
        result: dict[str, Any] = {
            "task": TASK,
            "format": self.format,
            "turns": self.turns,
            "dialogues": self.dialogues,
            "jga": self.jga,
            "ser": self.ser,
            "n_ref": self.n_ref,
            "sub": self.sub,
            "del": self.dele,
            "ins": self.ins,
            "slot_precision": self.slot_precision,
            "slot_recall": self.slot_recall,
            "slot_f1": self.slot_f1,
            "jga_ci": list(self.jga_ci),
            "ser_ci": list(self.ser_ci),
            "ci_level": self.settings.level,
            "profile": self.settings.profile,
            "missing": self.settings.missing,
            "missing_dialogues": self.missing_dialogues,
            "missing_turns": self.missing_turns,
            "per_slot": {k: v.as_dict() for k, v in self.per_slot.items()},
            "per_domain": {
                k: {"turns": v.turns, "correct": v.correct, "jga": v.jga}
                for k, v in self.per_domain.items()
            },
            "warnings": list(self.warnings),
            "signature": self.signature,
        }
        if per_dialogue:
            result["per_dialogue"] = [
                {
                    "id": d.dialogue_id,
                    "turns": d.turns,
                    "correct": d.correct,
                    "n_ref": d.n_ref,
                    "sub": d.sub,
                    "del": d.dele,
                    "ins": d.ins,
                    "turn_correct": d.turn_correct,
                }
                for d in self.per_dialogue
            ]
        return result


def _percent(numerator: int, denominator: int) -> float:
    return 100.0 * numerator / denominator if denominator else math.nan


class Statistics(Protocol):
    """Where intervals and paired tests are computed: :mod:`scoring.stats` itself, or an
    object with the same two functions (the command line runs them in a forked process)."""

    def bootstrap_ci(
        self,
        pairs: dict[str, tuple[Sequence[float], Sequence[float]]],
        n_boot: int,
        seed: int,
        level: float,
    ) -> dict[str, tuple[float, float]]: ...

    def paired_test(
        self,
        metric: str,
        numerator_a: Sequence[float],
        numerator_b: Sequence[float],
        denominator: Sequence[float],
        n_boot: int,
        seed: int,
        level: float,
    ) -> PairedTest: ...


def _local_statistics() -> Statistics:
    from scoring import stats  # numpy loads here, not when the library is imported

    return stats


def dialogue_columns(dialogues: Sequence[DialogueStats]) -> dict[str, list[int]]:
    """Per-dialogue counts: turns, correct turns, gold slot values and slot errors."""
    return {
        "turns": [d.turns for d in dialogues],
        "correct": [d.correct for d in dialogues],
        "n_ref": [d.n_ref for d in dialogues],
        "errors": [d.sub + d.dele + d.ins for d in dialogues],
    }


def score(
    reference: Reference,
    prediction: Prediction,
    settings: Settings | None = None,
    statistics: Statistics | None = None,
) -> Score:
    """Score an aligned prediction against its reference with intervals and a signature."""
    settings = settings or Settings(missing=prediction.missing_policy)
    settings.check()
    counts = count(reference, prediction, settings.profile)
    arrays = dialogue_columns(counts.dialogues)
    intervals = (statistics or _local_statistics()).bootstrap_ci(
        {
            "jga": (arrays["correct"], arrays["turns"]),
            "ser": (arrays["errors"], arrays["n_ref"]),
        },
        settings.n_boot,
        settings.seed,
        settings.level,
    )
    return _assemble(counts, prediction, settings, reference.sha256, intervals)


def _assemble(
    counts: Counts,
    prediction: Prediction,
    settings: Settings,
    gold_sha256: str,
    intervals: dict[str, tuple[float, float]],
) -> Score:
    true_pos = counts.n_ref - counts.sub - counts.dele
    n_pred = true_pos + counts.sub + counts.ins
    precision = _percent(true_pos, n_pred)
    recall = _percent(true_pos, counts.n_ref)
    f1 = (
        2 * precision * recall / (precision + recall)
        if n_pred and counts.n_ref and precision + recall > 0
        else 0.0
    )
    warnings = []
    if prediction.missing_turns:
        warnings.append(
            f"{prediction.missing_turns} user turn(s) missing from the prediction "
            f"({prediction.missing_dialogues} whole dialogue(s)) were scored as empty states."
        )
    if counts.out_of_ontology:
        listed = ", ".join(f"{k} ({n})" for k, n in counts.out_of_ontology.items())
        warnings.append(f"slots not in the reference's ontology, scored as insertions: {listed}.")
    return Score(
        format=prediction.parsed.format,
        turns=counts.turns,
        dialogues=len(counts.dialogues),
        jga=_percent(counts.correct, counts.turns),
        ser=_percent(counts.sub + counts.dele + counts.ins, counts.n_ref),
        n_ref=counts.n_ref,
        sub=counts.sub,
        dele=counts.dele,
        ins=counts.ins,
        slot_precision=precision,
        slot_recall=recall,
        slot_f1=f1,
        jga_ci=intervals["jga"],
        ser_ci=intervals["ser"],
        per_slot=counts.per_slot,
        per_domain=counts.per_domain,
        per_dialogue=counts.dialogues,
        missing_dialogues=prediction.missing_dialogues,
        missing_turns=prediction.missing_turns,
        warnings=tuple(warnings),
        settings=settings,
        signature=settings.signature(gold_sha256),
    )


class Comparison(NamedTuple):
    """Two systems scored on one reference and their paired tests (A minus B)."""

    a: Score
    b: Score
    jga: PairedTest
    ser: PairedTest


def compare(
    reference: Reference,
    a: Prediction,
    b: Prediction,
    settings: Settings | None = None,
    statistics: Statistics | None = None,
) -> Comparison:
    """Score A and B and test their JGA and SER differences over dialogues."""
    settings = settings or Settings(missing=a.missing_policy)
    stats = statistics or _local_statistics()
    score_a = score(reference, a, settings, stats)
    score_b = score(reference, b, settings, stats)
    arr_a = dialogue_columns(score_a.per_dialogue)
    arr_b = dialogue_columns(score_b.per_dialogue)
    args = (settings.n_boot, settings.seed, settings.level)
    return Comparison(
        a=score_a,
        b=score_b,
        jga=stats.paired_test("jga", arr_a["correct"], arr_b["correct"], arr_a["turns"], *args),
        ser=stats.paired_test("ser", arr_a["errors"], arr_b["errors"], arr_a["n_ref"], *args),
    )
