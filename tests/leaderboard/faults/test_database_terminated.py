"""Postgres backends of the test database terminated, again and again, while 20 uploads (or
more, until the terminations have both hit and missed one) and page loads are served and
scored (``pg_terminate_backend``, filtered by the test database's name: nothing else on the
server is touched).

Every answer is 2xx or a 503 with ``Retry-After``, never a 500; an upload answered 2xx is
scored in the end; an upload answered otherwise left nothing stored or charged.
"""

from __future__ import annotations

import json
import random
import threading

import psycopg
import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse

from leaderboard.submissions import services
from leaderboard.submissions.models import Submission, SubmissionFile
from scoring.synth import make_gold, make_prediction
from tests.leaderboard.api.conftest import token_client
from tests.leaderboard.factories import approved_team, phase_with_references, upload
from tests.leaderboard.faults.conftest import database_url, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

GOLD = make_gold(3, seed=23)
KEYS = ("tts-verbatim",)
PREDICTION = json.dumps(make_prediction(GOLD, 0.2, seed=9)).encode()
UPLOADS = 20
#: Uploads sent at most: past ``UPLOADS``, until the terminations have both hit an upload and
#: missed one (their timing is random; a busy machine can make 20 in a row miss).
MOST_UPLOADS = 60


def terminate_backends() -> int:
    """Terminate every other client backend of the test database, from a connection of its
    own; returns how many."""
    with psycopg.connect(database_url(), autocommit=True) as own:
        row = own.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid() "
            "AND backend_type = 'client backend'"
        ).fetchone()
    return int(row[0]) if row else 0


def test_uploads_while_database_backends_are_terminated_answer_no_500_and_lose_nothing(
    postgres, start_worker, settings, tmp_path, isolation, tally
):
    settings.SCORING_RESEND_AFTER_SECONDS = 1
    workers = [start_worker(TRACKBOARD_SCORING_LEASE_SECONDS="5")]
    phase = phase_with_references(json.dumps(GOLD).encode(), keys=KEYS)
    team = approved_team(phase)
    api = token_client(team.created_by)
    api.raise_request_exception = False
    web = Client(raise_request_exception=False)
    web.force_login(team.created_by)
    board = reverse("rankings:leaderboard", args=[phase.challenge.slug, phase.slug])
    submit_page = reverse("submissions:submit", args=[phase.challenge.slug, phase.slug])
    # Each upload's connections are terminated once, a different time into the request
    # (seeded): before it opens one, in the middle of its queries, at its commit, after it.
    delays = random.Random(14)
    terminated = 0
    accepted: list[int] = []
    unavailable = 0
    sent = 0
    for n in range(MOST_UPLOADS):
        if n >= UPLOADS and accepted and unavailable:
            break
        sent += 1
        connection.close()  # the test's own reads, between requests, on a healthy line
        before = set(Submission.objects.values_list("pk", flat=True))
        files = set(SubmissionFile.objects.values_list("file", flat=True))
        kills: list[int] = []
        strike = threading.Timer(
            delays.uniform(0.0, 0.25), lambda done=kills: done.append(terminate_backends())
        )
        strike.start()
        if n % 2:
            response = web.post(
                submit_page, {"method_name": f"web {n}", "file_tts-verbatim": upload(PREDICTION)}
            )
            ok = response.status_code == 302
        else:
            response = api.post(
                f"/api/v1/phases/{phase.pk}/submissions/",
                {"method_name": f"api {n}", "tts-verbatim": upload(PREDICTION)},
                format="multipart",
            )
            ok = response.status_code == 201
        pages = [web.get(board), api.get(f"/api/v1/phases/{phase.pk}/leaderboard/")]
        strike.join()
        terminated += sum(kills)
        connection.close()
        tally.saw(response.status_code)
        for page in pages:
            tally.saw(page.status_code)
            if page.status_code == 503:
                assert int(page["Retry-After"]) > 0
        new = set(Submission.objects.values_list("pk", flat=True)) - before
        if ok:
            accepted.extend(new)
            assert len(new) == 1, (n, response.status_code)
        else:
            assert response.status_code == 503, (n, response.status_code)
            assert int(response["Retry-After"]) > 0
            unavailable += 1
            # Nothing of a refused upload stays: no row, no file.
            tally.lost += len(new)
            tally.lost += len(set(SubmissionFile.objects.values_list("file", flat=True)) - files)
    connection.close()
    assert terminated > 0, "no backend was terminated"
    assert accepted and unavailable, "the terminations hit some uploads and missed others"
    assert tally.server_errors == 0, tally.statuses

    def all_scored() -> bool:
        if workers[-1].poll() is not None:
            workers.append(start_worker(TRACKBOARD_SCORING_LEASE_SECONDS="5"))
        services.reap_expired_leases()  # as beat would, on a short interval
        return not Submission.objects.filter(
            pk__in=accepted, status__in=["queued", "scoring"]
        ).exists()

    wait_for(all_scored, "every accepted upload to be scored", tmp_path, deadline=90)
    statuses = dict(Submission.objects.filter(pk__in=accepted).values_list("pk", "status"))
    tally.lost += sum(status != "scored" for status in statuses.values())
    assert tally.lost == 0, statuses
    assert len(accepted) + unavailable == sent
    stored = [
        p for p in isolation["private"].rglob("*") if p.is_file() and "submissions" in p.parts
    ]
    assert len(stored) == len(accepted) * len(KEYS)
