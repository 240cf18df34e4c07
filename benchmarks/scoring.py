"""Scoring speed against the floor, which is parsing the two files.

Scores the DSTC11 test gold against a real system output (augpt.json) and prints, beside each
figure, a baseline measured in the same run:

- in process: parse + validate + score with a cold reference (read from bytes) and a warm one
  (already loaded, as a worker keeps it), against a bare ``orjson.loads`` of both files (the
  fastest JSON parser available) and a stdlib ``json.loads`` of both;
- the bootstrap (1,000 resamples over dialogues, both metrics) on its own;
- the command line (``python -m scoring score --json``) as a process, against a process that
  only imports a JSON parser and parses the two files: a later run, which finds the gold and
  the bootstrap's resample counts in the cache a first run filled (a temporary cache folder),
  and a run with ``--no-cache``, which reads the gold as every first run does. The processes
  run in turn, round after round, so a slow spell of a shared machine hits each alike.

Run: ``.venv/bin/python benchmarks/scoring.py [--repeat N] [--process-repeat N]``. Results go
in README.md beside it.
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

import orjson

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import scoring  # noqa: E402
from scoring import stats  # noqa: E402
from scoring.dstc11 import count  # noqa: E402
from scoring.results import dialogue_columns  # noqa: E402
from tests.fixturedata import fixture_bytes  # noqa: E402

# The public fixture data committed (compressed) in tests/data: see tests/data/README.md.
GOLD = Path("dstc11/test-dstc11.gold.json")
PRED = Path("mwzeval-predictions/augpt.json")


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
    args = parser.parse_args()
    gold_bytes, pred_bytes = fixture_bytes(str(GOLD)), fixture_bytes(str(PRED))

    def cold() -> object:
        reference = scoring.load_reference(gold_bytes, GOLD.name)
        return count(
            reference, scoring.load_prediction(pred_bytes, reference, PRED.name), "default"
        )

    warm_reference = scoring.load_reference(gold_bytes, GOLD.name)

    def warm() -> object:
        prediction = scoring.load_prediction(pred_bytes, warm_reference, PRED.name)
        return count(warm_reference, prediction, "default")

    arrays = dialogue_columns(cold().dialogues)  # type: ignore[attr-defined]

    def bootstrap() -> object:
        return stats.bootstrap_ci(
            {
                "jga": (arrays["correct"], arrays["turns"]),
                "ser": (arrays["errors"], arrays["n_ref"]),
            },
            1000,
            12345,
            0.95,
        )

    r = args.repeat
    figures = timed(
        {
            "bare parse, orjson (both files)": lambda: (
                orjson.loads(gold_bytes),
                orjson.loads(pred_bytes),
            ),
            "bare parse, stdlib json (both files)": lambda: (
                json.loads(gold_bytes),
                json.loads(pred_bytes),
            ),
            "score, cold reference": cold,
            "score, warm reference": warm,
            "bootstrap, 1000 resamples x 2 metrics": bootstrap,
        },
        r,
    )

    with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryDirectory() as data:
        # The processes read the two files from disk, decompressed.
        gold, pred = Path(data) / GOLD.name, Path(data) / PRED.name
        gold.write_bytes(gold_bytes)
        pred.write_bytes(pred_bytes)

        def parse_only(module: str) -> list[str]:
            code = (
                f"import sys, {module}\nfor p in sys.argv[1:]: {module}.loads(open(p, 'rb').read())"
            )
            return [sys.executable, "-c", code, str(gold), str(pred)]

        cli = [sys.executable, "-m", "scoring", "score", "--gold", str(gold), "--pred", str(pred)]
        cli.append("--json")
        processes = {
            "process: parse only, orjson": parse_only("orjson"),
            "process: parse only, stdlib json": parse_only("json"),
            "process: CLI, later run (cached gold)": cli,
            "process: CLI, --no-cache (reads the gold)": [*cli, "--no-cache"],
        }
        env = {**os.environ, "TRACKBOARD_CACHE_DIR": cache}

        def run(command: list[str]) -> None:
            subprocess.run(command, check=True, stdout=subprocess.DEVNULL, cwd=ROOT, env=env)

        # As installed by pip, the package's bytecode is compiled: a checkout may not have it.
        compileall.compile_dir(ROOT / "scoring", quiet=1)
        run(cli)  # fills the cache, as a participant's first run does
        time.sleep(0.5)  # the first run's helper process stores the resample counts on its way out
        commands = {name: partial(run, command) for name, command in processes.items()}
        figures.update(timed(commands, args.process_repeat))

    floor = figures["bare parse, orjson (both files)"]
    print(f"machine: {platform.machine()}, {platform.python_implementation()} "
          f"{platform.python_version()}, {platform.system()}")  # fmt: skip
    print(f"median of {r} runs (processes: {args.process_repeat}), milliseconds\n")
    for name, value in figures.items():
        print(f"{name:<46}{value:>9.1f}")
    print()
    stdlib = figures["bare parse, stdlib json (both files)"]
    orjson_process = figures["process: parse only, orjson"]
    stdlib_process = figures["process: parse only, stdlib json"]
    later = figures["process: CLI, later run (cached gold)"]
    reading = figures["process: CLI, --no-cache (reads the gold)"]
    ratios = {
        "warm scoring / bare orjson parse": figures["score, warm reference"] / floor,
        "cold scoring / bare orjson parse": figures["score, cold reference"] / floor,
        "warm scoring / bare stdlib parse": figures["score, warm reference"] / stdlib,
        "CLI later run / orjson parse-only process": later / orjson_process,
        "CLI later run / stdlib parse-only process": later / stdlib_process,
        "CLI --no-cache / orjson parse-only process": reading / orjson_process,
        "CLI --no-cache / stdlib parse-only process": reading / stdlib_process,
    }
    for name, ratio in ratios.items():
        print(f"{name:<46}{ratio:5.2f}x")


if __name__ == "__main__":
    main()
