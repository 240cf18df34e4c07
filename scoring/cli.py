"""``python -m scoring``: score prediction files locally, exactly as the server does.

``--task dstc11`` (the default) runs through :mod:`scoring.dstc11.command`, which keeps the
normalised gold in a cache (:mod:`scoring.refcache`) and needs neither the task registry nor,
once the cache holds the resample counts, numpy. Every other run goes through the registry
(:mod:`scoring.tasks`): ``--task multiwoz22 --schema schema.json`` and ``--task dvd`` print their
own metrics, and ``--training-values FILE`` adds the seen/unseen JGA breakdown (``dstc11``,
``multiwoz22``).

Exit codes: 0 scored, 2 invalid input (message on stderr, no traceback).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import orjson

from scoring.dstc11 import MISSING_POLICIES
from scoring.errors import ScoringError
from scoring.normalise import PROFILES
from scoring.results import (
    DEFAULT_BOOTSTRAP,
    DEFAULT_LEVEL,
    DEFAULT_SEED,
    Comparison,
    Score,
    Settings,
    compare,
)
from scoring.tasks import NAMES

if TYPE_CHECKING:
    from scoring.parallel import ForkedStatistics
    from scoring.stats import PairedTest
    from scoring.taskapi import Resampling, Source, Task, TaskResult

TASKS = NAMES
#: multiwoz22's matching modes (kept here: that task loads only when it is chosen).
MATCHES = ("exact", "fuzzy")
EXIT_INVALID = 2


def main(argv: Sequence[str] | None = None, exiting: bool = False) -> int:
    """Run the command line; ``exiting`` tells that the process ends right after (``python -m
    scoring``): the run then ends it itself, without freeing memory, and leaves the forked
    helper process to exit on its own."""
    given = sys.argv[1:] if argv is None else list(argv)
    args = _parser(given[0] if given else None).parse_args(given)
    if args.command == "example":
        return _example(args)
    forked: list[ForkedStatistics] = []
    try:
        if args.task == "dstc11" and not (args.training_values or args.schema or args.match):
            from scoring.dstc11.command import run

            outcome, kept = run(args, _settings(args, args.profile or "default"), forked, _read)
            if isinstance(outcome, Score):
                out: object = outcome.as_dict() if args.json else _report(outcome)
            else:
                out = _comparison_dict(outcome) if args.json else _comparison_report(outcome)
        else:
            out, kept = _run_task(args, forked)
        _emit(out, args.json)
        if exiting:
            leave(0, kept)
    except ScoringError as error:
        print(f"error: {error}", file=sys.stderr)
        if exiting:
            leave(EXIT_INVALID)
        return EXIT_INVALID
    finally:
        for process in forked:
            process.close(wait=not exiting)
    return 0


def _run_task(args: argparse.Namespace, forked: list[ForkedStatistics]) -> tuple[object, object]:
    """Any task through the registry (:mod:`scoring.tasks`): the output and what it was made
    from."""
    from scoring.parallel import ForkedStatistics
    from scoring.taskapi import Resampling, Source
    from scoring.tasks import get_task

    task = get_task(args.task)
    options = _options(task.name, args)
    resampling = Resampling(args.bootstrap, args.level, args.seed)
    settings = _settings(args, options.get("profile", "default"))
    files = _files(task, args)
    gold = Source(_read(args.gold), Path(args.gold).name)
    sources = [Source(_read(path), Path(path).name) for path in args.pred]
    statistics = ForkedStatistics.start()
    if statistics is not None:
        forked.append(statistics)
    reference = task.load_reference(gold, files, options)
    predictions = [task.load_prediction(source, reference, options) for source in sources]
    out: object
    if args.command == "score":
        if len(predictions) != 1:
            raise ScoringError("'score' takes exactly one --pred; use 'compare' for two.")
        result = task.score(reference, predictions[0], options, resampling, statistics)
        out = _result_dict(result) if args.json else _result_report(result)
    else:
        if len(predictions) != 2:
            raise ScoringError("'compare' takes exactly two --pred files.")
        if task.name == "dstc11":
            a, b = predictions
            comparison = compare(reference.gold, a, b, settings, statistics)
            out = _comparison_dict(comparison) if args.json else _comparison_report(comparison)
        else:
            out = _generic_compare(task, reference, predictions, options, resampling, statistics)
            if not args.json:
                out = _generic_compare_report(out)
    return out, (reference, predictions)


def _settings(args: argparse.Namespace, profile: str) -> Settings:
    """The scoring settings the options give, checked."""
    settings = Settings(
        profile=profile,
        missing=args.missing,
        n_boot=args.bootstrap,
        level=args.level,
        seed=args.seed,
    )
    settings.check()
    return settings


def leave(status: int, keep: object = None) -> NoReturn:
    """End the process now: flush the output, skip freeing memory and exit handlers (a run
    builds hundreds of thousands of objects; freeing them one by one takes longer than
    anything after the report). ``keep`` is what the run built, referenced until the end for
    that reason. A forked process ends when its pipe closes."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:  # the reader (say, `| head`) has gone; nothing left to tell it
        pass
    os._exit(status)


