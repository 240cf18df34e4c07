"""The production web server (gunicorn with ``leaderboard/gunicorn.py``) against slow and
large requests: ``/healthz`` and ``/`` are answered while three clients trickling request
bodies are held, and those are cut off after the read timeout; a 50 MB upload of tiny
turns costs the web process that stores it and the worker that refuses it at most ~500 MB each,
and an upload whose dialogue id is 45 MiB gets a message under 1 KB, on the stored row, the
API's answer and the page that lists it.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from leaderboard.api.services import create_token
from leaderboard.submissions.models import Submission
from tests.leaderboard.factories import approved_team, phase_with_references
from tests.leaderboard.operations.processes import (
    PYTHON,
    Processes,
    accepted,
    children_of,
    free_port,
    production_env,
    wait_until,
)
from tests.leaderboard.web import GOLD_BYTES, log_in

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

#: Long enough for the pages asked for meanwhile to be answered while the slow clients are held.
READ_TIMEOUT = 10
MIB = 1024 * 1024


def tiny_turns(size: int) -> bytes:
    """A prediction of ``size`` bytes that is almost all empty turns of one dialogue."""
    head, tail = b'{"mul0001": [', b"{}]}"
    return head + b"{}," * ((size - len(head) - len(tail)) // 3) + tail


def peak_rss_mib(pid: int) -> float:
    """The process's peak resident memory (VmHWM), in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise AssertionError(f"no VmHWM for {pid}")


@pytest.fixture
def web_server(transactional_db, postgres, redis_url, isolation, tmp_path) -> Iterator:
    """``start(**env)`` runs gunicorn with the production configuration and settings (DEBUG
    off, the production switch) on this test's database; yields (base URL, master process)."""
    logs = tmp_path / "logs"
    logs.mkdir()
    procs = Processes(logs)

    def start(**extra: str) -> tuple[str, int]:
        port = free_port()
        env = production_env(
            redis_url=redis_url,
            tag=isolation["tag"],
            private=isolation["private"],
            var=tmp_path / "var",
            # Pages served from the finders: nothing here is about static files.
            TRACKBOARD_STATIC_MANIFEST="false",
            TRACKBOARD_BIND=f"127.0.0.1:{port}",
            TRACKBOARD_READ_TIMEOUT=str(READ_TIMEOUT),
            **extra,
        )
        master = procs.start(
            "gunicorn", [PYTHON, "-m", "gunicorn", "--config", "python:leaderboard.gunicorn"], env
        )
        base = f"http://127.0.0.1:{port}"
        procs.wait_for(lambda: requests.get(f"{base}/healthz", timeout=2).ok, "gunicorn")
        return base, master.pid

    try:
        yield start
    finally:
        procs.stop()


def _slow_body(base: str) -> socket.socket:
    """A client that sends the headers of a form post and the first bytes of its body, and
    then nothing."""
    host, port = base.removeprefix("http://").split(":")
    client = socket.create_connection((host, int(port)))
    client.sendall(
        b"POST /accounts/login/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000000\r\n\r\n"
        b"username=slow&password="
    )
    return client


def test_three_slow_body_clients_leave_the_site_answering_and_are_cut_off(web_server, tally):
    base, _ = web_server()
    slow = [_slow_body(base) for _ in range(3)]
    wait_until(lambda: accepted(slow), "the server to take the slow clients")
    for _ in range(3):
        for path in ("/healthz", "/"):
            response = requests.get(base + path, timeout=30)
            tally.saw(response.status_code)
            assert response.status_code == 200, path
            # answered while every slow client is still held, its body awaited
            assert accepted(slow), "a slow client was let go before the others were answered"
    # After the read timeout each slow client has its answer (the form, refused) or is closed.
    for client in slow:
        client.settimeout(READ_TIMEOUT + 10)
        answer = client.recv(64)
        assert answer == b"" or answer.startswith(b"HTTP/1.1 4"), answer
        if answer:
            tally.saw(int(answer.split()[1]))
        client.close()
    assert tally.server_errors == 0


def _upload(base: str, phase_pk: int, token: str, method: str, tts: bytes) -> int:
    """Send ``tts`` for the TTS-Verbatim condition (the others a small valid file); the
    submission's id."""
    files = {"tts-verbatim": ("run.json", tts)}
    files.update({key: ("run.json", GOLD_BYTES) for key in ("human-verbatim", "human-paraphrased")})
    response = requests.post(
        f"{base}/api/v1/phases/{phase_pk}/submissions/",
        data={"method_name": method},
        files=files,
        headers={"Authorization": f"Bearer {token}"},
        timeout=120,
    )
    assert response.status_code == 201, response.content[:500]
    return int(response.json()["id"])


def _refused(pk: int, worker: object) -> Submission:
    """The submission once its worker has refused it."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = Submission.objects.get(pk=pk)
        if found.status not in ("queued", "scoring"):
            return found
        assert worker.poll() is None, "the worker stopped"  # type: ignore[attr-defined]
        time.sleep(0.05)
    raise AssertionError(f"submission {pk} was not refused within 60 s")


def test_a_50_mb_upload_of_tiny_turns_costs_the_web_and_the_worker_under_500_mb(
    web_server, start_worker, tally
):
    phase = phase_with_references(GOLD_BYTES)
    team = approved_team(phase)
    _, token = create_token(team.created_by, "large")
    base, master = web_server(WEB_CONCURRENCY="1", WEB_THREADS="1")
    (web,) = children_of(master)
    worker = start_worker()
    pk = _upload(base, phase.pk, token, "tiny turns", tiny_turns(50 * MIB - 64))
    tally.saw(201)
    refused = _refused(pk, worker)
    assert refused.status == "invalid" and not refused.charged
    (line,) = refused.error.splitlines()
    assert line.startswith("tts-verbatim: ") and "a prediction for this reference" in line
    assert len(line) < 1024
    assert refused.verdicts["human-verbatim"]["kind"] == "valid"
    for name, pid in (("web", web), ("worker", worker.pid)):
        peak = peak_rss_mib(pid)
        assert peak < 500, f"the {name} process's peak RSS {peak:.0f} MiB"
    assert not Submission.objects.exclude(status="invalid").exists()


def test_a_45_mib_dialogue_id_gets_a_message_under_1_kb_everywhere(
    web_server, start_worker, client, tally
):
    phase = phase_with_references(GOLD_BYTES)
    team = approved_team(phase)
    _, token = create_token(team.created_by, "long id")
    base, _ = web_server()
    worker = start_worker()
    pk = _upload(base, phase.pk, token, "long id", json.dumps({"x" * (45 * MIB): [{}]}).encode())
    tally.saw(201)
    invalid = _refused(pk, worker)
    assert invalid.status == "invalid"
    # refused before it is parsed: no id is that long (scoring.md)
    assert "more than 65,536 bytes in a row without a quote" in invalid.error
    assert len(invalid.error.encode()) < 1024
    answer = requests.get(
        f"{base}/api/v1/submissions/{pk}/",
        headers={"Authorization": f"Bearer {token}"},
        timeout=30,
    )
    tally.saw(answer.status_code)
    assert answer.status_code == 200 and len(answer.content) < 4096
    log_in(client, team.created_by)
    listing = client.get(f"/challenges/{phase.challenge.slug}/{phase.slug}/submissions/")
    assert listing.status_code == 200 and len(listing.content) < 100_000
    page = client.get(f"/submissions/{pk}/")
    assert page.status_code == 200 and len(page.content) < 100_000
