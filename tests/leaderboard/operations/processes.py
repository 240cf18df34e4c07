"""Start and stop the real processes of a production-like site (gunicorn, Celery worker, beat),
or the whole stack of ``scripts/serve`` (nginx before both pools, under supervisord).

Each process logs to its own file under the test's temporary directory; a test that times out
prints the tails of those logs. Everything started is stopped at the end, by its own pid.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests
from django.db import connection

from tests.conftest import ROOT, require

DEADLINE = 240.0
SECRET = "production-test-secret-key-0123456789-abcdefghijklmnopqrstuvwxyz"


def database_url() -> str:
    """The URL of the database this test runs on, for the subprocesses."""
    db = connection.settings_dict
    auth = db["USER"] + (f":{db['PASSWORD']}" if db["PASSWORD"] else "")
    return f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


def signals_as_from_a_terminal() -> None:
    """``preexec_fn`` of a script a test stops with INT, TERM or HUP: the three at their
    defaults, as a terminal starts it. A suite started in the background (``cmd &`` without
    job control) hands its children SIGINT ignored, which a shell's trap cannot take back."""
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def production_env(*, redis_url: str, tag: str, private: Path, var: Path, **extra: str) -> dict:
    """Production settings: the production switch, DEBUG off, a required SECRET_KEY, JSON logs,
    collected and hashed static files."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "leaderboard.settings",
        # The production switch of the security block: secure cookies, HSTS, check --deploy.
        # Plain HTTP on loopback stands in for the TLS proxy, so the app's own HTTPS redirect
        # is off (the proxy redirects) and clients accept secure cookies over it.
        "TRACKBOARD_PRODUCTION": "true",
        "TRACKBOARD_SSL_REDIRECT": "false",
        "DEBUG": "false",
        "SECRET_KEY": SECRET,
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "DATABASE_URL": database_url(),
        "REDIS_URL": redis_url,
        "TRACKBOARD_QUEUE": tag,
        "TRACKBOARD_CACHE_PREFIX": tag,
        "TRACKBOARD_PRIVATE_ROOT": str(private),
        "TRACKBOARD_VAR_DIR": str(var),
        "STATIC_ROOT": str(var / "static"),
        "TRACKBOARD_STATIC_MANIFEST": "true",
        "LOG_FORMAT": "json",
        **extra,
    }
    env.pop("DATABASE_TEST_NAME", None)
    return env


class Processes:
    def __init__(self, logs: Path) -> None:
        self.logs = logs
        self.started: list[subprocess.Popen[bytes]] = []

    def start(self, name: str, argv: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
        log = open(self.logs / f"{name}.log", "wb")  # noqa: SIM115 - closed with the process
        process = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        log.close()
        self.started.append(process)
        return process

    def run(self, name: str, argv: list[str], env: dict[str, str]) -> str:
        """Run a one-shot command to completion; fail with its output when it fails."""
        done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise AssertionError(f"{name} failed ({done.returncode}):\n{done.stdout}{done.stderr}")
        return done.stdout

    def tails(self) -> str:
        return "\n".join(
            f"--- {p.name}\n{p.read_text(errors='replace')[-3000:]}"
            for p in sorted(self.logs.glob("*.log"))
        )

    def wait_for(self, predicate: Callable[[], bool], what: str) -> None:
        deadline = time.monotonic() + DEADLINE
        while time.monotonic() < deadline:
            for process in self.started:
                if process.poll() is not None:
                    raise AssertionError(f"a process exited early ({process.args[:4]}):\n"
                                         f"{self.tails()}")  # fmt: skip
            try:
                if predicate():
                    return
            except OSError:
                pass  # not listening yet
            time.sleep(0.2)
        raise AssertionError(f"timed out waiting for {what}:\n{self.tails()}")

    def stop(self) -> None:
        for process in self.started:
            if process.poll() is None:
                process.terminate()
        for process in self.started:
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


PYTHON = sys.executable


def listening(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


def accepted(clients: list[socket.socket]) -> bool:
    """Whether the server has taken each of ``clients``' connections: its end of each is a
    socket a process holds (an inode in /proc/net/tcp), no longer one the kernel keeps in the
    listening socket's queue (inode 0), and still established (not cut off)."""
    waiting = {(c.getpeername()[1], c.getsockname()[1]) for c in clients}
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError):
            for line in Path(table).read_text().splitlines()[1:]:
                fields = line.split()
                local = int(fields[1].rsplit(":", 1)[1], 16)
                remote = int(fields[2].rsplit(":", 1)[1], 16)
                if fields[3] == "01" and fields[9] != "0":  # established, held by a process
                    waiting.discard((local, remote))
    return not waiting