def _options(task: str, args: argparse.Namespace) -> dict[str, str]:
    options = {"missing": args.missing}
    if task == "dstc11":
        options["profile"] = args.profile or "default"
    elif args.profile is not None:
        raise ScoringError("--profile applies to the dstc11 task only.")
    if task == "multiwoz22":
        options["match"] = args.match or "exact"
    elif args.match is not None:
        raise ScoringError("--match applies to the multiwoz22 task only.")
    return options


def _files(task: Task, args: argparse.Namespace) -> dict[str, Source]:
    from scoring.taskapi import Source

    given = {"schema": args.schema, "training_values": args.training_values}
    allowed = {f.name for f in task.reference_files}
    files = {}
    for key, path in given.items():
        flag = "--" + key.replace("_", "-")
        if path is None:
            if key in allowed and any(f.required for f in task.reference_files if f.name == key):
                raise ScoringError(f"the {task.name} task needs {flag} FILE.")
            continue
        if key not in allowed:
            raise ScoringError(f"{flag} does not apply to the {task.name} task.")
        files[key] = Source(_read(path), Path(path).name)
    return files


_COMMANDS = {
    "score": "score one prediction file",
    "compare": "score two prediction files and test whether they differ",
    "example": "generate a small synthetic reference and run, then score it",
}


