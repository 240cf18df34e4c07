"""Fault tests: real worker processes on Postgres and Redis, each test isolated.

A worker is a ``celery worker`` subprocess pointed at this test's database, private storage,
cache prefix and queue (as in tests/leaderboard/submissions/test_worker.py). Waiting loops have
a generous deadline so a broken worker fails the test with its log instead of hanging it.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from django.db import connection

from tests.conftest import ROOT

DEADLINE = 60.0


def database_url() -> str:
    db = connection.settings_dict
    auth = db["USER"] + (f":{db['PASSWORD']}" if db["PASSWORD"] else "")
    return f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


def wait_for(predicate: Callable[[], bool], what: str, logs: Path, deadline: float = DEADLINE):
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        if predicate():
            return
        time.sleep(0.02)
    output = "\n".join(p.read_text(errors="replace")[-4000:] for p in sorted(logs.glob("*.log")))
    pytest.fail(f"timed out waiting for {what}; worker output:\n{output}")


@pytest.fixture
def start_worker(
    postgres, redis_url, isolation, tmp_path
) -> Iterator[Callable[..., subprocess.Popen]]:
    """``start(pool="solo"|"prefork", broker=URL, **env)`` starts a worker; all stop at teardown."""
    processes: list[subprocess.Popen] = []

    def start(
        *, pool: str = "solo", concurrency: int = 1, broker: str | None = None, **extra_env: str
    ):
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "leaderboard.settings",
            "DATABASE_URL": database_url(),
            "REDIS_URL": broker or redis_url,
            "TRACKBOARD_QUEUE": isolation["tag"],
            "TRACKBOARD_CACHE_PREFIX": isolation["tag"],
            "TRACKBOARD_PRIVATE_ROOT": str(isolation["private"]),
            "TRACKBOARD_VAR_DIR": str(tmp_path / "var"),
            **extra_env,
        }
        env.pop("DATABASE_TEST_NAME", None)
        log = open(tmp_path / f"worker-{len(processes)}.log", "wb")  # noqa: SIM115
        pool_args = (
            ["--pool=prefork", f"--concurrency={concurrency}"]
            if pool == "prefork"
            else ["--pool=solo"]
        )
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "leaderboard",
                "worker",
                *pool_args,
                "--without-gossip",
                "--without-mingle",
                "--without-heartbeat",
                "--loglevel=INFO",
                f"--hostname={isolation['tag']}-{len(processes)}@%h",
            ],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        processes.append(process)
        return process

    yield start
    for process in processes:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def children_of(pid: int) -> list[int]:
    """Process ids whose parent is ``pid`` (a prefork worker's pool processes)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # "pid (comm) state ppid ...": comm may hold spaces, so split after the last ')'.
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == pid:
            found.append(int(entry.name))
    return found


def _socket_inodes(pid: int) -> set[str]:
    inodes = set()
    try:
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            with contextlib.suppress(OSError):
                target = os.readlink(fd)
                if target.startswith("socket:["):
                    inodes.add(target[8:-1])
    except OSError:
        pass
    return inodes


def _postgres_socket_inodes(port: int) -> set[str]:
    """Inodes of established TCP connections to ``port`` (any local address)."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError):
            for line in Path(table).read_text().splitlines()[1:]:
                fields = line.split()
                remote_port = int(fields[2].rsplit(":", 1)[1], 16)
                if remote_port == port and fields[3] == "01":
                    inodes.add(fields[9])
    return inodes


def pool_processes_holding_a_database_connection(master: int, port: int) -> list[int]:
    """The prefork pool processes of ``master`` that are inside a task right now.

    An idle pool process holds no database connection (CONN_MAX_AGE=0: Celery's Django fix-up
    closes it after every task), so the one connected to Postgres is the one scoring.
    """
    connected = _postgres_socket_inodes(port)
    return [pid for pid in children_of(master) if _socket_inodes(pid) & connected]
