"""``python -m scoring``: score prediction files locally, exactly as the server does.

Every task runs the same way: ``--task`` picks it (default ``dstc11``), ``--gold`` and the
task's reference files (``--schema`` for ``multiwoz22``, ``--training-values`` for the
seen/unseen breakdown) make the reference, and ``score`` prints the task's metrics with their
intervals (``--json``: :meth:`scoring.TaskResult.as_dict`); ``compare`` adds paired tests.

Exit codes: 0 scored, 2 invalid input (message on stderr, no traceback).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from scoring.errors import ScoringError
from scoring.synth import write_example
from scoring.taskapi import (
    DEFAULT_BOOTSTRAP,
    DEFAULT_LEVEL,
    DEFAULT_SEED,
    Comparison,
    Resampling,
    Source,
    Task,
    TaskResult,
)
from scoring.tasks import NAMES, get_task
from scoring.version import __version__

EXIT_INVALID = 2
#: Command-line flags that set a task option, by option name, and their help.
OPTION_FLAGS = {"profile": "--profile", "match": "--match", "missing": "--missing"}
OPTION_HELP = {
    "profile": "value normalisation, default or strict (dstc11)",
    "match": "value matching, exact or fuzzy (multiwoz22)",
    "missing": "missing dialogues or turns: reject the file, or score them empty",
}
#: Command-line flags that name a reference file, by the task's file name.
FILE_FLAGS = {"schema": "--schema", "training_values": "--training-values"}


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "example":
        return _example(args)
    try:
        out = _run(args)
    except ScoringError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_INVALID
    if args.json:
        print(json.dumps(out.as_dict(), ensure_ascii=False))
    else:
        print(report(out) if isinstance(out, TaskResult) else compare_report(out))
    return 0


def _run(args: argparse.Namespace) -> TaskResult | Comparison:
    task = get_task(args.task)
    options = _options(task, args)
    resampling = Resampling(args.bootstrap, args.level, args.seed)
    files = {
        name: Source(_read(path), Path(path).name)
        for name, path in ((n, getattr(args, n)) for n in FILE_FLAGS)
        if path is not None
    }
    for name in files:
        if name not in {f.name for f in task.reference_files}:
            raise ScoringError(f"{FILE_FLAGS[name]} does not apply to the {task.name} task.")
    for spec in task.reference_files:
        if spec.required and spec.name not in files:
            raise ScoringError(f"the {task.name} task needs {FILE_FLAGS[spec.name]} FILE.")
    wanted = 1 if args.command == "score" else 2
    if len(args.pred) != wanted:
        raise ScoringError(
            "'score' takes exactly one --pred; use 'compare' for two."
            if wanted == 1
            else "'compare' takes exactly two --pred files."
        )
    gold = Source(_read(args.gold), Path(args.gold).name)
    sources = [Source(_read(path), Path(path).name) for path in args.pred]
    reference = task.load_reference(gold, files, options)
    predictions = [task.load_prediction(source, reference, options) for source in sources]
    if args.command == "score":
        return task.score(reference, predictions[0], options, resampling)
    return task.compare(reference, predictions[0], predictions[1], options, resampling)


def _options(task: Task, args: argparse.Namespace) -> dict[str, str]:
    """The task's options from the flags given; a flag the task has no option for is an
    error, so that nobody believes a setting was applied."""
    names = {o.name for o in task.options}
    options = {}
    for name, flag in OPTION_FLAGS.items():
        value = getattr(args, name)
        if value is None:
            continue
        if name not in names:
            raise ScoringError(f"{flag} does not apply to the {task.name} task.")
        options[name] = value
    return task.check_options(options)


def _read(path: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except FileNotFoundError:
        raise ScoringError(f"{path}: no such file.") from None
    except IsADirectoryError:
        raise ScoringError(f"{path}: is a folder, not a file.") from None
    except OSError as error:
        raise ScoringError(f"{path}: cannot be read ({error.strerror}).") from None


_COMMANDS = {
    "score": "score one prediction file",
    "compare": "score two prediction files and test whether they differ",
    "example": "generate a small synthetic reference and run, then score it",
}


def program() -> str:
    """How the user started the scorer: ``trackboard-score`` (the installed script) or
    ``python -m scoring``, for usage lines and help."""
    name = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    return name if name.startswith("trackboard-score") else "python -m scoring"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=program(),
        description="Score dialogue-state-tracking predictions against a gold reference.",
    )
    # on the program and on every command, as scripts put it after the command's name too
    version = f"{program()} {__version__}"
    parser.add_argument("--version", action="version", version=version)
    commands = parser.add_subparsers(dest="command", required=True)
    pred_help = {
        "score": "the prediction file",
        "compare": "a prediction file: give it twice, --pred A --pred B (A - B is tested)",
    }
    for name in ("score", "compare"):
        sub = commands.add_parser(name, help=_COMMANDS[name], description=_COMMANDS[name])
        sub.add_argument("--version", action="version", version=version)
        sub.add_argument(
            "--task", choices=NAMES, default="dstc11", help="the task (default: dstc11)"
        )
        sub.add_argument("--gold", required=True, metavar="FILE", help="gold reference file")
        sub.add_argument(
            "--pred", required=True, action="append", metavar="FILE", help=pred_help[name]
        )
        sub.add_argument("--schema", help="schema.json (multiwoz22: part of the reference)")
        sub.add_argument(
            "--training-values", help="JSON list of slot=value seen in training (seen/unseen)"
        )
        # The task checks the values (and names its choices in the message).
        for name, flag in OPTION_FLAGS.items():
            sub.add_argument(flag, help=OPTION_HELP[name])
        sub.add_argument(
            "--bootstrap",
            type=int,
            default=DEFAULT_BOOTSTRAP,
            metavar="N",
            help=f"resamples of the dialogues for the intervals (default: {DEFAULT_BOOTSTRAP})",
        )
        sub.add_argument(
            "--level",
            type=float,
            default=DEFAULT_LEVEL,
            help=f"the intervals' confidence level (default: {DEFAULT_LEVEL})",
        )
        sub.add_argument(
            "--seed",
            type=int,
            default=DEFAULT_SEED,
            help=f"the resampling's seed: the same seed, the same intervals "
            f"(default: {DEFAULT_SEED})",
        )
        sub.add_argument("--json", action="store_true", help="print one JSON object")
    example = commands.add_parser(
        "example", help=_COMMANDS["example"], description=_COMMANDS["example"]
    )
    example.add_argument("--version", action="version", version=version)
    example.add_argument("--out", default="example", help="folder for the generated files")
    return parser


def _f(value: float | None) -> str:
    return "n/a" if value is None or math.isnan(value) else f"{value:.2f}"


def _interval(result: TaskResult, metric: str) -> str:
    value = _f(result.values[metric])
    if metric not in result.cis:
        return value
    low, high = result.cis[metric]
    return f"{value:>6}  [{_f(low)}, {_f(high)}]"


def _table(title: str, rows: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """A per-slot or per-domain breakdown as text: one line per key, a column per field."""
    fields = list(next(iter(rows.values())))
    lines = [f"{title:<24}" + "".join(f"{name:>9}" for name in fields)]
    for key, values in rows.items():
        cells = (_f(v) if isinstance(v, float) else str(v) for v in values.values())
        lines.append(f"  {key:<22}" + "".join(f"{cell:>9}" for cell in cells))
    return lines


def report(result: TaskResult) -> str:
    """The text report of one score: counts, every metric with its interval, the task's
    breakdowns, warnings and the signature."""
    task = get_task(result.task)
    counts = "   ".join(f"{k.replace('_', ' ')} {v}" for k, v in result.counts.items())
    lines = [f"task        {result.task}", f"format      {result.format}", counts, ""]
    for metric in task.metrics:
        if metric.name in result.values:
            lines.append(f"{metric.label:<22}{_interval(result, metric.name)}")
    scalars = {k: v for k, v in result.details.items() if isinstance(v, int | float)}
    if scalars:
        lines.append(
            "   ".join(f"{k} {_f(v) if isinstance(v, float) else v}" for k, v in scalars.items())
        )
    for name, value in result.details.items():
        if isinstance(value, dict) and value and all(isinstance(v, dict) for v in value.values()):
            lines += ["", *_table(name.replace("_", " "), value)]
    lines += [f"warning: {w}" for w in result.warnings]
    lines += ["", f"signature   {result.signature}"]
    return "\n".join(lines)


def compare_report(comparison: Comparison) -> str:
    """Both scores' metrics, then A - B per tested metric with its interval and p-value."""
    task = get_task(comparison.a.task)
    lines = []
    for side, result in (("A", comparison.a), ("B", comparison.b)):
        shown = [m for m in task.metrics if m.name in result.cis]
        lines.append(
            f"{side}  " + "  ".join(f"{m.label} {_interval(result, m.name).strip()}" for m in shown)
        )
    lines.append("")
    for name, test in comparison.tests.items():
        verdict = "significant" if test.significant else "not significant"
        lines.append(
            f"{task.metric(name).label:<14} A - B = {test.difference:+.2f}"
            f"  [{_f(test.ci[0])}, {_f(test.ci[1])}]  p = {test.p_value:.4f}"
            f"  ({verdict} at 0.05)"
        )
    method = next(iter(comparison.tests.values())).method if comparison.tests else "none"
    lines += ["", f"method      {method}", f"signature   {comparison.a.signature}"]
    return "\n".join(lines)


def _example(args: argparse.Namespace) -> int:
    gold, pred = write_example(Path(args.out))
    print(f"wrote {gold} and {pred}\n")
    return main(["score", "--gold", str(gold), "--pred", str(pred)])
