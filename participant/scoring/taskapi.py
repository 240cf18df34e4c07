"""What every task has in common: its description, its settings and the shape of its scores.

A task (``dstc11``, ``multiwoz22``, ``dvd``) is a :class:`Task`: its formats, metrics, options,
reference files and four functions (read a reference, read a prediction, check a prediction
without the reference, score). Every score is a :class:`TaskResult`, which the web side
stores and renders without knowing the task: ``metrics()``, ``intervals()``, ``signature``,
``as_dict()`` and, per dialogue, the numerator and denominator of every metric
(:class:`DialogueRatios`), from which :mod:`scoring.stats` computes intervals and paired tests.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from scoring.errors import ScoringError
from scoring.version import __version__

if TYPE_CHECKING:
    import numpy.typing as npt

    from scoring.stats import PairedTest

    #: one column of per-dialogue statistics: as a task computes it, or as an array (as the
    #: web side reads stored statistics back)
    Values = Sequence[float] | npt.NDArray[Any]

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
    #: whether participants may download it (a published schema or training values; never
    #: anything derived from the hidden gold).
    public: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "label": self.label,
            "required": self.required,
            "description": self.description,
            "public": self.public,
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

    def __post_init__(self) -> None:
        problems = resampling_problems(self.n_boot, self.level, self.seed)
        if problems:
            raise ScoringError(
                " ".join(f"{RESAMPLING_NAMES[name]} {what}." for name, what in problems.items())
            )


#: How a message names each bootstrap setting (``resampling_problems`` gives what is wrong).
RESAMPLING_NAMES = {
    "n_boot": "the number of bootstrap resamples",
    "level": "the confidence level",
    "seed": "the seed",
}


def resampling_problems(n_boot: Any, level: Any, seed: Any) -> dict[str, str]:
    """What is wrong with each bootstrap setting, by name (``n_boot``, ``level``, ``seed``),
    all of them at once (empty when nothing is), e.g. ``{"n_boot": "must be between 1 and
    100000, not -5", "level": "must be at least 0.5 and below 1 (e.g. 0.95), not 1.5"}``; the
    caller names the setting in its own words (a config key, a sentence)."""
    problems = {}
    for name, value in (("n_boot", n_boot), ("seed", seed)):
        if isinstance(value, bool) or not isinstance(value, int):
            problems[name] = f"must be a whole number, not {value!r}"
    if "n_boot" not in problems and not 1 <= n_boot <= 100_000:
        problems["n_boot"] = f"must be between 1 and 100000, not {n_boot}"
    if isinstance(level, bool) or not isinstance(level, int | float):
        problems["level"] = f"must be a number such as 0.95, not {level!r}"
    elif not 0.5 <= level < 1:
        problems["level"] = f"must be at least 0.5 and below 1 (e.g. 0.95), not {level}"
    return {name: problems[name] for name in RESAMPLING_NAMES if name in problems}


def signature(
    task: str, settings: Sequence[str], resampling: Resampling, files: Mapping[str, str]
) -> str:
    """A sacrebleu-style signature: the task, its settings, the interval settings, the first
    eight hex digits of each file's sha256 and the library version, e.g.
    ``dstc11|norm:default|missing:reject|ci:bootstrap-1000-dialogue-95|seed:12345|
    gold:sha256:0b9a9803|v:0.2.0``. Equal signatures mean comparable numbers."""
    return "|".join(
        [
            task,
            *settings,
            f"ci:bootstrap-{resampling.n_boot}-dialogue-{resampling.level * 100:g}",
            f"seed:{resampling.seed}",
            *(f"{name}:sha256:{sha256[:8]}" for name, sha256 in files.items()),
            f"v:{__version__}",
        ]
    )


@dataclass(frozen=True)
class DialogueRatios:
    """Per-dialogue sufficient statistics: metric -> (numerators, denominators), one entry per
    reference dialogue in reference order. Each metric is ``100 * sum(num) / sum(den)``. A
    column is a sequence of numbers or a 1-d numpy array (read back from storage without a
    copy); the tasks build lists.

    ``turns`` holds, per dialogue, one character per turn: ``1`` where the turn is right on
    the task's primary (joint) metric, ``0`` where it is not (for analyses by turn)."""

    ids: tuple[str, ...]
    columns: Mapping[str, tuple[Values, Values]]
    turns: tuple[str, ...] = ()

    def value(self, metric: str) -> float:
        numerators, denominators = self.columns[metric]
        total = math.fsum(denominators)
        return 100.0 * math.fsum(numerators) / total if total else math.nan

    def as_dict(self) -> dict[str, Any]:
        """``{"ids": [..], "columns": {metric: [[numerators..], [denominators..]]},
        "turns": [..]}``: one list per column, compact to store and quick to read back."""
        return {
            "ids": list(self.ids),
            "columns": {m: [_listed(num), _listed(den)] for m, (num, den) in self.columns.items()},
            "turns": list(self.turns),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> DialogueRatios:
        columns = {m: (tuple(num), tuple(den)) for m, (num, den) in data["columns"].items()}
        return cls(tuple(data["ids"]), columns, tuple(data.get("turns") or ()))


def _listed(values: Values) -> list[Any]:
    """A column as a list of Python numbers (an array's values, not numpy scalars)."""
    tolist = getattr(values, "tolist", None)  # a numpy array, without importing numpy here
    return list(tolist()) if callable(tolist) else list(values)


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

    def metrics(self) -> dict[str, float]:
        """Metric name -> value on 0-100 (NaN when undefined on this reference)."""
        return dict(self.values)

    def intervals(self) -> dict[str, tuple[float, float]]:
        """Metric name -> (low, high) bootstrap interval, for metrics that have one."""
        return dict(self.cis)

    def as_dict(self, per_dialogue: bool = False) -> dict[str, Any]:
        """JSON-ready: ``task``, ``format``, ``metrics``, ``intervals``, ``ci_level``, ``counts``,
        ``details``, ``warnings``, ``signature`` (and ``per_dialogue``:
        :meth:`DialogueRatios.as_dict`). NaN becomes null."""
        result: dict[str, Any] = {
            "task": self.task,
            "format": self.format,
            "metrics": {k: json_float(v) for k, v in self.values.items()},
            "intervals": {k: [json_float(lo), json_float(hi)] for k, (lo, hi) in self.cis.items()},
            "ci_level": self.level,
            "counts": dict(self.counts),
            "details": json_ready(dict(self.details)),
            "warnings": list(self.warnings),
            "signature": self.signature,
        }
        if per_dialogue:
            result["per_dialogue"] = self.dialogues.as_dict()
        return result


def json_float(value: float) -> float | None:
    return None if math.isnan(value) else value


def json_ready(value: Any) -> Any:
    """``value`` with every NaN, however deeply nested, as None (JSON has no NaN)."""
    if isinstance(value, float):
        return json_float(value)
    if isinstance(value, Mapping):
        return {k: json_ready(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_ready(v) for v in value]
    return value


def finish(
    *,
    task: Task,
    format: str,
    signature: str,
    dialogues: DialogueRatios,
    resampling: Resampling,
    counts: Mapping[str, int],
    details: Mapping[str, Any] | None = None,
    warnings: Sequence[str] = (),
) -> TaskResult:
    """Aggregate the per-dialogue statistics into values and bootstrap intervals."""
    # numpy is loaded here, where the bootstrap runs, not by a command that only reads files
    from scoring import stats

    present = [m for m in task.metrics if m.name in dialogues.columns]
    wanted = {m.name: dialogues.columns[m.name] for m in present if m.interval}
    return TaskResult(
        task=task.name,
        format=format,
        signature=signature,
        values={m.name: dialogues.value(m.name) for m in present},
        cis=stats.bootstrap_ci(wanted, resampling.n_boot, resampling.seed, resampling.level)
        if wanted
        else {},
        level=resampling.level,
        dialogues=dialogues,
        counts=counts,
        details=details or {},
        warnings=tuple(warnings),
    )


@dataclass(frozen=True)
class Comparison:
    """Two predictions scored on one reference, and the paired test of every metric the two
    can be tested on (A minus B)."""

    a: TaskResult
    b: TaskResult
    tests: Mapping[str, PairedTest]

    def as_dict(self) -> dict[str, Any]:
        return {
            "a": self.a.as_dict(),
            "b": self.b.as_dict(),
            "paired": {name: test.as_dict() for name, test in self.tests.items()},
        }


def paired_tests(
    a: DialogueRatios, b: DialogueRatios, metrics: Sequence[MetricSpec], resampling: Resampling
) -> dict[str, PairedTest]:
    """A minus B for every interval metric whose per-dialogue denominators the two share
    (metrics whose denominator depends on the prediction, like F1, are left out)."""
    import numpy as np

    from scoring import stats

    if a.ids != b.ids:
        raise ScoringError("the two scores are not on the same reference dialogues.")
    tests = {}
    for metric in metrics:
        if not metric.interval or metric.name not in a.columns:
            continue
        num_a, den_a = a.columns[metric.name]
        num_b, den_b = b.columns.get(metric.name, ((), ()))
        if not np.array_equal(den_a, den_b) or not math.fsum(den_a):
            continue
        tests[metric.name] = stats.paired_test(
            metric.name, num_a, num_b, den_a, resampling.n_boot, resampling.seed, resampling.level
        )
    return tests


Options = Mapping[str, str]

#: What a sample file is made of: each reference dialogue's id as written in the gold and its
#: number of user turns, in the gold's order. Nothing else of the gold reaches a sample.
Layout = tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class Task:
    """A scoring task: everything the web side and the command line need to check files,
    score them and show the numbers, for any task alike.

    The four functions receive the options checked and complete (defaults filled in); call
    them through the methods below, which check first."""

    name: str
    label: str
    #: formats accepted for predictions (and, where the same, for the gold).
    formats: tuple[str, ...]
    metrics: tuple[MetricSpec, ...]
    #: the ranked metric, and the one that breaks its ties.
    primary: str
    tiebreak: str
    options: tuple[OptionSpec, ...]
    #: files a reference needs or may have besides the gold.
    reference_files: tuple[FileSpec, ...]
    #: ``(gold, extra files by FileSpec name, options) -> reference``; the reference has a
    #: ``sha256`` and a ``summary()`` (counts shown to organisers).
    read_reference: Callable[[Source, Mapping[str, Source], Options], Any]
    #: ``(prediction, reference, options) -> prediction`` aligned with the reference
    read_prediction: Callable[[Source, Any, Options], Any]
    #: ``(prediction, options) -> format``: what can be checked without the reference
    check_file: Callable[[Source, Options], str]
    #: ``(task, reference, prediction, options, resampling) -> TaskResult``
    compute: Callable[[Task, Any, Any, Options, Resampling], TaskResult]
    #: ``layout -> bytes``: a prediction with an empty state for every turn of the layout, in
    #: ``formats[0]`` (the task's primary format)
    write_sample: Callable[[Layout], bytes]
    description: str = ""

    def metric(self, name: str) -> MetricSpec:
        for metric in self.metrics:
            if metric.name == name:
                return metric
        raise ScoringError(f"task {self.name!r} has no metric {name!r}.")

    def check_options(self, options: Options | None = None) -> dict[str, str]:
        """The options with defaults filled in; unknown names or values raise ScoringError
        naming every one of them (``option_problems``), one a line."""
        problems = self.option_problems(options)
        if problems:
            raise ScoringError("\n".join(problems))
        given = dict(options or {})
        return {o.name: given.get(o.name, o.default) for o in self.options}

    def option_problems(self, options: Options | None = None) -> list[str]:
        """Every problem of ``options``, one message each naming the option (empty when
        nothing is wrong): the unknown names, then each value outside its option's choices."""
        given = dict(options or {})
        known = {o.name: o for o in self.options}
        problems = []
        unknown = sorted(set(given) - set(known))
        if unknown:
            problems.append(
                f"task {self.name!r} has no option(s) {', '.join(unknown)}; its options are: "
                + (", ".join(known) or "none")
            )
        for name, spec in known.items():
            value = given.get(name, spec.default)
            if value not in spec.choices:
                problems.append(
                    f"option {name!r} of task {self.name!r} cannot be {value!r}; choose one of: "
                    + ", ".join(spec.choices)
                )
        return problems

    def load_reference(
        self,
        gold: Source,
        files: Mapping[str, Source] | None = None,
        options: Options | None = None,
    ) -> Any:
        """Read a reference: the gold and the task's extra files, checked."""
        extra = dict(files or {})
        known = {f.name for f in self.reference_files}
        unknown = sorted(set(extra) - known)
        if unknown:
            raise ScoringError(
                f"task {self.name!r} takes no reference file(s) {', '.join(unknown)}."
            )
        for spec in self.reference_files:
            if spec.required and spec.name not in extra:
                raise ScoringError(f"task {self.name!r} needs a {spec.label} file ({spec.name}).")
        return self.read_reference(gold, extra, self.check_options(options))

    def load_prediction(
        self, source: Source, reference: Any, options: Options | None = None
    ) -> Any:
        """Read a prediction and check it against the reference's dialogues and turns."""
        return self.read_prediction(source, reference, self.check_options(options))

    def check_prediction(self, source: Source, options: Options | None = None) -> str:
        """Check what can be checked without the reference; returns the detected format."""
        return self.check_file(source, self.check_options(options))

    def score(
        self,
        reference: Any,
        prediction: Any,
        options: Options | None = None,
        resampling: Resampling | None = None,
    ) -> TaskResult:
        return self.compute(
            self, reference, prediction, self.check_options(options), resampling or Resampling()
        )

    def sample(self, reference: Any) -> bytes:
        """A sample prediction for ``reference``: every dialogue and user turn, each state
        empty, in the primary format. Written from the reference's ``layout()`` (dialogue ids
        and turn counts) only, so it holds no gold value."""
        layout: Layout = tuple(reference.layout())
        return self.write_sample(layout)

    def compare(
        self,
        reference: Any,
        a: Any,
        b: Any,
        options: Options | None = None,
        resampling: Resampling | None = None,
    ) -> Comparison:
        """Score A and B and test their differences over dialogues."""
        resampling = resampling or Resampling()
        score_a = self.score(reference, a, options, resampling)
        score_b = self.score(reference, b, options, resampling)
        tests = paired_tests(score_a.dialogues, score_b.dialogues, self.metrics, resampling)
        return Comparison(score_a, score_b, tests)

    def describe(self) -> dict[str, Any]:
        """A JSON-ready description of the task (for forms, tables and charts)."""
        return {
            "name": self.name,
            "label": self.label,
            "description": self.description,
            "formats": list(self.formats),
            "metrics": [m.as_dict() for m in self.metrics],
            "primary": self.primary,
            "tiebreak": self.tiebreak,
            "options": [o.as_dict() for o in self.options],
            "reference_files": [f.as_dict() for f in self.reference_files],
            "sample_format": self.formats[0],
        }
