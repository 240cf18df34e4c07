"""``python -m scoring``: score prediction files locally, exactly as the server does.

Exit codes: 0 scored, 2 invalid input (message on stderr, no traceback).
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import orjson

from scoring.dstc11 import MISSING_POLICIES, Prediction, Reference, load_prediction, load_reference
from scoring.errors import ScoringError
from scoring.normalise import PROFILES
from scoring.parallel import ForkedStatistics
from scoring.results import (
    DEFAULT_BOOTSTRAP,
    DEFAULT_LEVEL,
    DEFAULT_SEED,
    Comparison,
    Score,
    Settings,
    compare,
    score,
)

if TYPE_CHECKING:
    from scoring.stats import PairedTest

TASKS = ("dstc11",)
EXIT_INVALID = 2


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command == "example":
        return _example(args)
    statistics = ForkedStatistics.start()
    try:
        settings = Settings(
            profile=args.profile,
            missing=args.missing,
            n_boot=args.bootstrap,
            level=args.level,
            seed=args.seed,
        )
        settings.check()
        reference = load_reference(_read(args.gold), Path(args.gold).name)
        predictions = [_prediction(path, reference, settings) for path in args.pred]
        if args.command == "score":
            if len(predictions) != 1:
                raise ScoringError("'score' takes exactly one --pred; use 'compare' for two.")
            result = score(reference, predictions[0], settings, statistics)
            _emit(result.as_dict() if args.json else _report(result), args.json)
        else:
            if len(predictions) != 2:
                raise ScoringError("'compare' takes exactly two --pred files.")
            comparison = compare(reference, predictions[0], predictions[1], settings, statistics)
            out = _comparison_dict(comparison) if args.json else _comparison_report(comparison)
            _emit(out, args.json)
    except ScoringError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_INVALID
    finally:
        if statistics is not None:
            statistics.close()
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m scoring",
        description="Score dialogue-state-tracking predictions against a gold reference.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    for name, help_text in (
        ("score", "score one prediction file"),
        ("compare", "score two prediction files and test whether they differ"),
    ):
        sub = commands.add_parser(name, help=help_text)
        sub.add_argument("--task", choices=TASKS, default="dstc11")
        sub.add_argument("--gold", required=True, help="gold reference file")
        sub.add_argument(
            "--pred", required=True, action="append", help="prediction file (JSON or manifest)"
        )
        sub.add_argument("--profile", choices=PROFILES, default="default")
        sub.add_argument("--missing", choices=MISSING_POLICIES, default="reject")
        sub.add_argument("--bootstrap", type=int, default=DEFAULT_BOOTSTRAP, metavar="N")
        sub.add_argument("--level", type=float, default=DEFAULT_LEVEL)
        sub.add_argument("--seed", type=int, default=DEFAULT_SEED)
        sub.add_argument("--json", action="store_true", help="print one JSON object")
    example = commands.add_parser(
        "example", help="generate a small synthetic reference and run, then score it"
    )
    example.add_argument("--out", default="example", help="folder for the generated files")
    return parser


def _read(path: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except FileNotFoundError:
        raise ScoringError(f"{path}: no such file.") from None
    except IsADirectoryError:
        raise ScoringError(f"{path}: is a folder, not a file.") from None
    except OSError as error:
        raise ScoringError(f"{path}: cannot be read ({error.strerror}).") from None


def _prediction(path: str, reference: Reference, settings: Settings) -> Prediction:
    return load_prediction(
        _read(path), reference, Path(path).name, settings.missing, settings.profile
    )


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
