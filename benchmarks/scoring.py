"""Scoring speed against the floor, which is parsing the files.

Scores the DSTC11 test gold against a real system output (augpt.json, from tests/data) and
prints, beside each figure, a baseline measured in the same run:

- in process: read + validate + score with a warm reference (already loaded, as a worker
  keeps it) and a cold one (read from bytes too), against a bare ``json.loads`` of both files;
  the bootstrap (1,000 resamples over dialogues) on its own;
- the quote-run check a JSON prediction passes before it is decoded (no stretch of more than
  64 KiB without a quote), on its own, against the same bare parse;
- the command line (``python -m scoring score --json``) as a process, against a process that
  starts Python, imports numpy and parses the two files with ``json.loads``: wall time, and the
  CPU time (user and system) each process used; and the same floor process started with one
  BLAS thread, as the command line starts itself (a default process spends CPU starting a
  thread pool it never uses, which the first floor's CPU counts).

With ``--evaluator DIR`` (a checkout of the DSTC11-patched MultiWOZ evaluator,
``evaluate.py`` at its root, and ``--evaluator-python`` an interpreter with its requirements),
its DST evaluation of the same two files (``evaluate.py --dst``) runs as a third process in the
same rounds.

Targets: warm scoring at most 2 x the bare parse; the command line's CPU at most 1.3 x the
floor process's, at most 0.30 s, and at least 3.5 x faster than the evaluator. Everything is
measured round-robin (one run of each figure per round, medians over the rounds), so a slow
spell of a shared machine hits every figure alike.

Run: ``.venv/bin/python benchmarks/scoring.py [--repeat N] [--process-repeat N] [--evaluator
DIR --evaluator-python PYTHON]``. Results go in README.md beside it.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
# The participant package's folder first: run as a script, this file's own folder is on the
# path, and this file's name would otherwise be the ``scoring`` imported below.
sys.path.insert(0, str(ROOT / "participant"))

from scoring import Source, get_task, stats  # noqa: E402
from scoring.formats import check_json_stretches  # noqa: E402
from tests.fixturedata import fixture_bytes  # noqa: E402

# The public fixture data committed (compressed) in tests/data: see tests/data/README.md.
GOLD = "dstc11/test-dstc11.gold.json"
PRED = "mwzeval-predictions/augpt.json"
TASK = get_task("dstc11")


def timed(functions: dict[str, Callable[[], object]], repeat: int) -> dict[str, float]:
    """Median wall time in milliseconds of each function over ``repeat`` rounds (after one
    warm-up round). Each round runs every function once, in turn, so that a slower spell of a
    shared machine hits each alike rather than the one measured at that moment."""
    samples: dict[str, list[float]] = {name: [] for name in functions}
    for round_number in range(repeat + 1):
        for name, function in functions.items():
            start = time.perf_counter()
            function()
            if round_number:
                samples[name].append((time.perf_counter() - start) * 1000)
    return {name: statistics.median(values) for name, values in samples.items()}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--process-repeat", type=int, default=15)
    parser.add_argument(
        "--evaluator", type=Path, help="a checkout of the DSTC11-patched MultiWOZ evaluator"
    )
    parser.add_argument(
        "--evaluator-python", default=sys.executable, help="the evaluator's interpreter"
    )
    args = parser.parse_args()
    if args.evaluator is not None and not (args.evaluator / "evaluate.py").is_file():
        parser.error(f"{args.evaluator} has no evaluate.py")
    gold = Source(fixture_bytes(GOLD), Path(GOLD).name)
    pred = Source(fixture_bytes(PRED), Path(PRED).name)

    def cold() -> object:
        reference = TASK.load_reference(gold)
        return TASK.score(reference, TASK.load_prediction(pred, reference))

    warm_reference = TASK.load_reference(gold)

    def warm() -> object:
        return TASK.score(warm_reference, TASK.load_prediction(pred, warm_reference))

    ratios = TASK.score(warm_reference, TASK.load_prediction(pred, warm_reference)).dialogues

    def bootstrap() -> object:
        pairs = {m: ratios.columns[m] for m in ("jga", "ser")}
        return stats.bootstrap_ci(pairs, 1000, 12345, 0.95)

    figures = timed(
        {
            "bare parse, json.loads (both files)": lambda: (
                json.loads(gold.data),
                json.loads(pred.data),
            ),
            "score, warm reference": warm,
            "score, cold reference": cold,
            "bootstrap, 1000 resamples x 2 metrics": bootstrap,
            "quote-run check, augpt.json": lambda: check_json_stretches(pred.data, pred.name),
        },
        args.repeat,
    )

    with tempfile.TemporaryDirectory() as data:
        # The processes read the two files from disk, decompressed.
        paths = [Path(data) / source.name for source in (gold, pred)]
        for path, source in zip(paths, (gold, pred), strict=True):
            path.write_bytes(source.data)
        parse_only = [
            sys.executable,
            "-c",
            "import json, sys\nimport numpy\n"
            "for p in sys.argv[1:]: json.loads(open(p, 'rb').read())",
            *map(str, paths),
        ]
        cli = [sys.executable, "-m", "scoring", "score", "--gold", str(paths[0])]
        cli += ["--pred", str(paths[1]), "--json"]

        cpu: dict[str, list[float]] = {}

        # The floor started as the command line starts itself: one BLAS thread (a thread
        # pool's start-up is CPU spent on nothing by a process this short).
        one_thread = {
            **os.environ,
            **dict.fromkeys(("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"), "1"),
        }

        def run(
            command: list[str],
            cwd: Path = ROOT,
            name: str = "",
            env: dict[str, str] | None = None,
        ) -> None:
            process = subprocess.Popen(
                command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=cwd, env=env
            )
            _, status, usage = os.wait4(process.pid, 0)
            process.returncode = os.waitstatus_to_exitcode(status)
            if process.returncode:
                raise subprocess.CalledProcessError(process.returncode, command)
            cpu.setdefault(name, []).append((usage.ru_utime + usage.ru_stime) * 1000)

        # As installed by pip, the package's bytecode is compiled: a checkout may not have it.
        compileall.compile_dir(ROOT / "participant" / "scoring", quiet=1)
        processes = {
            "process: numpy + json.loads": partial(run, parse_only, name="floor"),
            "process: the same, one BLAS thread": partial(
                run, parse_only, name="floor-1", env=one_thread
            ),
            "process: python -m scoring score --json": partial(run, cli, name="cli"),
        }
        if args.evaluator is not None:
            evaluator = [args.evaluator_python, "evaluate.py", "--dst", "--input", str(paths[1])]
            evaluator += ["--golden", str(paths[0]), "--output", str(Path(data) / "out.json")]
            processes["process: patched evaluator, evaluate.py --dst"] = partial(
                run, evaluator, args.evaluator.resolve(), "evaluator"
            )
        figures.update(timed(processes, args.process_repeat))
        # CPU of the rounds timed (the first is the warm-up)
        figures["process CPU: numpy + json.loads"] = statistics.median(cpu["floor"][1:])
        figures["process CPU: the same, one BLAS thread"] = statistics.median(cpu["floor-1"][1:])
        figures["process CPU: python -m scoring score"] = statistics.median(cpu["cli"][1:])

    print(f"machine: {platform.machine()}, {platform.python_implementation()} "
          f"{platform.python_version()}, {platform.system()}")  # fmt: skip
    print(f"median of {args.repeat} runs (processes: {args.process_repeat}), milliseconds\n")
    for name, value in figures.items():
        print(f"{name:<46}{value:>9.1f}")
    print()
    floor = figures["bare parse, json.loads (both files)"]
    process_floor = figures["process CPU: numpy + json.loads"]
    results = {
        "warm scoring / bare parse (target <= 2)": figures["score, warm reference"] / floor,
        "cold scoring / bare parse": figures["score, cold reference"] / floor,
        "quote-run check / bare parse": figures["quote-run check, augpt.json"] / floor,
        "CLI CPU / floor process CPU (target <= 1.3)": (
            figures["process CPU: python -m scoring score"] / process_floor
        ),
        "CLI CPU / floor process CPU, one BLAS thread": (
            figures["process CPU: python -m scoring score"]
            / figures["process CPU: the same, one BLAS thread"]
        ),
        "CLI wall / floor process wall": (
            figures["process: python -m scoring score --json"]
            / figures["process: numpy + json.loads"]
        ),
    }
    if args.evaluator is not None:
        results["evaluator / CLI (target >= 3.5)"] = (
            figures["process: patched evaluator, evaluate.py --dst"]
            / figures["process: python -m scoring score --json"]
        )
    for name, ratio in results.items():
        print(f"{name:<46}{ratio:5.2f}x")
    cli_ms = figures["process: python -m scoring score --json"]
    print(f"{'CLI, one condition (target <= 300 ms)':<46}{cli_ms:>6.0f} ms")


if __name__ == "__main__":
    main()
