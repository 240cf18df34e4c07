"""``scripts/serve`` under supervisord, with real processes, started once for this module:

- the Celery worker SIGKILLed (its main process and its pool) while it scores: supervisord
  starts a new one, nginx and gunicorn go on (``/healthz`` through nginx answers 200 all the
  while, their pids unchanged), and the submission ends scored once its lease has run out;
- ten failed log-ins from one client address lock that address, not another one: behind
  nginx the site counts the address nginx received each connection from
  (``TRACKBOARD_TRUSTED_PROXIES=1``), not nginx's own, which every client would share;
- every kind of mail reaches the site's mail server (an SMTP server of this module's own): a
  sign-up's confirmation and a password reset asked for through nginx, a registration's mails
  to the organisers and to the team, and a scored submission's, all by the one worker
  ``scripts/serve`` starts, which takes every queue the site declares, the mail's included;
- TERM to the script while an upload is still on its way through nginx and a submission is
  being scored: the upload is answered and the scoring finishes, then every process is gone.

The stack's worker holds each claim for a few seconds (tests/leaderboard/slow_worker.py, through
a ``python`` that starts it in place of ``celery``), so a test can act while it scores. Each test
runs on the stack's queue, cache prefix and private files; the stopping test comes last.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import socket
import stat
import threading
import time
from collections.abc import Iterator

import pytest
import requests
from aiosmtpd.controller import Controller
from axes.models import AccessAttempt
from django.conf import settings as django_settings
from django.contrib.auth import get_user_model
from requests.adapters import HTTPAdapter
from urllib3 import encode_multipart_formdata

from leaderboard.api.services import create_token
from leaderboard.challenges.models import Challenge
from leaderboard.submissions.models import Submission
from leaderboard.teams.models import Participation
from leaderboard.teams.services import register, set_participation_status
from tests.leaderboard.accounts.conftest import Inbox, free_port
from tests.leaderboard.factories import (
    KEYS,
    ChallengeFactory,
    TeamFactory,
    UserFactory,
    approved_team,
    phase_with_references,
    with_second_factor,
)
from tests.leaderboard.operations.processes import (
    PYTHON,
    Stack,
    alive,
    descendants,
    listening,
    module_stack,
)
from tests.leaderboard.slow_worker import DELAY_VARIABLE
from tests.leaderboard.web import GOLD_BYTES, PREDICTION

pytestmark = [
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("on_the_stacks_storage"),
]

#: Seconds each scoring run holds its claim before it scores: long enough to kill the worker
#: mid-scoring, and to stop the stack while the worker still holds one.
SCORE_DELAY = 5
#: How long the worker may take to be started again (supervisord tries it at once).
RESTART_DEADLINE = 30
PASSWORD = "a right password, 2 b sure"
SITE = "https://trackboard.example.org"


@pytest.fixture(scope="module")
def mail_server() -> Iterator[Controller]:
    """The site's mail server: a real SMTP server on loopback; its ``handler`` (an ``Inbox``)
    keeps what it accepted."""
    controller = Controller(Inbox(), hostname="127.0.0.1", port=free_port())
    controller.start()
    yield controller
    controller.stop()


@pytest.fixture(scope="module")
def stack(django_db_setup, tmp_path_factory, mail_server) -> Iterator[Stack]:
    """``scripts/serve`` for the whole module, its scoring lease at the minimum (3 s) and its
    reaper every second, so a run killed mid-scoring is given back within seconds."""
    tmp = tmp_path_factory.mktemp("stack")
    # The stack's python, but a Celery worker it starts holds each claim SCORE_DELAY seconds.
    python = tmp / "python"
    real = shlex.quote(PYTHON)
    python.write_text(
        "#!/bin/sh\n"
        'if [ "$1 $2 $5" = "-m celery worker" ]; then\n'
        "    shift 2\n"
        f'    exec {real} -m tests.leaderboard.slow_worker "$@"\n'
        "fi\n"
        f'exec {real} "$@"\n'
    )
    python.chmod(python.stat().st_mode | stat.S_IXUSR)
    with module_stack(
        tmp,
        TRACKBOARD_PYTHON=str(python),
        TRACKBOARD_SCORING_LEASE_SECONDS="3",
        EMAIL_HOST="127.0.0.1",
        EMAIL_PORT=str(mail_server.port),
        TRACKBOARD_SITE_URL=SITE,
        TRACKBOARD_REAPER_INTERVAL="1",
        **{DELAY_VARIABLE: str(SCORE_DELAY)},
    ) as found:
        yield found


def _upload(stack: Stack, phase_pk: int, token: str, method: str) -> int:
    files = {key: ("run.json", json.dumps(PREDICTION).encode()) for key in KEYS}
    answer = requests.post(
        f"{stack.base}/api/v1/phases/{phase_pk}/submissions/",
        data={"method_name": method},
        files=files,
        headers={"Authorization": f"Bearer {token}"},
        timeout=30,
    )
    assert answer.status_code == 201, answer.text + stack.tails()
    return int(answer.json()["id"])


def _status(pk: int) -> str:
    return Submission.objects.values_list("status", flat=True).get(pk=pk)


class _FromAddress(HTTPAdapter):
    """Connections from a loopback address of its own: another client, to nginx."""

    def __init__(self, address: str) -> None:
        self.address = address
        super().__init__()

    def init_poolmanager(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        kwargs["source_address"] = (self.address, 0)
        super().init_poolmanager(*args, **kwargs)


class _Client(requests.Session):
    """A browser at ``address``; sends the site's HTTPS-only cookies over plain HTTP (loopback
    stands in for the TLS proxy)."""

    def __init__(self, address: str) -> None:
        super().__init__()
        self.mount("http://", _FromAddress(address))

    def request(self, *args, **kwargs):  # type: ignore[no-untyped-def, override]
        for cookie in self.cookies:
            cookie.secure = False
        return super().request(*args, **kwargs)

    def submit(self, url: str, fields: dict[str, str]) -> requests.Response:
        """The form at ``url`` sent with ``fields``, as a browser sends it (its CSRF token)."""
        page = self.get(url, timeout=10)
        assert page.status_code == 200, page.text
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text)
        assert token is not None, page.text
        return self.post(
            url,
            data={"csrfmiddlewaretoken": token[1], **fields},
            headers={"Referer": url},
            allow_redirects=False,
            timeout=10,
        )

    def log_in(self, base: str, username: str, password: str) -> requests.Response:
        fields = {"login": username, "password": password}
        return self.submit(f"{base}/accounts/login/", fields)


def test_failed_log_ins_from_one_client_do_not_lock_out_another(stack, settings):
    # The stack checks passwords with Django's default hashers (the tests' fast one is not
    # among them): the user's is stored with the first of those.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]
    user = get_user_model().objects.create_user("someone", "someone@example.org", PASSWORD)
    guesser, owner = _Client("127.0.0.2"), _Client("127.0.0.3")

    limit = django_settings.LOGIN_FAILURE_LIMIT
    statuses = [
        guesser.log_in(stack.base, f"made-up-{n}", "guessed").status_code for n in range(limit)
    ]
    # the form again with its error, and the last failure locks the address
    assert statuses == [200] * (limit - 1) + [429], stack.tails()
    # The failures were counted against the guesser's address, which is now refused...
    addresses = set(AccessAttempt.objects.values_list("ip_address", flat=True))
    assert addresses == {"127.0.0.2"}, addresses
    refused = guesser.log_in(stack.base, user.username, PASSWORD)
    assert refused.status_code == 429, refused.text
    assert "Too many failed log-ins from your address" in refused.text
    # ... while the owner, at another address, logs in.
    logged_in = owner.log_in(stack.base, user.username, PASSWORD)
    assert logged_in.status_code == 302, logged_in.text
    assert "sessionid" in logged_in.cookies


def test_a_worker_killed_while_scoring_is_started_again_and_nothing_else_stops(stack):
    phase = phase_with_references(GOLD_BYTES)
    team = approved_team(phase)
    _, token = create_token(team.created_by, "supervised")
    others = {name: stack.pid(name) for name in ("nginx", "web", "uploads")}
    assert all(others.values()), stack.control("status")

    # /healthz through nginx, polled the whole time
    answers: list[int | str] = []
    done = threading.Event()

    def poll() -> None:
        with requests.Session() as session:
            while not done.is_set():
                try:
                    answers.append(session.get(f"{stack.base}/healthz", timeout=10).status_code)
                except requests.RequestException as exc:
                    answers.append(repr(exc))
                time.sleep(0.1)

    poller = threading.Thread(target=poll)
    poller.start()
    try:
        submission = _upload(stack, phase.pk, token, "killed")
        stack.wait_for(lambda: _status(submission) == "scoring", "the worker to claim it")
        worker = stack.pid("worker")
        pool = descendants(worker)
        assert worker and pool, stack.control("status")
        for pid in (worker, *pool):
            os.kill(pid, signal.SIGKILL)

        def restarted() -> bool:
            return stack.pid("worker") not in (0, worker)

        stack.wait_for(restarted, "a new worker", RESTART_DEADLINE)
        # The killed run's lease runs out, the reaper gives the row back, the new worker
        # scores it.
        stack.wait_for(lambda: _status(submission) == "scored", "the submission to be scored")
    finally:
        done.set()
        poller.join()
    assert not [pid for pid in (worker, *pool) if alive(pid)]
    assert Submission.objects.get(pk=submission).attempts == 2
    assert answers and set(answers) == {200}, answers
    assert {name: stack.pid(name) for name in others} == others
    assert "RUNNING" in stack.control("status", "worker")


def _mail_to(stack: Stack, inbox: Inbox, address: str, subject: str) -> str:
    """The message to ``address`` whose subject starts with ``subject``, once it arrived."""

    def found() -> str | None:
        for to, message in list(inbox.received):
            if address in to and f"Subject: {subject}" in message:
                return message
        return None

    stack.wait_for(lambda: found() is not None, f"the mail {subject!r} to {address}")
    return str(found())


def test_every_kind_of_mail_arrives(stack, mail_server, settings):
    inbox = mail_server.handler
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]
    # a sign-up through nginx: its confirmation
    signed_up = _Client("127.0.0.4").submit(
        f"{stack.base}/accounts/signup/",
        {
            "username": "newcomer",
            "email": "newcomer@example.org",
            "password1": PASSWORD,
            "password2": PASSWORD,
        },
    )
    assert signed_up.status_code == 302, signed_up.text
    confirm = _mail_to(stack, inbox, "newcomer@example.org", "Confirm your e-mail address")
    assert f"{SITE}/accounts/confirm-email/" in confirm
    # a password reset through nginx
    asked = _Client("127.0.0.5").submit(
        f"{stack.base}/accounts/password/reset/", {"email": "newcomer@example.org"}
    )
    assert asked.status_code == 302, asked.text
    reset = _mail_to(stack, inbox, "newcomer@example.org", "Reset your Trackboard password")
    assert f"{SITE}/accounts/password/reset/key/" in reset
    # a registration waiting for the organisers, and their decision to the team
    challenge = ChallengeFactory(registration=Challenge.Registration.APPROVAL, title="Mailed")
    challenge.organisers.add(with_second_factor(UserFactory(email="organiser@example.org")))
    team = TeamFactory(name="Mailed Team")
    participation = register(team=team, challenge=challenge)
    _mail_to(stack, inbox, "organiser@example.org", "Mailed: Mailed Team waits for your approval")
    set_participation_status(participation, Participation.Status.APPROVED)
    _mail_to(stack, inbox, team.created_by.email, "Mailed Team is approved for Mailed")
    # a scored submission's outcome
    phase = phase_with_references(GOLD_BYTES)
    scored = approved_team(phase)
    _, api_token = create_token(scored.created_by, "mailed")
    submission = _upload(stack, phase.pk, api_token, "mailed")
    stack.wait_for(lambda: _status(submission) == "scored", "the submission to be scored")
    _mail_to(stack, inbox, scored.created_by.email, f"Submission #{submission} to ")


def _in_flight(stack: Stack, phase_pk: int, token: str) -> tuple[socket.socket, bytes]:
    """An upload sent to nginx but for its last bytes: the socket, and those bytes."""
    fields = {"method_name": "in flight"}
    files = {key: ("run.json", json.dumps(PREDICTION).encode(), "application/json")
             for key in KEYS}  # fmt: skip
    body, content_type = encode_multipart_formdata({**fields, **files})
    client = socket.create_connection(stack.addr, timeout=90)
    client.sendall(
        f"POST /api/v1/phases/{phase_pk}/submissions/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Authorization: Bearer {token}\r\nContent-Type: {content_type}\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
        + body[:-100]
    )
    return client, body[-100:]


def _answer(client: socket.socket) -> bytes:
    received = b""
    try:
        while chunk := client.recv(65536):
            received += chunk
    except ConnectionResetError:
        pass
    return received


def test_a_stop_answers_the_upload_in_flight_then_leaves_no_process(stack):
    phase = phase_with_references(GOLD_BYTES)
    team = approved_team(phase)
    _, token = create_token(team.created_by, "stopping")
    scoring = _upload(stack, phase.pk, token, "scoring when stopped")
    stack.wait_for(lambda: _status(scoring) == "scoring", "the worker to claim it")
    client, rest = _in_flight(stack, phase.pk, token)
    supervisord = stack.pid()
    started = [supervisord, *descendants(supervisord)]
    assert len(started) > 5, stack.control("status")
    log = stack.logs / "supervisord.log"

    stack.process.send_signal(signal.SIGTERM)
    # The stop has begun (beat is the first to go) and nginx still takes the upload's end.
    stack.wait_for(lambda: "stopped: beat" in log.read_text(), "beat to stop")
    client.sendall(rest)
    try:
        answer = _answer(client)
    finally:
        client.close()
    assert answer.startswith(b"HTTP/1.1 201 "), answer[:2000].decode(errors="replace") + (
        stack.tails()
    )
    uploaded = int(json.loads(answer.split(b"\r\n\r\n", 1)[1])["id"])

    assert stack.process.wait(timeout=120) == 143, stack.tails()
    assert not [pid for pid in started if alive(pid)], stack.tails()
    assert not [port for port in stack.ports if listening(port)]
    # The worker finished the scoring it held before it stopped; the upload it never took
    # waits in its queue for the next start.
    assert _status(scoring) == "scored", stack.tails()
    assert _status(uploaded) == "queued"
    # Stopped in order: nginx last.
    stopped = re.findall(r"stopped: (\w+)", log.read_text())
    assert stopped == ["beat", "worker", "web", "uploads", "nginx"], stopped
