"""``scoring`` is a library a participant runs locally: no web framework may come with it."""

from __future__ import annotations

import json
import subprocess
import sys


def test_importing_scoring_pulls_in_no_django():
    code = (
        "import json, sys, scoring, scoring.cli, scoring.synth; "
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('django', 'rest_framework', 'celery', 'leaderboard'))))"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(run.stdout) == []


def test_cli_errors_have_no_traceback(tmp_path):
    run = subprocess.run(
        [sys.executable, "-m", "scoring", "score", "--gold", str(tmp_path / "nope.json"),
         "--pred", str(tmp_path / "p.json")],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert run.returncode == 2
    assert run.stderr == f"error: {tmp_path / 'nope.json'}: no such file.\n"


def test_the_bundled_example_scores(tmp_path):
    run = subprocess.run(
        [sys.executable, "-m", "scoring", "example", "--out", str(tmp_path)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "JGA" in run.stdout and "signature   dstc11|norm:default" in run.stdout
