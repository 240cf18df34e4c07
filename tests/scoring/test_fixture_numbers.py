"""The published numbers of the DSTC11 fixtures (tests/data/README.md), reproduced to +-0.01
with exact counts, through the library and the command line."""

from __future__ import annotations

import json
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

from scoring import Source, TaskResult, get_task

ROOT = Path(__file__).resolve().parents[2]
TASK = get_task("dstc11")


@cache
def _reference(path: Path, profile: str) -> object:
    return TASK.load_reference(Source(path.read_bytes(), path.name), {}, {"profile": profile})


def _score(
    fixtures_dir: Path, pred: str, profile: str = "default", missing: str = "reject"
) -> TaskResult:
    options = {"profile": profile, "missing": missing}
    reference = _reference(fixtures_dir / "dstc11" / "test-dstc11.gold.json", profile)
    path = fixtures_dir / pred
    prediction = TASK.load_prediction(Source(path.read_bytes(), path.name), reference, options)
    return TASK.score(reference, prediction, options)


@pytest.mark.parametrize(
    ("pred", "profile", "missing", "jga", "ser", "sdi"),
    [
        ("dstc11/test-dstc11.gold.json", "default", "reject", 100.00, 0.00, (0, 0, 0)),
        ("mwzeval-predictions/augpt.json", "default", "reject", 17.93, 45.40, (12706, 4171, 2121)),
        ("mwzeval-predictions/augpt.json", "strict", "reject", 17.49, 45.72, (12839, 4171, 2121)),
        ("mwzeval-predictions/damd.json", "default", "empty", 12.72, 60.78, (11879, 12299, 1253)),
    ],
)
def test_it_reproduces_the_published_table(fixtures_dir, pred, profile, missing, jga, ser, sdi):
    result = _score(fixtures_dir, pred, profile, missing)
    values, cis, details = result.values, result.cis, result.details
    assert values["jga"] == pytest.approx(jga, abs=0.01)
    assert values["ser"] == pytest.approx(ser, abs=0.01)
    assert (details["sub"], details["del"], details["ins"]) == sdi
    assert details["n_ref"] == 41_843
    assert result.counts["turns"] == 7_372
    assert cis["jga"][0] <= values["jga"] <= cis["jga"][1]
    assert cis["ser"][0] <= values["ser"] <= cis["ser"][1]


def test_it_reports_missing_turns_scored_as_empty(fixtures_dir):
    result = _score(fixtures_dir, "mwzeval-predictions/damd.json", missing="empty")
    assert result.counts["missing_dialogues"] == 1
    assert result.counts["missing_turns"] == 18
    assert any("18 user turn(s) missing" in w for w in result.warnings)
    assert "missing:empty" in result.signature


def test_it_scores_the_manifest_as_a_perfect_prediction(fixtures_dir):
    result = _score(fixtures_dir, "dstc11/test-dstc11.manifest.txt")
    assert result.format == "manifest"
    assert result.values["jga"] == 100.0
    assert result.values["ser"] == 0.0


def test_it_names_the_detected_format(fixtures_dir):
    assert _score(fixtures_dir, "mwzeval-predictions/augpt.json").format == "mwz-wrapper"
    assert _score(fixtures_dir, "dstc11/test-dstc11.gold.json").format == "gold-json"


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "scoring", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )


def test_it_rejects_damd_naming_the_missing_dialogue(fixtures_dir):
    gold = fixtures_dir / "dstc11" / "test-dstc11.gold.json"
    run = _cli(
        "score", "--gold", str(gold), "--pred", str(fixtures_dir / "mwzeval-predictions/damd.json")
    )
    assert run.returncode == 2
    assert run.stdout == ""
    assert run.stderr == "error: damd.json: 1 dialogue(s) of the reference are missing: mul0789.\n"


def test_it_rejects_labes_listing_all_56_missing_dialogues(fixtures_dir):
    gold_path = fixtures_dir / "dstc11" / "test-dstc11.gold.json"
    labes = fixtures_dir / "mwzeval-predictions" / "labes.json"
    gold_ids = {k.lower() for k in json.loads(gold_path.read_bytes())}
    missing = sorted(gold_ids - {k.lower() for k in json.loads(labes.read_bytes())})
    assert len(missing) == 56
    run = _cli("score", "--gold", str(gold_path), "--pred", str(labes))
    assert run.returncode == 2
    assert "Traceback" not in run.stderr
    assert "labes.json: 56 dialogue(s) of the reference are missing: " in run.stderr
    for dialogue_id in missing:
        assert dialogue_id in run.stderr


def test_the_cli_prints_the_documented_json(fixtures_dir):
    gold = fixtures_dir / "dstc11" / "test-dstc11.gold.json"
    run = _cli(
        "score", "--task", "dstc11", "--gold", str(gold),
        "--pred", str(fixtures_dir / "mwzeval-predictions/augpt.json"), "--json",
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    for key in (
        "task", "format", "metrics", "intervals", "ci_level", "counts", "details", "warnings",
        "signature",
    ):  # fmt: skip
        assert key in out
    metrics, details = out["metrics"], out["details"]
    assert (round(metrics["jga"], 2), round(metrics["ser"], 2)) == (17.93, 45.40)
    assert (details["sub"], details["del"], details["ins"]) == (12706, 4171, 2121)
    # precision = TP / predicted, recall = TP / gold, with TP = N_ref - S - D = 24,966
    assert details["slot_precision"] == pytest.approx(100 * 24966 / (24966 + 12706 + 2121))
    assert details["slot_recall"] == pytest.approx(100 * 24966 / 41843)
    assert metrics["slot_f1"] == pytest.approx(200 * 24966 / (24966 + 12706 + 2121 + 41843))
    assert set(details["per_slot"]) >= {"hotel-day", "train-leaveat"}
    assert out["signature"].startswith("dstc11|norm:default|missing:reject|")
    assert len(out["intervals"]["jga"]) == 2 and "slot_f1" not in out["intervals"]


def test_the_cli_gives_the_strict_profiles_published_numbers(fixtures_dir):
    gold = fixtures_dir / "dstc11" / "test-dstc11.gold.json"
    augpt = fixtures_dir / "mwzeval-predictions" / "augpt.json"
    run = _cli("score", "--gold", str(gold), "--pred", str(augpt), "--profile", "strict", "--json")
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert (round(out["metrics"]["jga"], 2), round(out["metrics"]["ser"], 2)) == (17.49, 45.72)
    assert out["signature"].startswith("dstc11|norm:strict|missing:reject|")


def test_the_cli_prints_the_published_numbers_as_text(fixtures_dir):
    gold = fixtures_dir / "dstc11" / "test-dstc11.gold.json"
    damd = fixtures_dir / "mwzeval-predictions" / "damd.json"
    run = _cli("score", "--gold", str(gold), "--pred", str(damd), "--missing", "empty")
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert any(line.startswith("JGA") and " 12.72 " in f"{line} " for line in lines)
    assert any(line.startswith("SER") and " 60.78 " in f"{line} " for line in lines)
    assert "sub 11879   del 12299   ins 1253" in run.stdout
