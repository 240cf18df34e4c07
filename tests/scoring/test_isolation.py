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


def test_commands_that_score_nothing_load_no_numpy_nor_another_task(tmp_path):
    """Help, and the client's commands that only talk to a site, start without numpy (the
    bootstrap's) and without any task's formats; scoring one DSTC11 file loads numpy but not
    the other tasks' modules (fuzzy matching, schemas)."""
    code = (
        "import json, sys, runpy; sys.argv = sys.argv[1:]\n"
        "try:\n    runpy.run_module(sys.argv[0], run_name='__main__')\n"
        "except SystemExit:\n    pass\n"
        "loaded = sorted({m.split('.')[0] for m in sys.modules} & {'numpy', 'rapidfuzz'})\n"
        "tasks = sorted(m for m in sys.modules if m.startswith(('scoring.multiwoz22', "
        "'scoring.dvd', 'scoring.dstc11')))\n"
        "print(json.dumps([loaded, tasks]), file=sys.stderr)"
    )
    for command in (["scoring", "--help"], ["trackboard_cli", "--help"]):
        run = subprocess.run(
            [sys.executable, "-c", code, *command], capture_output=True, text=True, check=False
        )
        assert json.loads(run.stderr.strip().splitlines()[-1]) == [[], []], command
    # ``scoring example`` scores a DSTC11 example (called in process: the command's own exit
    # skips the interpreter's shutdown, so nothing would be printed after it)
    example = code.replace(
        "runpy.run_module(sys.argv[0], run_name='__main__')",
        "from scoring.cli import main; main(sys.argv[1:])",
    )
    run = subprocess.run(
        [sys.executable, "-c", example, "scoring", "example", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
    )
    loaded, tasks = json.loads(run.stderr.strip().splitlines()[-1])
    assert loaded == ["numpy"]
    assert tasks and all(name.startswith("scoring.dstc11") for name in tasks)