def wait_until(predicate: Callable[[], bool], what: str, deadline: float = DEADLINE) -> None:
    """Poll ``predicate`` until it holds; fail after ``deadline`` s."""
    end = time.monotonic() + deadline
    while not predicate():
        if time.monotonic() > end:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.05)


def _children() -> dict[int, list[int]]:
    """Every process's children, by the parent's id (from /proc)."""
    found: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # "pid (comm) state ppid ...": comm may hold spaces, so split after the last ')'.
        found.setdefault(int(stat.rsplit(")", 1)[1].split()[1]), []).append(int(entry.name))
    return found


def children_of(pid: int) -> list[int]:
    """Process ids whose parent is ``pid`` (a prefork worker's pool processes)."""
    return _children().get(pid, [])


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


def _established_to(port: int) -> set[str]:
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


def connected_to_the_database(pids: list[int]) -> list[int]:
    """Those of ``pids`` that hold a connection to this test's Postgres server right now."""
    connected = _established_to(int(connection.settings_dict["PORT"] or 5432))
    return [pid for pid in pids if _socket_inodes(pid) & connected]


def descendants(pid: int) -> list[int]:
    """The processes under ``pid``: children, theirs, and so on."""
    children = _children()
    found: list[int] = []
    todo = [pid]
    while todo:
        below = children.get(todo.pop(), [])
        found += below
        todo += below
    return found


def alive(pid: int) -> bool:
    """``pid`` runs (a zombie, dead but not yet reaped, does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@dataclass
class Stack:
    """``scripts/serve`` running: nginx at ``base``, the pools and the Celery processes under
    supervisord, which writes every log under ``dir``/logs."""

    base: str
    addr: tuple[str, int]
    #: nginx's, the readers' and the uploads' ports
    ports: tuple[int, int, int]
    process: subprocess.Popen[bytes]
    dir: Path
    #: what the script itself printed
    out: Path
    #: the stack's Celery queue and cache prefix, and its private files
    tag: str
    private: Path

    @property
    def logs(self) -> Path:
        return self.dir / "logs"

    def tails(self) -> str:
        return "\n".join(
            f"--- {p.name}\n{p.read_text(errors='replace')[-2000:]}"
            for p in [self.out, *sorted(self.logs.glob("*.log"))]
            if p.exists()
        )

    def control(self, *args: str) -> str:
        """``supervisorctl`` on the stack's control socket; its output."""
        done = subprocess.run(
            [PYTHON, "-m", "supervisor.supervisorctl", "-c", str(self.dir / "supervisord.conf"),
             *args],
            capture_output=True, text=True, timeout=30,
        )  # fmt: skip
        return done.stdout

    def pid(self, program: str = "") -> int:
        """The pid of ``program`` as supervisord has it (0: not running); supervisord's own
        without one."""
        found = self.control("pid", *([program] if program else [])).strip()
        return int(found) if found.isdigit() else 0

    def app_hits(self, path: str, expected: int) -> int:
        """Requests for ``path`` in the readers' gunicorn access log (the app was reached), one
        per line (a JSON line names the request twice), once ``expected`` of them are there and
        the log has caught up: a request of this method's own, sent to the readers' pool after
        every earlier one was answered, is logged too."""
        barrier = f"/healthz?logged={secrets.token_hex(4)}"
        requests.get(f"http://127.0.0.1:{self.ports[1]}{barrier}", timeout=10).raise_for_status()
        found = 0

        def caught_up() -> bool:
            nonlocal found
            lines = (self.logs / "web.log").read_text(errors="replace").splitlines()
            found = sum(f'"GET {path} HTTP' in line for line in lines)
            return found >= expected and any(f'"GET {barrier} HTTP' in line for line in lines)

        self.wait_for(caught_up, f"{expected} request(s) for {path} in the readers' log")
        return found

    def wait_for(self, predicate: Callable[[], bool], what: str, deadline: float = DEADLINE):
        """Poll ``predicate`` until it holds; fail with the logs' tails after ``deadline`` s."""
        end = time.monotonic() + deadline
        while not predicate():
            if time.monotonic() > end:
                pytest.fail(f"timed out waiting for {what}:\n{self.tails()}")
            time.sleep(0.1)

    def stop(self, sig: int) -> int:
        if self.process.poll() is None:
            self.process.send_signal(sig)
        try:
            return self.process.wait(timeout=120)
        except subprocess.TimeoutExpired:
            self.process.kill()
            raise


