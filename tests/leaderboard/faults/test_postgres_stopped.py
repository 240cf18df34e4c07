"""Postgres stopped while runs are being scored, then started again: a Postgres cluster of the
test's own (initdb on another loopback port; the shared server is never touched), a real
worker and a real beat on it, the site's data made by ``manage.py`` commands.

Every run ends scored once and none failed; the time from the database's return to the last
run scored is recorded (``benchmarks/faults.py`` prints it). The outage is 30 s with
``TRACKBOARD_FAULT_TIMES=production`` (and the production leases and intervals), a few seconds
in the suite.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from tests.conftest import ROOT, require
from tests.leaderboard.faults.conftest import _free_port
from tests.leaderboard.faults.test_recovery import DEADLINE, PRODUCTION, TIMES
from tests.leaderboard.slow_worker import DELAY_VARIABLE

pytestmark = pytest.mark.slow

BIN = Path("/usr/lib/postgresql")
OUTAGE = 30 if PRODUCTION else 4
RUNS = 3

#: Made in the site's own shell: a phase with its reference, an approved team, RUNS uploads
#: (each sent to the worker as it commits); prints their ids.
SEED = f"""
import json
from scoring.synth import make_gold, make_prediction
from leaderboard.submissions import services
from tests.leaderboard.factories import approved_team, phase_with_references, uploads
gold = make_gold(3, seed=37)
phase = phase_with_references(json.dumps(gold).encode(), keys=("tts-verbatim",))
team = approved_team(phase)
pks = [services.submit(team=team, phase=phase, user=team.created_by,
       files=uploads(make_prediction(gold, 0.2, seed=n), keys=("tts-verbatim",)),
       method_name=f"run {{n}}").pk for n in range({RUNS})]
