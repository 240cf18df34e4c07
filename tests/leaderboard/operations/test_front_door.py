"""The front door: ``scripts/serve`` runs nginx (docker/nginx/nginx.conf) before gunicorn's two
pools, a Celery worker and beat, with production settings, on this test's database. Fifty
clients stalled in their headers and twenty stalled in an upload's body leave a reader and an
upload answered (each pool has two threads: without the proxy's buffering, two stalled
clients would hold it); nginx cuts the stalled headers off. An unchanged board answers 304 to a
conditional GET through nginx; a second anonymous read is served from nginx's cache without
reaching the app, a signed-in read never is; the API's board and the embeddable board are
cached the same way. The script stops everything it started on INT
and on HUP (TERM after every test).
"""

from __future__ import annotations

import json
import re
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests
from django.test import Client

from leaderboard.api.services import create_token
from leaderboard.submissions.models import Submission
from tests.conftest import ROOT, require
from tests.leaderboard.factories import KEYS, approved_team, phase_with_references
from tests.leaderboard.operations.processes import (
    DEADLINE,
    PYTHON,
    SECRET,
    free_port,
    production_env,
    signals_as_from_a_terminal,
)
from tests.leaderboard.web import GOLD_BYTES, PREDICTION, log_in, scored_submission

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

#: nginx.conf's client_header_timeout, in seconds.
HEADER_TIMEOUT = 10


@dataclass
class Stack:
    base: str
    addr: tuple[str, int]
    ports: tuple[int, int, int]
    process: subprocess.Popen[bytes]
    logs: Path

    def tails(self) -> str:
        return "\n".join(
            f"--- {p.name}\n{p.read_text(errors='replace')[-2000:]}"
            for p in sorted(self.logs.glob("*.log"))
        )

    def app_hits(self, path: str, expected: int) -> int:
        """Requests for ``path`` in the readers' gunicorn access log (the app was reached).
        A line is written just after its answer is sent: half a second for any line to come,
        then up to two more for ``expected`` of them."""
        time.sleep(0.5)
        deadline = time.monotonic() + 2
        while True:
            log = (self.logs / "web.log").read_text(errors="replace")
            found = len(re.findall(rf'"GET {re.escape(path)} HTTP', log))
            if found >= expected or time.monotonic() > deadline:
                return found
            time.sleep(0.05)

    def stop(self, sig: int) -> int:
        if self.process.poll() is None:
            self.process.send_signal(sig)
        try:
            return self.process.wait(timeout=90)
        except subprocess.TimeoutExpired:
            self.process.kill()
            raise


