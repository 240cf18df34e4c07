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
import signal
import socket
import time
from collections.abc import Iterator

import pytest
import requests
from django.test import Client

from leaderboard.api.services import create_token
from leaderboard.submissions.models import Submission
from tests.leaderboard.factories import KEYS, approved_team, phase_with_references
from tests.leaderboard.operations.processes import (
    DEADLINE,
    SECRET,
    Stack,
    accepted,
    listening,
    serve,
    wait_until,
)
from tests.leaderboard.web import GOLD_BYTES, PREDICTION, log_in, scored_submission

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

#: nginx.conf's client_header_timeout, in seconds.
HEADER_TIMEOUT = 10


def stops_everything(stack: Stack, sig: int, status: int) -> None:
    """``sig`` to scripts/serve: it exits with ``status`` and nothing it started listens."""
    assert all(listening(port) for port in stack.ports)
    assert stack.stop(sig) == status
    assert not [port for port in stack.ports if listening(port)], stack.tails()


@pytest.fixture
def stack(transactional_db, postgres, redis_url, isolation, tmp_path) -> Iterator[Stack]:
    """``scripts/serve`` on free loopback ports, each gunicorn pool 1 process x 2 threads. The
    boards' answers stay fresh in nginx's cache for the whole test (``max-age`` an hour, not
    5 s), so what comes from the cache does not depend on how fast the test runs."""
    with serve(redis_url=redis_url, tag=isolation["tag"], private=isolation["private"],
               tmp=tmp_path, TRACKBOARD_LEADERBOARD_MAX_AGE="3600") as found:  # fmt: skip
        yield found


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
    # every one of them is now held by nginx, waiting for the rest of its request
    wait_until(lambda: accepted(headers + bodies), "nginx to take the stalled clients")
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
