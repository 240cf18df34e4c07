"""Fault tests: real worker processes on Postgres and Redis, each test isolated.

A worker is a ``celery worker`` subprocess pointed at this test's database, private storage,
cache prefix and queue (as in tests/leaderboard/submissions/test_worker.py). Waiting loops have
a generous deadline so a broken worker fails the test with its log instead of hanging it.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

# The worker fixture and helpers are shared with the other real-worker tests.
from tests.leaderboard.workers import (  # noqa: F401
    DEADLINE,
    database_url,
    start_worker,
    wait_for,
)


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
