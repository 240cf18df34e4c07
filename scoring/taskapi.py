"""What every task has in common: its description and the generic view of its scores.

A task (``dstc11``, ``multiwoz22``, ``dvd``) is a :class:`Task`: its formats, metrics, options
and three functions (load a reference, load a prediction, score). Every score is a
:class:`TaskResult`, which the web side stores and renders without knowing the task:
``metrics()``, ``intervals()``, ``signature``, ``as_dict()`` and, per dialogue, the numerator and
denominator of every ratio metric (:class:`DialogueRatios`), from which :mod:`scoring.stats`
computes intervals and paired tests.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from scoring.errors import ScoringError
from scoring.settings import check_settings

if TYPE_CHECKING:
    from scoring.results import Statistics
    from scoring.stats import PairedTest

DEFAULT_SEED = 12345
DEFAULT_BOOTSTRAP = 1000
DEFAULT_LEVEL = 0.95


@dataclass(frozen=True)
class MetricSpec:
    """One metric of a task. Values are percentages on 0-100 (NaN when undefined)."""

    name: str
    label: str
    #: ``"higher"`` or ``"lower"``: which direction is better (for ranking).
    direction: str = "higher"
    scale: str = "0-100"
    #: whether the score carries a bootstrap interval for it.
    interval: bool = True
    #: reported only when an option or reference file enables it (e.g. seen/unseen JGA).
    optional: bool = False
    description: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "label": self.label,
            "direction": self.direction,
            "scale": self.scale,
            "interval": self.interval,
            "optional": self.optional,
            "description": self.description,
        }


@dataclass(frozen=True)
class OptionSpec:
    """A scorer option with its default and allowed values (all options are strings)."""

    name: str
    label: str
    default: str
    choices: tuple[str, ...]
    description: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "label": self.label,
            "default": self.default,
            "choices": list(self.choices),
            "description": self.description,
        }


@dataclass(frozen=True)
class FileSpec:
    """A file that belongs to a reference besides the gold (e.g. a schema)."""

    name: str
    label: str
    required: bool
    description: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "label": self.label,
            "required": self.required,
            "description": self.description,
        }


@dataclass(frozen=True)
class Source:
    """The bytes of one file and the name used for it in messages."""

    data: bytes
    name: str


@dataclass(frozen=True)
class Resampling:
    """Bootstrap settings shared by every task; all three are in the signature."""

    n_boot: int = DEFAULT_BOOTSTRAP
    level: float = DEFAULT_LEVEL
    seed: int = DEFAULT_SEED

    def check(self) -> None:
        check_settings(self.n_boot, self.level)

    def signature_parts(self) -> list[str]:
        return [f"ci:bootstrap-{self.n_boot}-dialogue-{self.level * 100:g}", f"seed:{self.seed}"]


@dataclass(frozen=True)
class DialogueRatios:
    """Per-dialogue sufficient statistics: metric -> (numerators, denominators), one entry per
    reference dialogue in reference order. Each metric is ``100 * sum(num) / sum(den)``."""

    ids: tuple[str, ...]
    columns: Mapping[str, tuple[tuple[float, ...], tuple[float, ...]]]

    def value(self, metric: str) -> float:
        numerators, denominators = self.columns[metric]
        total = math.fsum(denominators)
        return 100.0 * math.fsum(numerators) / total if total else math.nan

    def as_dict(self) -> list[dict[str, Any]]:
        return [
            {"id": key, **{m: [num[i], den[i]] for m, (num, den) in self.columns.items()}}
            for i, key in enumerate(self.ids)
        ]


@dataclass(frozen=True)
class TaskResult:
    """The score of one prediction against one reference, in a task-independent form."""

    task: str
    format: str
    signature: str
    values: Mapping[str, float]
    cis: Mapping[str, tuple[float, float]]
    level: float
    dialogues: DialogueRatios
    #: counts describing what was scored (dialogues, turns, ...).
    counts: Mapping[str, int]
    #: task-specific, JSON-ready details (per slot, per domain, seen/unseen, options ...).
    details: Mapping[str, Any] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()
    #: the task's own score object (e.g. :class:`scoring.Score` for ``dstc11``), if any.
    native: Any = field(default=None, compare=False, repr=False)

    def metrics(self) -> dict[str, float]:
        """Metric name -> value on 0-100 (NaN when undefined on this reference)."""
        return dict(self.values)

    def intervals(self) -> dict[str, tuple[float, float]]:
        """Metric name -> (low, high) bootstrap interval, for metrics that have one."""
        return dict(self.cis)

    def as_dict(self, per_dialogue: bool = False) -> dict[str, Any]:
        """JSON-ready: ``task``, ``format``, ``metrics``, ``intervals``, ``ci_level``, ``counts``,
        ``details``, ``warnings``, ``signature`` (and ``per_dialogue`` sufficient statistics:
        ``[{"id": .., metric: [numerator, denominator], ..}]``). NaN becomes null."""
        result: dict[str, Any] = {
            "task": self.task,
            "format": self.format,
            "metrics": {k: _json_float(v) for k, v in self.values.items()},
            "intervals": {
                k: [_json_float(lo), _json_float(hi)] for k, (lo, hi) in self.cis.items()
            },
            "ci_level": self.level,
            "counts": dict(self.counts),
            "details": dict(self.details),
            "warnings": list(self.warnings),
            "signature": self.signature,
        }
        if per_dialogue:
            result["per_dialogue"] = self.dialogues.as_dict()
        return result


def _json_float(value: float) -> float | None:
    return None if math.isnan(value) else value


def local_statistics() -> Statistics:
    from scoring import stats  # numpy loads here, not when the library is imported

    return stats


def finish(
    *,
    task: str,
    format: str,
    signature: str,
    metrics: Sequence[MetricSpec],
    dialogues: DialogueRatios,
    resampling: Resampling,
    statistics: Statistics | None,
    counts: Mapping[str, int],
    details: Mapping[str, Any] | None = None,
    warnings: Sequence[str] = (),
) -> TaskResult:
    """Aggregate the per-dialogue statistics into values and intervals."""
    present = [m for m in metrics if m.name in dialogues.columns]
    values = {m.name: dialogues.value(m.name) for m in present}
    wanted: dict[str, tuple[Sequence[float], Sequence[float]]] = {
        m.name: (list(dialogues.columns[m.name][0]), list(dialogues.columns[m.name][1]))
        for m in present
        if m.interval
    }
    cis: dict[str, tuple[float, float]] = {}
    if wanted:
        cis = (statistics or local_statistics()).bootstrap_ci(
            wanted, resampling.n_boot, resampling.seed, resampling.level
        )
    return TaskResult(
        task=task,
        format=format,
        signature=signature,
        values=values,
        cis=cis,
        level=resampling.level,
        dialogues=dialogues,
        counts=counts,
        details=details or {},
        warnings=tuple(warnings),
    )


def paired_tests(
    a: TaskResult,
    b: TaskResult,
    metrics: Sequence[MetricSpec],
    resampling: Resampling,
    statistics: Statistics | None = None,
) -> dict[str, PairedTest]:
    """A minus B for every interval metric whose per-dialogue denominators the two share
    (metrics whose denominator depends on the prediction, like F1, are left out)."""
    if a.dialogues.ids != b.dialogues.ids:
        raise ScoringError("the two scores are not on the same reference dialogues.")
    stats = statistics or local_statistics()
    tests = {}
    for metric in metrics:
        if not metric.interval or metric.name not in a.dialogues.columns:
            continue
        num_a, den_a = a.dialogues.columns[metric.name]
        num_b, den_b = b.dialogues.columns.get(metric.name, ((), ()))
        if den_a != den_b or not math.fsum(den_a):
            continue
        tests[metric.name] = stats.paired_test(
            metric.name,
            list(num_a),
            list(num_b),
            list(den_a),
            resampling.n_boot,
            resampling.seed,
            resampling.level,
        )
    return tests


@dataclass(frozen=True)
class Task:
    """A scoring task: everything the web side needs to build forms, tables and rankings."""

    name: str
    label: str
    #: formats accepted for predictions (and, where the same, for the gold).
    formats: tuple[str, ...]
    metrics: tuple[MetricSpec, ...]
    primary: str
    options: tuple[OptionSpec, ...]
    #: files a reference needs or may have besides the gold.
    reference_files: tuple[FileSpec, ...]
    #: ``(gold, extra files by FileSpec name, options) -> reference``
    load_reference: Callable[[Source, Mapping[str, Source], Mapping[str, str]], Any]
    #: ``(prediction, reference, options) -> prediction``
    load_prediction: Callable[[Source, Any, Mapping[str, str]], Any]
    #: ``(reference, prediction, options, resampling, statistics) -> TaskResult``
    score: Callable[[Any, Any, Mapping[str, str], Resampling, Any], TaskResult]
    description: str = ""

    def metric(self, name: str) -> MetricSpec:
        for metric in self.metrics:
            if metric.name == name:
                return metric
        raise ScoringError(f"task {self.name!r} has no metric {name!r}.")

    def check_options(self, options: Mapping[str, str] | None = None) -> dict[str, str]:
        """The options with defaults filled in; unknown names or values raise ScoringError."""
        given = dict(options or {})
        known = {o.name: o for o in self.options}
        unknown = sorted(set(given) - set(known))
        if unknown:
            raise ScoringError(
                f"task {self.name!r} has no option(s) {', '.join(unknown)}; its options are: "
                + (", ".join(known) or "none")
            )
        result = {}
        for name, spec in known.items():
            value = given.get(name, spec.default)
            if value not in spec.choices:
                raise ScoringError(
                    f"option {name!r} of task {self.name!r} cannot be {value!r}; choose one of: "
                    + ", ".join(spec.choices)
                )
            result[name] = value
        return result

    def describe(self) -> dict[str, Any]:
        """A JSON-ready description of the task (for forms, tables and charts)."""
        return {
            "name": self.name,
            "label": self.label,
            "description": self.description,
            "formats": list(self.formats),
            "metrics": [m.as_dict() for m in self.metrics],
            "primary": self.primary,
            "options": [o.as_dict() for o in self.options],
            "reference_files": [f.as_dict() for f in self.reference_files],
        }
