"""Faults and hostile inputs: the figures of the fault suite, and the web process's peak memory
per upload size.

    .venv/bin/python benchmarks/faults.py                  # both parts
    .venv/bin/python benchmarks/faults.py --memory-only    # no services needed
    .venv/bin/python benchmarks/faults.py --recovery-only  # the recovery times alone

Part 1 (memory): gunicorn with the production configuration (leaderboard/gunicorn.py, one
process, one thread, a fresh one per upload) on an embedded site in a temporary folder, whose
phase has the public DSTC11 test reference (1,000 dialogues, 7,372 user turns). Each upload is
sent through the API and the worker's peak resident memory (VmHWM) is read from /proc. The
baseline, measured in the same run: the idle worker, a real prediction of that reference, and
what parsing each hostile file with ``json.loads`` alone costs (in a child process), which is
what refusing it before parsing saves.

Part 3 (recovery, ``--recovery-only`` alone): runs the recovery tests (each fault of the
issue's table: the scoring pool process killed, the whole worker killed and started again,
Postgres stopped 30 s on a cluster of its own, every connection terminated every 0.3 s for
50 s, Redis restarted with its queue lost, beat stopped, storage full and read-only, a hung
mail server) with ``TRACKBOARD_FAULT_TIMES=production`` (the production lease and intervals)
and prints each recovery time. About ten minutes.

Part 2 (faults): runs the fault and hostile-input tests (tests/leaderboard/faults, the
security tests of uploads and limits) with ``TRACKBOARD_FAULT_FIGURES`` set, and prints what
each saw: responses, 500s, other 5xx (503 with Retry-After), lost uploads. They need Postgres
and Redis: run it with the variables of docs/operators.md's test command (CI=true DATABASE_URL=
... REDIS_URL=...). Figures, not assertions: see benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
# The participant package's folder first: run as a script, this file's folder is on the path,
# where benchmarks/scoring.py would otherwise be the ``scoring`` the site imports.
sys.path.insert(0, str(ROOT / "participant"))
MIB = 1024 * 1024
FIXTURE_GOLD = "dstc11/test-dstc11.gold.json"
FAULT_TESTS = [
    "tests/leaderboard/faults",
    "tests/leaderboard/security/test_hostile_uploads.py",
    "tests/leaderboard/security/test_limits_behind_a_proxy.py",
    "tests/leaderboard/security/test_unstorable_and_refused.py",
    "tests/leaderboard/submissions/test_failure_mail.py",
]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _peak_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def seed(var: Path) -> dict:
    """Migrate an embedded site in ``var`` and make the phase, a team and its token."""
    os.environ["TRACKBOARD_VAR_DIR"] = str(var)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "leaderboard.settings")
    (var / "private").mkdir(parents=True, exist_ok=True)
    import django

    django.setup()
    from django.core.management import call_command

    from leaderboard.api.services import create_token
    from tests.fixturedata import fixture_bytes
    from tests.leaderboard.factories import approved_team, phase_with_references

    call_command("migrate", verbosity=0)
    phase = phase_with_references(fixture_bytes(FIXTURE_GOLD), keys=("test",))
    team = approved_team(phase)
    return {"phase": phase.pk, "token": create_token(team.created_by, "faults")[1]}


def uploads() -> dict[str, bytes]:
    """What is sent: a real prediction, files of tiny turns, one at the edge of the budget."""
    from scoring.synth import make_prediction
    from tests.fixturedata import fixture_bytes

    gold = json.loads(fixture_bytes(FIXTURE_GOLD))
    files = {"real prediction": json.dumps(make_prediction(gold, 0.1, seed=3)).encode()}
    for size in (5, 20, 50):
        n = (size * MIB - 20) // 3
        files[f"tiny turns {size} MiB"] = b'{"mul0001": [' + b"{}," * n + b"{}]}"
    # Just under the reference's budget: as many small objects as a prediction may hold.
    from scoring import Source, get_task

    limit = get_task("dstc11").load_reference(Source(fixture_bytes(FIXTURE_GOLD), "g")).limit
    n = (limit.items - 16) // 4
    files["budget-sized objects"] = b'{"mul0001": [' + b'{"a":{}},' * n + b'{"a":{}}]}'
    files["45 MiB dialogue id"] = json.dumps({"x" * (45 * MIB): [{}]}).encode()
    # The same real prediction as DSTC11 manifest lines, and a manifest of one 49 MiB line.
    files["real prediction, manifest"] = _manifest(make_prediction(gold, 0.1, seed=3))
    head = b"line_nr: 1 dialog_id: MUL0001.json turn_id: 0 text: user: "
    files["49 MiB one-line manifest"] = head + b"x" * (49 * MIB - len(head) - 8) + b" state: "
    return files


def _manifest(prediction: dict) -> bytes:
    """``prediction`` (gold-json) as manifest lines: a user line per turn with its state."""
    lines = []
    for dialogue, turns in prediction.items():
        for turn, state in enumerate(turns):
            items = "; ".join(
                f"{domain}-{slot}={value}" for domain, slots in state.items()
                for slot, value in slots.items()
            )  # fmt: skip
            lines.append(
                f"line_nr: {len(lines)} dialog_id: {dialogue} turn_id: {2 * turn} text: user: "
                f"the turn's words state: {items}"
            )
    return ("\n".join(lines) + "\n").encode()


def json_loads_peak(data: bytes, tmp: Path) -> float:
    """Peak memory of a child process that only reads ``data`` and parses it with json.loads."""
    path = tmp / "parse.json"
    path.write_bytes(data)
    # VmHWM, not ru_maxrss: the latter carries the parent's peak across fork and exec.
    code = (
        "import json, sys; d = open(sys.argv[1], 'rb').read(); json.loads(d); "
        "print([int(l.split()[1]) / 1024 for l in open('/proc/self/status') "
        "if l.startswith('VmHWM:')][0])"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True
    )
    return float(done.stdout)


def memory(tmp: Path) -> None:
    import requests

    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "TRACKBOARD_VAR_DIR": str(tmp / "var"),
        "WEB_CONCURRENCY": "1",
        "WEB_THREADS": "1",
    }
    for name in ("DATABASE_URL", "REDIS_URL", "DATABASE_TEST_NAME"):
        env.pop(name, None)
    site = subprocess.run(
        [sys.executable, "-c", f"import benchmarks.faults as f, json, pathlib; "
         f"print(json.dumps(f.seed(pathlib.Path({str(tmp / 'var')!r}))))"],
        cwd=ROOT, env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    seeded = json.loads(site.stdout.strip().splitlines()[-1])
    print("Peak resident memory of the gunicorn worker (VmHWM, MiB), one upload each:")
    print(f"{'upload':<28}{'MiB sent':>10}{'status':>8}{'worker':>9}{'x size':>8}"
          f"{'json.loads':>12}")  # fmt: skip
    for name, data in uploads().items():
        port = _free_port()
        run_env = {**env, "TRACKBOARD_BIND": f"127.0.0.1:{port}"}
        master = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "--config", "python:leaderboard.gunicorn"],
            cwd=ROOT, env=run_env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        try:
            base = f"http://127.0.0.1:{port}"
            for _ in range(200):
                try:
                    if requests.get(f"{base}/healthz", timeout=2).status_code < 500:
                        break
                except requests.RequestException:
                    time.sleep(0.1)
            (worker,) = _children(master.pid)
            idle = _peak_mib(worker)
            response = requests.post(
                f"{base}/api/v1/phases/{seeded['phase']}/submissions/",
                data={"method_name": name},
                files={"test": ("run.json", data)},
                headers={"Authorization": f"Bearer {seeded['token']}"},
                timeout=600,
            )
            peak = _peak_mib(worker)
        finally:
            master.terminate()
            master.wait(timeout=30)
        hostile = "real prediction" not in name and "manifest" not in name
        parsed = json_loads_peak(data, tmp) if hostile else float("nan")
        # the worker's growth over its idle peak, in sizes of the file
        ratio = (peak - idle) / (len(data) / MIB)
        print(
            f"{name:<28}{len(data) / MIB:>10.1f}{response.status_code:>8}{peak:>9.0f}"
            f"{ratio:>8.1f}{parsed:>12.0f}   (idle worker {idle:.0f})"
        )


def faults(tmp: Path) -> None:
    figures = tmp / "figures.jsonl"
    env = {**os.environ, "TRACKBOARD_FAULT_FIGURES": str(figures), "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", *FAULT_TESTS],
        cwd=ROOT, env=env, capture_output=True, text=True,
    )  # fmt: skip
    print(done.stdout.strip().splitlines()[-1])
    lines = figures.read_text().splitlines() if figures.exists() else []
    rows = [json.loads(line) for line in lines]
    print(f"{'kind':<92}{'answers':>8}{'500':>5}{'5xx':>5}{'lost':>6}")
    for row in rows:
        print(
            f"{row['kind'][:91]:<92}{row['responses']:>8}{row['status_500']:>5}"
            f"{row['status_5xx']:>5}{row['lost_uploads']:>6}"
        )
    print(
        f"kinds tried: {len(rows)}; answers: {sum(r['responses'] for r in rows)}; "
        f"500s: {sum(r['status_500'] for r in rows)}; "
        f"other 5xx: {sum(r['status_5xx'] - r['status_500'] for r in rows)}; "
        f"lost uploads: {sum(r['lost_uploads'] for r in rows)}"
    )


RECOVERY_TESTS = [
    "tests/leaderboard/faults/test_recovery.py",
    "tests/leaderboard/faults/test_postgres_stopped.py",
    "tests/leaderboard/faults/test_storage_full.py",
    "tests/leaderboard/faults/test_hung_smtp.py",
]
#: the columns every figures row has; the rest are the test's own figures
COMMON = {"kind", "responses", "status_500", "status_5xx", "lost_uploads"}


def recovery(tmp: Path) -> None:
    figures = tmp / "recovery.jsonl"
    env = {
        **os.environ,
        "TRACKBOARD_FAULT_FIGURES": str(figures),
        "TRACKBOARD_FAULT_TIMES": "production",
        "PYTHONPATH": str(ROOT),
    }
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", *RECOVERY_TESTS],
        cwd=ROOT, env=env, capture_output=True, text=True,
    )  # fmt: skip
    print(done.stdout.strip().splitlines()[-1])
    lines = figures.read_text().splitlines() if figures.exists() else []
    for row in (json.loads(line) for line in lines):
        own = ", ".join(f"{k} {v}" for k, v in row.items() if k not in COMMON)
        print(f"{row['kind']}\n    {own}; 500s {row['status_500']}, lost {row['lost_uploads']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memory-only", action="store_true")
    parser.add_argument("--faults-only", action="store_true")
    parser.add_argument("--recovery-only", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        if args.recovery_only:
            recovery(tmp)
            return
        if not args.faults_only:
            memory(tmp)
        if not args.memory_only:
            faults(tmp)
            recovery(tmp)


if __name__ == "__main__":
    main()