@contextmanager
def serve(*, redis_url: str, tag: str, private: Path, tmp: Path, **extra: str) -> Iterator[Stack]:
    """``scripts/serve`` with production settings on this test's database, on free loopback
    ports, each gunicorn pool 1 process x 2 threads, one worker process; ``extra`` adds to
    its environment (or changes it). Yields once nginx answers /healthz; TERM at the end."""
    require("nginx", shutil.which("nginx") is not None, "apt-get install nginx")
    front, web, uploads = free_port(), free_port(), free_port()
    settings = {
        "TRACKBOARD_ADDR": f"127.0.0.1:{front}",
        "TRACKBOARD_WEB_BIND": f"127.0.0.1:{web}",
        "TRACKBOARD_UPLOADS_BIND": f"127.0.0.1:{uploads}",
        "TRACKBOARD_SERVE_DIR": str(tmp / "serve"),
        "TRACKBOARD_PYTHON": PYTHON,
        "WEB_CONCURRENCY": "1",
        "WEB_THREADS": "2",
        "UPLOADS_CONCURRENCY": "1",
        "UPLOADS_THREADS": "2",
        "WORKER_CONCURRENCY": "1",
    }
    env = production_env(
        redis_url=redis_url, tag=tag, private=private, var=tmp / "var", **{**settings, **extra}
    )
    out = tmp / "serve.out"
    with open(out, "wb") as log:
        process = subprocess.Popen([str(ROOT / "scripts" / "serve")], env=env, stdout=log,
                                   stderr=subprocess.STDOUT,
                                   preexec_fn=signals_as_from_a_terminal)  # fmt: skip
    stack = Stack(f"http://127.0.0.1:{front}", ("127.0.0.1", front), (front, web, uploads),
                  process, tmp / "serve", out, tag, private)  # fmt: skip
    try:
        deadline = time.monotonic() + DEADLINE
        while True:
            if process.poll() is not None:
                pytest.fail(f"scripts/serve exited:\n{stack.tails()}")
            try:
                if requests.get(f"{stack.base}/healthz", timeout=2).ok:
                    break
            except requests.RequestException:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"the stack did not answer /healthz:\n{stack.tails()}")
            time.sleep(0.3)
        yield stack
    finally:
        stack.stop(signal.SIGTERM)


@contextmanager
def module_stack(tmp: Path, **extra: str) -> Iterator[Stack]:
    """``serve`` once for a whole test module, on PostgreSQL and Redis, with a queue and cache
    prefix of its own and its private files under ``tmp``; each of the module's tests works on
    them (``on_the_stacks_storage``, in this folder's conftest)."""
    from tests.leaderboard.conftest import require_postgres, require_redis

    require_postgres()
    private = tmp / "private"
    private.mkdir()
    tag = f"trackboard-test-{uuid.uuid4().hex[:10]}"
    with serve(redis_url=require_redis(), tag=tag, private=private, tmp=tmp, **extra) as stack:
        yield stack
