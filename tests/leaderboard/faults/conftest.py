"""Fault tests: real worker processes on Postgres and Redis, each test isolated.

A worker is a ``celery worker`` subprocess pointed at this test's database, private storage,
cache prefix and queue (as in tests/leaderboard/submissions/test_worker.py). Waiting loops have
a generous deadline so a broken worker fails the test with its log instead of hanging it.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import redis
from kombu import pools as kombu_pools

from leaderboard.celery import app
from tests.conftest import require
from tests.leaderboard.operations.processes import children_of, connected_to_the_database

# The worker fixture and helpers are shared with the other real-worker tests.
from tests.leaderboard.workers import (  # noqa: F401
    DEADLINE,
    database_url,
    start_beat,
    start_worker,
    wait_for,
)

#: Loopback ports for the tests' own redis-servers and Postgres clusters (the first free one is
#: taken; a stopped server keeps its port for its restart): outside the ephemeral range, nine
#: for each test process of a parallel run (``PYTEST_XDIST_WORKER``: gw0, gw1, ...), so two
#: processes never take the same one.
_PROCESS = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw") or 0)
OWN_REDIS_PORTS = range(6391 + 10 * _PROCESS, 6400 + 10 * _PROCESS)
#: benchmarks/faults.py sets it to a file: each fault test appends its figures there.
FIGURES_VARIABLE = "TRACKBOARD_FAULT_FIGURES"


def _free_port() -> int:
    for port in OWN_REDIS_PORTS:
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class OwnRedis:
    """A redis-server on a loopback port of its own, stopped and started by the test (never
    the shared one): no persistence, so a restart loses every queued message."""

    def __init__(self, tmp_path: Path) -> None:
        self.port = _free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.dir = tmp_path
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            ["redis-server", "--bind", "127.0.0.1", "--port", str(self.port), "--save", "",
             "--appendonly", "no", "--dir", str(self.dir)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        client = redis.Redis.from_url(self.url, socket_connect_timeout=1)
        for _ in range(100):
            try:
                client.ping()
                return
            except redis.RedisError:
                time.sleep(0.05)
        pytest.fail(f"redis-server on port {self.port} did not start")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()  # no SHUTDOWN SAVE: the queued messages are lost
            self.process.wait()


@pytest.fixture
def own_redis(tmp_path) -> Iterator[OwnRedis]:
    require("redis-server", shutil.which("redis-server") is not None, "apt install redis-server")
    server = OwnRedis(tmp_path)
    server.start()
    yield server
    server.stop()


@pytest.fixture
def publish_to(monkeypatch):
    """Point this process's Celery producer at another broker for the test."""

    def switch(url: str) -> None:
        monkeypatch.setattr(app.conf, "broker_url", url)
        # Drop the cached connection and producer pools so the next publish uses ``url``.
        monkeypatch.setattr(app, "_pool", None)
        monkeypatch.setattr(app.amqp, "_producer_pool", None)

    yield switch
    pool = app._pool
    if pool is not None:
        pool.force_close_all()
        # kombu keeps one pool per broker address for the whole process: forget the closed
        # one, or the next test on the same address (the own redis-servers reuse their ports)
        # would be handed it ("Acquire on closed pool").
        for group in (kombu_pools.connections, kombu_pools.producers):
            for key, value in list(group.items()):
                if value is pool or getattr(value, "connections", None) is pool:
                    dict.__delitem__(group, key)


@dataclass
class Tally:
    """What one fault or hostile-input test saw: every response status, and the uploads
    lost (answered 2xx but never scored, or answered otherwise yet stored or charged)."""

    kind: str
    statuses: Counter[int] = field(default_factory=Counter)
    lost: int = 0
    #: recovery times and other measured figures, by name (seconds unless the name says)
    figures: dict[str, float] = field(default_factory=dict)

    def saw(self, status: int) -> int:
        self.statuses[status] += 1
        return status

    @property
    def server_errors(self) -> int:
        return self.statuses[500]

    def as_dict(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "responses": sum(self.statuses.values()),
            "status_500": self.statuses[500],
            "status_5xx": sum(n for s, n in self.statuses.items() if s >= 500),
            "lost_uploads": self.lost,
            **{name: round(value, 1) for name, value in self.figures.items()},
        }


@pytest.fixture
def tally(request) -> Iterator[Tally]:
    """The test's figures, appended to ``$TRACKBOARD_FAULT_FIGURES`` when it is set."""
    found = Tally(request.node.name)
    yield found
    path = os.environ.get(FIGURES_VARIABLE)
    if path:
        with open(path, "a", encoding="utf-8") as out:
            out.write(json.dumps(found.as_dict()) + "\n")


def pool_processes_holding_a_database_connection(master: int) -> list[int]:
    """The prefork pool processes of ``master`` that are inside a task right now.

    An idle pool process holds no database connection (CONN_MAX_AGE=0: Celery's Django fix-up
    closes it after every task), so the one connected to Postgres is the one scoring.
    """
    return connected_to_the_database(children_of(master))