def _parser(command: str | None = None) -> argparse.ArgumentParser:
    """The argument parser; given the command named first, only that command's part is built
    (argparse takes milliseconds per option, a good share of a short run)."""
    parser = argparse.ArgumentParser(
        prog="python -m scoring",
        description="Score dialogue-state-tracking predictions against a gold reference.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    wanted = [command] if command in _COMMANDS else list(_COMMANDS)
    for name in ("score", "compare"):
        if name not in wanted:
            continue
        sub = commands.add_parser(name, help=_COMMANDS[name])
        sub.add_argument("--task", choices=TASKS, default="dstc11")
        sub.add_argument("--gold", required=True, help="gold reference file")
        sub.add_argument(
            "--pred", required=True, action="append", help="prediction file (JSON or manifest)"
        )
        sub.add_argument("--schema", help="schema.json (multiwoz22: part of the reference)")
        sub.add_argument(
            "--training-values", help="JSON list of slot=value seen in training (seen/unseen)"
        )
        sub.add_argument("--profile", choices=PROFILES, default=None, help="dstc11 only")
        sub.add_argument("--match", choices=MATCHES, default=None, help="multiwoz22 only")
        sub.add_argument("--missing", choices=MISSING_POLICIES, default="reject")
        sub.add_argument("--bootstrap", type=int, default=DEFAULT_BOOTSTRAP, metavar="N")
        sub.add_argument("--level", type=float, default=DEFAULT_LEVEL)
        sub.add_argument("--seed", type=int, default=DEFAULT_SEED)
        sub.add_argument("--json", action="store_true", help="print one JSON object")
        sub.add_argument(
            "--no-cache",
            action="store_true",
            help="neither read nor keep the normalised reference in the cache (dstc11)",
        )
    if "example" in wanted:
        example = commands.add_parser("example", help=_COMMANDS["example"])
        example.add_argument("--out", default="example", help="folder for the generated files")
    return parser


def _result_dict(result: TaskResult) -> dict[str, Any]:
    if result.task == "dstc11":
        out: dict[str, Any] = result.native.as_dict()
        if "seen_unseen" in result.details:
            out["seen_unseen"] = {
                **result.details["seen_unseen"],
                **{k: result.values[k] for k in ("jga_seen", "jga_unseen")},
                "ci": {k: list(result.cis[k]) for k in ("jga_seen", "jga_unseen")},
            }
            out["signature"] = result.signature
        return out
    return result.as_dict()


def _result_report(result: TaskResult) -> str:
    if result.task == "dstc11":
        text: str = _report(result.native)
        if "seen_unseen" in result.details:
            lines = text.split("\n")
            lines[-1] = f"signature   {result.signature}"
            info = result.details["seen_unseen"]
            lines[3:3] = [
                f"JGA seen    {_interval(result, 'jga_seen')}   turns {info['seen_turns']}",
                f"JGA unseen  {_interval(result, 'jga_unseen')}   turns {info['unseen_turns']}",
            ]
            text = "\n".join(lines)
        return text
    from scoring.tasks import get_task

    task = get_task(result.task)
    counts = "   ".join(f"{k} {v}" for k, v in result.counts.items())
    lines = [f"task        {result.task}", f"format      {result.format}", counts, ""]
    for metric in task.metrics:
        if metric.name in result.values:
            lines.append(f"{metric.label:<22}{_interval(result, metric.name)}")
    lines += [f"warning: {w}" for w in result.warnings]
    lines += ["", f"signature   {result.signature}"]
    return "\n".join(lines)


def _interval(result: TaskResult, metric: str) -> str:
    value = _f(result.values[metric])
    if metric not in result.cis:
        return value
    low, high = result.cis[metric]
    return f"{value:>6}  [{_f(low)}, {_f(high)}]"


def _generic_compare(
    task: Task,
    reference: Any,
    predictions: list[Any],
    options: dict[str, str],
    resampling: Resampling,
    statistics: Any,
) -> dict[str, Any]:
    from scoring.taskapi import paired_tests

    a, b = (task.score(reference, p, options, resampling, statistics) for p in predictions)
    tests = paired_tests(a, b, task.metrics, resampling, statistics)
    return {
        "a": a.as_dict(),
        "b": b.as_dict(),
        "paired": {name: _test_dict(test) for name, test in tests.items()},
    }


def _generic_compare_report(out: dict[str, Any]) -> str:
    lines = []
    for name, test in out["paired"].items():
        verdict = "significant" if test["significant"] else "not significant"
        lines.append(
            f"{name:<14} A {_f(test['a'])}  B {_f(test['b'])}  A - B = {test['difference']:+.2f}"
            f"  [{_f(test['ci'][0])}, {_f(test['ci'][1])}]  p = {test['p_value']:.4f}"
            f"  ({verdict} at 0.05)"
        )
    lines += ["", f"signature   {out['a']['signature']}"]
    return "\n".join(lines)


def _read(path: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except FileNotFoundError:
        raise ScoringError(f"{path}: no such file.") from None
    except IsADirectoryError:
        raise ScoringError(f"{path}: is a folder, not a file.") from None
    except OSError as error:
        raise ScoringError(f"{path}: cannot be read ({error.strerror}).") from None


def _emit(payload: object, as_json: bool) -> None:
    if as_json:
        sys.stdout.buffer.write(orjson.dumps(payload, option=orjson.OPT_SERIALIZE_NUMPY) + b"\n")
    else:
        print(payload)


def _f(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value:.2f}"


def _report(result: Score) -> str:
    lines = [
        f"format      {result.format}",
        f"dialogues   {result.dialogues}   user turns {result.turns}   gold slot values "
        f"{result.n_ref}",
        f"JGA         {_f(result.jga)}  [{_f(result.jga_ci[0])}, {_f(result.jga_ci[1])}]",
        f"SER         {_f(result.ser)}  [{_f(result.ser_ci[0])}, {_f(result.ser_ci[1])}]   "
        f"S {result.sub} / D {result.dele} / I {result.ins}",
        f"slots       P {_f(result.slot_precision)}  R {_f(result.slot_recall)}  "
        f"F1 {_f(result.slot_f1)}",
        "",
        "per domain  turns    JGA",
    ]
    for domain, d in result.per_domain.items():
        lines.append(f"  {domain:<12}{d.turns:>6}  {_f(d.jga):>6}")
    lines += ["", "per slot                  ref    sub    del    ins   acc"]
    for slot, s in result.per_slot.items():
        lines.append(
            f"  {slot:<22}{s.n_ref:>6} {s.sub:>6} {s.dele:>6} {s.ins:>6}  {_f(s.accuracy)}"
        )
    for warning in result.warnings:
        lines.append(f"warning: {warning}")
    lines += ["", f"signature   {result.signature}"]
    return "\n".join(lines)


def _test_dict(test: PairedTest) -> dict[str, object]:
    return {
        "a": test.a,
        "b": test.b,
        "difference": test.difference,
        "ci": list(test.ci),
        "p_value": test.p_value,
        "significant": test.significant,
        "method": test.method,
    }


def _comparison_dict(c: Comparison) -> dict[str, object]:
    return {
        "a": c.a.as_dict(),
        "b": c.b.as_dict(),
        "paired": {"jga": _test_dict(c.jga), "ser": _test_dict(c.ser)},
    }


def _comparison_report(c: Comparison) -> str:
    lines = [
        f"A  JGA {_f(c.a.jga)} [{_f(c.a.jga_ci[0])}, {_f(c.a.jga_ci[1])}]  "
        f"SER {_f(c.a.ser)} [{_f(c.a.ser_ci[0])}, {_f(c.a.ser_ci[1])}]",
        f"B  JGA {_f(c.b.jga)} [{_f(c.b.jga_ci[0])}, {_f(c.b.jga_ci[1])}]  "
        f"SER {_f(c.b.ser)} [{_f(c.b.ser_ci[0])}, {_f(c.b.ser_ci[1])}]",
        "",
    ]
    for test in (c.jga, c.ser):
        verdict = "significant" if test.significant else "not significant"
        lines.append(
            f"{test.metric.upper():<4} A - B = {test.difference:+.2f}  "
            f"[{_f(test.ci[0])}, {_f(test.ci[1])}]  p = {test.p_value:.4f}  ({verdict} at 0.05)"
        )
    lines += ["", f"method      {c.jga.method}", f"signature   {c.a.signature}"]
    return "\n".join(lines)


def _example(args: argparse.Namespace) -> int:
    from scoring.synth import write_example

    gold, pred = write_example(Path(args.out))
    print(f"wrote {gold} and {pred}\n")
    return main(["score", "--gold", str(gold), "--pred", str(pred)])