print(" ".join(map(str, pks)))
"""


def _tool(name: str) -> str | None:
    found = sorted(BIN.glob(f"*/bin/{name}"))
    return str(found[-1]) if found else None


class OwnPostgres:
    """A Postgres cluster in a temporary folder, run as the ``postgres`` user on a port of its
    own, trusting loopback connections."""

    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="trackboard-pg-"))
        self.data = self.dir / "data"
        self.port = _free_port()
        self.url = f"postgres://postgres@127.0.0.1:{self.port}/trackboard"
        shutil.chown(self.dir, "postgres", "postgres")

    def _as_postgres(self, *argv: str) -> None:
        subprocess.run(["runuser", "-u", "postgres", "--", *argv], check=True,
                       capture_output=True, timeout=120)  # fmt: skip

    def init(self) -> None:
        self._as_postgres(_tool("initdb") or "initdb", "-D", str(self.data), "-A", "trust",
                          "-U", "postgres")  # fmt: skip
        self.start()
        with psycopg.connect(self.url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as db:
            db.execute("CREATE DATABASE trackboard")

    def start(self) -> None:
        options = f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1"
        self._as_postgres(_tool("pg_ctl") or "pg_ctl", "-D", str(self.data), "-o", options,
                          "-l", str(self.dir / "log"), "-w", "start")  # fmt: skip

    def stop(self) -> None:
        self._as_postgres(_tool("pg_ctl") or "pg_ctl", "-D", str(self.data), "-m", "fast",
                          "-w", "stop")  # fmt: skip

    def remove(self) -> None:
        pg_ctl = _tool("pg_ctl") or "pg_ctl"
        subprocess.run(["runuser", "-u", "postgres", "--", pg_ctl, "-D", str(self.data), "-m",
                        "immediate", "stop"], capture_output=True)  # fmt: skip
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture
def own_postgres() -> Iterator[OwnPostgres]:
    usable = _tool("initdb") is not None and shutil.which("runuser") is not None
    require("a Postgres cluster of the test's own", usable, "install postgresql; run as root")
    cluster = OwnPostgres()
    cluster.init()
    yield cluster
    cluster.remove()


def _statuses(url: str, pks: list[int]) -> dict[int, str]:
    try:
        with psycopg.connect(url, connect_timeout=2) as db:
            rows = db.execute(
                "SELECT id, status FROM submissions_submission WHERE id = ANY(%s)", (pks,)
            ).fetchall()
    except psycopg.Error:
        return {}
    return dict(rows)


def test_runs_scored_across_a_postgres_stop_and_start_are_all_scored(
    own_postgres, redis_url, isolation, tmp_path, tally
):
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "leaderboard.settings",
        "DATABASE_URL": own_postgres.url,
        "REDIS_URL": redis_url,
        "TRACKBOARD_QUEUE": isolation["tag"],
        "TRACKBOARD_CACHE_PREFIX": isolation["tag"],
        "TRACKBOARD_PRIVATE_ROOT": str(tmp_path / "private"),
        "TRACKBOARD_VAR_DIR": str(tmp_path / "var"),
        "TRACKBOARD_BOARD_QUEUE": f"{isolation['tag']}-boards",
        **TIMES,
    }
    env.pop("DATABASE_TEST_NAME", None)
    manage = [sys.executable, "manage.py"]
    subprocess.run([*manage, "migrate", "-v", "0"], cwd=ROOT, env=env, check=True, timeout=300)
    started: list[subprocess.Popen[bytes]] = []

    def start(name: str, argv: list[str], **extra: str) -> None:
        with (tmp_path / f"{name}.log").open("wb") as log:
            started.append(subprocess.Popen(argv, cwd=ROOT, env={**env, **extra}, stdout=log,
                                            stderr=subprocess.STDOUT))  # fmt: skip

    celery = [sys.executable, "-m", "celery", "-A", "leaderboard"]
    try:
        start("worker", [sys.executable, "-m", "tests.leaderboard.slow_worker", "-A",
                         "leaderboard", "worker", "--pool=solo", "--without-gossip",
                         "--without-mingle", "--loglevel=INFO",
                         f"--queues={isolation['tag']},{isolation['tag']}-mail"],
              **{DELAY_VARIABLE: "1"})  # fmt: skip
        start("beat", [*celery, "beat", "--loglevel=INFO",
                       f"--schedule={tmp_path / 'beat-schedule'}"])  # fmt: skip
        seeded = subprocess.run([*manage, "shell", "-c", SEED], cwd=ROOT, env=env, check=True,
                                capture_output=True, text=True, timeout=300)  # fmt: skip
        pks = [int(pk) for pk in seeded.stdout.split()[-RUNS:]]
        deadline = time.monotonic() + DEADLINE
        while "scoring" not in _statuses(own_postgres.url, pks).values():
            assert time.monotonic() < deadline, "no run was claimed"
            time.sleep(0.1)
        own_postgres.stop()  # mid-scoring: the worker loses its database
        time.sleep(OUTAGE)
        own_postgres.start()
        back = time.monotonic()
        while set(_statuses(own_postgres.url, pks).values()) - {"scored", "failed"}:
            if time.monotonic() > back + DEADLINE:
                logs = "\n".join(p.read_text(errors="replace")[-3000:]
                                 for p in sorted(tmp_path.glob("*.log")))  # fmt: skip
                pytest.fail(f"runs not scored after the database came back:\n{logs}")
            time.sleep(0.2)
        tally.figures["return_to_all_scored_s"] = time.monotonic() - back
        statuses = _statuses(own_postgres.url, pks)
        tally.figures["failed"] = sum(s == "failed" for s in statuses.values())
        assert set(statuses.values()) == {"scored"}, statuses
        with psycopg.connect(own_postgres.url) as db:
            (results,) = db.execute(
                "SELECT count(*) FROM submissions_result WHERE submission_id = ANY(%s)", (pks,)
            ).fetchone()
        assert results == RUNS  # once each
        assert all(p.poll() is None for p in started)  # the worker and beat rode it out
    finally:
        for process in started:
            if process.poll() is None:
                process.terminate()
        for process in started:
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
