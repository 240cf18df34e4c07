"""Scoring speed against the floor, which is parsing the two files.

Scores the DSTC11 test gold against a real system output (augpt.json) and prints, beside each
figure, a baseline measured in the same run:

- in process: parse + validate + score with a cold reference (read from bytes) and a warm one
  (already loaded, as a worker keeps it), against a bare ``orjson.loads`` of both files (the
  fastest JSON parser available) and a stdlib ``json.loads`` of both;
- the bootstrap (1,000 resamples over dialogues, both metrics) on its own;
- the command line (``python -m scoring score --json``) as a process, against a process that
  only imports orjson and parses the two files.

Run: ``.venv/bin/python benchmarks/scoring.py [--repeat N]``. Results go in README.md beside it.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import scoring  # noqa: E402
from scoring import stats  # noqa: E402
from scoring.dstc11 import count  # noqa: E402
from scoring.results import dialogue_columns  # noqa: E402

FIXTURES = ROOT.parent / "shared" / "fixtures"
GOLD = FIXTURES / "dstc11" / "test-dstc11.gold.json"
PRED = FIXTURES / "mwzeval-predictions" / "augpt.json"


def timed(function: Callable[[], object], repeat: int) -> float:
    """Median wall time in milliseconds over ``repeat`` runs (after one warm-up run)."""
    function()
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    if not GOLD.exists():
        sys.exit(f"fixture data not found beside the checkout: {FIXTURES}")
    gold_bytes, pred_bytes = GOLD.read_bytes(), PRED.read_bytes()

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
    figures = {
        "bare parse, orjson (both files)": timed(
            lambda: (orjson.loads(gold_bytes), orjson.loads(pred_bytes)), r
        ),
        "bare parse, stdlib json (both files)": timed(
            lambda: (json.loads(gold_bytes), json.loads(pred_bytes)), r
        ),
        "score, cold reference": timed(cold, r),
        "score, warm reference": timed(warm, r),
        "bootstrap, 1000 resamples x 2 metrics": timed(bootstrap, r),
    }

    def parse_only(module: str) -> list[str]:
        code = f"import sys, {module}\nfor p in sys.argv[1:]: {module}.loads(open(p, 'rb').read())"
        return [sys.executable, "-c", code, str(GOLD), str(PRED)]

    cli = [sys.executable, "-m", "scoring", "score", "--gold", str(GOLD), "--pred", str(PRED)]
    cli.append("--json")

    def run(command: list[str]) -> None:
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, cwd=ROOT)

    process_repeat = max(5, r // 2)
    figures["process: parse only, orjson"] = timed(
        lambda: run(parse_only("orjson")), process_repeat
    )
    figures["process: parse only, stdlib json"] = timed(
        lambda: run(parse_only("json")), process_repeat
    )
    figures["process: python -m scoring score --json"] = timed(lambda: run(cli), process_repeat)

    floor = figures["bare parse, orjson (both files)"]
    print(f"machine: {platform.machine()}, {platform.python_implementation()} "
          f"{platform.python_version()}, {platform.system()}")  # fmt: skip
    print(f"median of {r} runs (processes: {process_repeat}), milliseconds\n")
    for name, value in figures.items():
        print(f"{name:<42}{value:>9.1f}")
    print()
    cli = figures["process: python -m scoring score --json"]
    stdlib = figures["bare parse, stdlib json (both files)"]
    ratios = {
        "warm scoring / bare orjson parse": figures["score, warm reference"] / floor,
        "cold scoring / bare orjson parse": figures["score, cold reference"] / floor,
        "warm scoring / bare stdlib parse": figures["score, warm reference"] / stdlib,
        "CLI process / orjson parse-only process": cli / figures["process: parse only, orjson"],
        "CLI process / stdlib parse-only process": cli
        / figures["process: parse only, stdlib json"],
    }
    for name, ratio in ratios.items():
        print(f"{name:<42}{ratio:5.2f}x")


if __name__ == "__main__":
    main()
