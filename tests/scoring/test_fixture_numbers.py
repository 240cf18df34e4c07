"""The numbers of tests/data/README.md, reproduced to +-0.01 with exact counts."""

from __future__ import annotations

import subprocess
import sys
from functools import cache
from pathlib import Path

import orjson
import pytest

import scoring

ROOT = Path(__file__).resolve().parents[2]


@cache
def _reference(path: Path) -> scoring.Reference:
    return scoring.load_reference(path.read_bytes(), path.name)


def _score(fixtures_dir: Path, pred: str, profile: str = "default", missing: str = "reject"):
    gold = fixtures_dir / "dstc11" / "test-dstc11.gold.json"
    reference = _reference(gold)
    path = fixtures_dir / pred
    prediction = scoring.load_prediction(path.read_bytes(), reference, path.name, missing)
    return scoring.score(reference, prediction, scoring.Settings(profile=profile, missing=missing))


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
    assert result.jga == pytest.approx(jga, abs=0.01)
    assert result.ser == pytest.approx(ser, abs=0.01)
    assert (result.sub, result.dele, result.ins) == sdi
    assert result.n_ref == 41_843
    assert result.turns == 7_372
    assert result.jga_ci[0] <= result.jga <= result.jga_ci[1]
    assert result.ser_ci[0] <= result.ser <= result.ser_ci[1]


def test_it_reports_missing_turns_scored_as_empty(fixtures_dir):
    result = _score(fixtures_dir, "mwzeval-predictions/damd.json", missing="empty")
    assert result.missing_dialogues == 1
    assert result.missing_turns == 18
    assert any("18 user turn(s) missing" in w for w in result.warnings)
    assert "missing:empty" in result.signature


def test_it_scores_the_manifest_as_a_perfect_prediction(fixtures_dir):
    result = _score(fixtures_dir, "dstc11/test-dstc11.manifest.txt")
    assert result.format == "manifest"
    assert result.jga == 100.0
    assert result.ser == 0.0


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
    gold_ids = {k.lower() for k in orjson.loads(gold_path.read_bytes())}
    missing = sorted(gold_ids - {k.lower() for k in orjson.loads(labes.read_bytes())})
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
    out = orjson.loads(run.stdout)
    for key in (
        "turns", "jga", "ser", "n_ref", "sub", "del", "ins", "slot_precision", "slot_recall",
        "slot_f1", "jga_ci", "ser_ci", "per_slot", "per_domain", "format", "warnings", "signature",
    ):  # fmt: skip
        assert key in out
    assert round(out["jga"], 2) == 17.93
    assert (out["sub"], out["del"], out["ins"]) == (12706, 4171, 2121)
    # precision = TP / predicted, recall = TP / gold, with TP = N_ref - S - D = 24,966
    assert out["slot_precision"] == pytest.approx(100 * 24966 / (24966 + 12706 + 2121))
    assert out["slot_recall"] == pytest.approx(100 * 24966 / 41843)
    assert out["signature"].startswith("dstc11|norm:default|missing:reject|")
    assert len(out["jga_ci"]) == 2
