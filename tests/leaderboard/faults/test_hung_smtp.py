"""A mail server that accepts connections and never answers, with real workers on Redis: the
mail tasks wait on their own queue and worker, and the scoring worker goes on scoring.

Three uploads are scored one after another while the mail worker is still held by the first
outcome mail's connection (the listener has it open, unanswered): no scoring process waited
for the mail server.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator

import pytest

from leaderboard.operations.heartbeat import alive_workers
from leaderboard.submissions import services
from leaderboard.submissions.models import Submission
from scoring.synth import make_gold, make_prediction
from tests.leaderboard.factories import approved_team, phase_with_references, uploads
from tests.leaderboard.faults.conftest import wait_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

GOLD = make_gold(3, seed=41)
KEYS = ("tts-verbatim",)


class HungSmtp:
    """A loopback listener that accepts every connection and never says a word."""

    def __init__(self) -> None:
        self.server = socket.socket()
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(16)
        self.port = self.server.getsockname()[1]
        self.accepted: list[socket.socket] = []
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            self.accepted.append(conn)

    def open_connections(self) -> int:
        """Connections the client has not closed yet (a closed one reads as end of file)."""
        still = 0
        for conn in self.accepted:
            conn.setblocking(False)
            try:
                still += conn.recv(1) != b""
            except BlockingIOError:
                still += 1
            except OSError:
                pass
        return still

    def close(self) -> None:
        self.server.close()
        for conn in self.accepted:
            conn.close()


@pytest.fixture
def hung_smtp() -> Iterator[HungSmtp]:
    server = HungSmtp()
    yield server
    server.close()


def test_a_hung_mail_server_delays_no_scoring(start_worker, hung_smtp, isolation, tmp_path, tally):
    mail = {
        "EMAIL_HOST": "127.0.0.1",
        "EMAIL_PORT": str(hung_smtp.port),
        "EMAIL_TIMEOUT": "120",  # longer than the test: the first mail is held throughout
    }
    start_worker(queues=isolation["tag"], **mail)
    start_worker(queues=f"{isolation['tag']}-mail", **mail)
    # both ready (their first heartbeats), so the first figure is not a worker's start
    wait_for(lambda: len(alive_workers()) == 2, "the workers to start", tmp_path)
    phase = phase_with_references(json.dumps(GOLD).encode(), keys=KEYS)
    team = approved_team(phase)
    scored = []
    seconds = []
    for n in range(3):
        uploaded = time.monotonic()
        submission = services.submit(
            team=team,
            phase=phase,
            user=team.created_by,
            files=uploads(make_prediction(GOLD, 0.1 * n, seed=n), keys=KEYS),
            method_name=f"mailed {n}",
        )
        wait_for(
            lambda s=submission: Submission.objects.filter(pk=s.pk, status="scored").exists(),
            f"upload {n} to be scored",
            tmp_path,
        )
        scored.append(submission.pk)
        seconds.append(time.monotonic() - uploaded)
        if n == 0:
            # the first outcome mail reaches the mail server, which never answers
            wait_for(lambda: len(hung_smtp.accepted) == 1, "the mail worker to connect", tmp_path)
    assert len(scored) == 3
    # Still held: the mail worker (concurrency 1) is on its first mail, unanswered, while
    # every upload was scored.
    assert hung_smtp.open_connections() == 1
    assert len(hung_smtp.accepted) == 1
    # the first upload's scoring came before any mail; the others' while the mail hung
    tally.figures["upload_to_scored_before_the_mail_s"] = seconds[0]
    tally.figures["upload_to_scored_while_mail_hangs_s"] = max(seconds[1:])