def listening(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


def stops_everything(stack: Stack, sig: int, status: int) -> None:
    """``sig`` to scripts/serve: it exits with ``status`` and nothing it started listens."""
    assert all(listening(port) for port in stack.ports)
    assert stack.stop(sig) == status
    assert not [port for port in stack.ports if listening(port)], stack.tails()


@pytest.fixture
def stack(transactional_db, postgres, redis_url, isolation, tmp_path) -> Iterator[Stack]:
    """``scripts/serve`` on free loopback ports, each gunicorn pool 1 process x 2 threads."""
    require("nginx", shutil.which("nginx") is not None, "apt-get install nginx")
    front, web, uploads = free_port(), free_port(), free_port()
    serve_dir = tmp_path / "serve"
    env = production_env(
        redis_url=redis_url,
        tag=isolation["tag"],
        private=isolation["private"],
        var=tmp_path / "var",
        TRACKBOARD_ADDR=f"127.0.0.1:{front}",
        TRACKBOARD_WEB_BIND=f"127.0.0.1:{web}",
        TRACKBOARD_UPLOADS_BIND=f"127.0.0.1:{uploads}",
        TRACKBOARD_SERVE_DIR=str(serve_dir),
        TRACKBOARD_PYTHON=PYTHON,
        WEB_CONCURRENCY="1",
        WEB_THREADS="2",
        UPLOADS_CONCURRENCY="1",
        UPLOADS_THREADS="2",
        WORKER_CONCURRENCY="1",
    )
    out = open(tmp_path / "serve.out", "wb")  # noqa: SIM115 - closed below
    process = subprocess.Popen([str(ROOT / "scripts" / "serve")], env=env, stdout=out,
                               stderr=subprocess.STDOUT,
                               preexec_fn=signals_as_from_a_terminal)  # fmt: skip
    out.close()
    found = Stack(f"http://127.0.0.1:{front}", ("127.0.0.1", front), (front, web, uploads),
                  process, serve_dir / "logs")  # fmt: skip
    deadline = time.monotonic() + DEADLINE
    while True:
        if process.poll() is not None:
            pytest.fail(f"scripts/serve exited:\n{(tmp_path / 'serve.out').read_text()}")
        try:
            if requests.get(f"{found.base}/healthz", timeout=2).ok:
                break
        except requests.RequestException:
            pass
        if time.monotonic() > deadline:
            found.stop(signal.SIGTERM)
            pytest.fail(f"the stack did not answer /healthz:\n{found.tails()}")
        time.sleep(0.3)
    try:
        yield found
    finally:
        found.stop(signal.SIGTERM)


def _stalled_in_headers(addr: tuple[str, int]) -> socket.socket:
    client = socket.create_connection(addr)
    client.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
    return client


def _stalled_in_body(addr: tuple[str, int], phase_pk: int, token: str) -> socket.socket:
    client = socket.create_connection(addr)
    client.sendall(
        f"POST /api/v1/phases/{phase_pk}/submissions/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Authorization: Bearer {token}\r\n"
        "Content-Type: multipart/form-data; boundary=slow\r\nContent-Length: 1000000\r\n\r\n"
        '--slow\r\nContent-Disposition: form-data; name="method_name"\r\n\r\nslow\r\n'.encode()
    )
    return client


def test_stalled_clients_leave_a_reader_and_an_upload_answered(stack):
    phase = phase_with_references(GOLD_BYTES)
    team = approved_team(phase)
    _, token = create_token(team.created_by, "front door")
    headers = [_stalled_in_headers(stack.addr) for _ in range(50)]
    bodies = [_stalled_in_body(stack.addr, phase.pk, token) for _ in range(20)]
    time.sleep(1)  # every one of them is now held, waiting for the rest of its request
    try:
        page = requests.get(f"{stack.base}/", timeout=10)
        assert page.status_code == 200, stack.tails()
        files = {key: ("run.json", json.dumps(PREDICTION).encode()) for key in KEYS}
        upload = requests.post(
            f"{stack.base}/api/v1/phases/{phase.pk}/submissions/",
            data={"method_name": "meanwhile"},
            files=files,
            headers={"Authorization": f"Bearer {token}"},
            timeout=30,
        )
        assert upload.status_code == 201, upload.text + stack.tails()
        # ... and scored by the stack's worker while the stalled clients still wait
        submission = upload.json()["id"]
        deadline = time.monotonic() + DEADLINE
        while Submission.objects.get(pk=submission).status != "scored":
            assert time.monotonic() < deadline, stack.tails()
            time.sleep(0.3)
        # Only the one upload reached the uploads' pool, the stalled ones never did.
        assert Submission.objects.count() == 1
        # nginx closes a client that has not sent its headers after client_header_timeout.
        headers[0].settimeout(HEADER_TIMEOUT + 20)
        try:
            answer = headers[0].recv(1024)
        except ConnectionResetError:
            answer = b""
        assert answer == b"" or answer.startswith(b"HTTP/1.1 408"), answer
    finally:
        for client in headers + bodies:
            client.close()
    stops_everything(stack, signal.SIGINT, 130)


def test_boards_answer_304_and_anonymous_reads_come_from_the_cache(stack, settings):
    phase = phase_with_references(GOLD_BYTES)
    team = approved_team(phase)
    scored_submission(team, phase)
    path = f"/challenges/{phase.challenge.slug}/{phase.slug}/leaderboard/"
    url = stack.base + path

    first = requests.get(url, timeout=10)
    assert first.status_code == 200, stack.tails()
    assert "public" in first.headers["Cache-Control"]
    assert first.headers["X-Cache-Status"] == "MISS"
    tag = first.headers["ETag"]
    assert stack.app_hits(path, 1) == 1

    second = requests.get(url, timeout=10)
    assert second.status_code == 200 and second.headers["X-Cache-Status"] == "HIT"
    assert second.content == first.content
    # the app's own headers come with the cached copy
    assert second.headers["Content-Security-Policy"] == first.headers["Content-Security-Policy"]

    again = requests.get(url, headers={"If-None-Match": tag}, timeout=10)
    assert again.status_code == 304 and again.content == b""
    assert stack.app_hits(path, 1) == 1  # neither reached the app

    # Signed in: never from the cache, never into it.
    settings.SECRET_KEY = SECRET  # the stack's: its sessions are signed with it
    browser = Client()
    log_in(browser, team.created_by)
    cookie = {"sessionid": browser.cookies["sessionid"].value}
    for _ in range(2):
        signed_in = requests.get(url, cookies=cookie, timeout=10)
        assert signed_in.status_code == 200
        assert signed_in.headers["X-Cache-Status"] == "BYPASS"
        assert "private" in signed_in.headers["Cache-Control"]
        assert team.created_by.username.encode() in signed_in.content
    assert stack.app_hits(path, 3) == 3
    anonymous = requests.get(url, timeout=10)
    assert anonymous.headers["X-Cache-Status"] == "HIT"
    assert team.created_by.username.encode() not in anonymous.content

    # The API's public board and the embeddable board go through the same cache, and the
    # API's is open to other sites' pages.
    for other in (f"/api/v1/phases/{phase.pk}/leaderboard/", path + "embed/"):
        seen = [requests.get(stack.base + other, timeout=10) for _ in range(2)]
        assert [r.status_code for r in seen] == [200, 200], other
        assert [r.headers["X-Cache-Status"] for r in seen] == ["MISS", "HIT"], other
    assert seen[0].headers["X-Frame-Options"] == "DENY"  # the challenge lists no site
    api = requests.get(f"{stack.base}/api/v1/phases/{phase.pk}/leaderboard/", timeout=10)
    assert api.headers["Access-Control-Allow-Origin"] == "*"
    stops_everything(stack, signal.SIGHUP, 129)
