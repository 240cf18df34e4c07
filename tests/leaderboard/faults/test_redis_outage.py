"""Redis (broker and cache) stopped in the middle of 20 uploads and page loads, then started
again, on a redis-server of the test's own: no answer is a 500, every upload answered 2xx is
scored in the end, and every other one left nothing stored or charged.

While Redis is down the cache misses (boards are built from the database, throttles let
requests through), log-ins are counted in the database, and an upload's scoring task, which
cannot be sent, is sent again by the reaper once the broker is back.
"""

from __future__ import annotations

import json

import pytest
from django.test import Client
from django.urls import reverse

from leaderboard.submissions import services
from leaderboard.submissions.models import Submission, SubmissionFile
from scoring.synth import make_gold, make_prediction
from tests.leaderboard.api.conftest import token_client
from tests.leaderboard.factories import UserFactory, approved_team, phase_with_references, upload
from tests.leaderboard.faults.conftest import wait_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

GOLD = make_gold(3, seed=21)
KEYS = ("tts-verbatim",)
PREDICTION = json.dumps(make_prediction(GOLD, 0.2, seed=8)).encode()
UPLOADS = 20


def test_uploads_and_pages_through_a_redis_outage_answer_no_500_and_lose_nothing(
    start_worker, own_redis, publish_to, settings, tmp_path, isolation, tally
):
    settings.SCORING_RESEND_AFTER_SECONDS = 1
    settings.CACHES = {
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": own_redis.url,
            "KEY_PREFIX": isolation["tag"],
            "OPTIONS": {
                "IGNORE_EXCEPTIONS": True,
                "SOCKET_CONNECT_TIMEOUT": 0.5,
                "SOCKET_TIMEOUT": 0.5,
            },
        }
    }
    publish_to(own_redis.url)
    worker_env = {"broker": own_redis.url, "TRACKBOARD_SCORING_LEASE_SECONDS": "5"}
    workers = [start_worker(**worker_env)]
    phase = phase_with_references(json.dumps(GOLD).encode(), keys=KEYS)
    team = approved_team(phase)
    api = token_client(team.created_by)
    web = Client(raise_request_exception=False)
    web.force_login(team.created_by)
    api.raise_request_exception = False
    reader = Client(raise_request_exception=False)
    someone = UserFactory()
    someone.set_password("a-long-enough-password")
    someone.save()
    slug = phase.challenge.slug
    board = reverse("rankings:leaderboard", args=[slug, phase.slug])
    submit_page = reverse("submissions:submit", args=[slug, phase.slug])

    accepted: list[int] = []
    refused = 0
    for n in range(UPLOADS):
        if n == 5:
            own_redis.stop()
        if n == 15:
            own_redis.start()
        before = set(Submission.objects.values_list("pk", flat=True))
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
        tally.saw(response.status_code)
        new = set(Submission.objects.values_list("pk", flat=True)) - before
        if ok:
            accepted.extend(new)
        else:
            refused += 1
            tally.lost += len(new)  # a refused upload must leave no row
        # Page loads and the other requests that used to need the cache.
        for response in (
            reader.get("/"),
            reader.get(board),
            reader.get(f"/api/v1/phases/{phase.pk}/leaderboard/"),
            reader.post(
                reverse("account_login"),
                {"login": someone.username, "password": "a-long-enough-password"},
            ),
            web.post(reverse("accounts:token-create"), {"name": f"token {n}"}),
        ):
            tally.saw(response.status_code)
        reader.logout()

    assert tally.server_errors == 0, tally.statuses
    assert len(accepted) == UPLOADS - refused
    assert refused == 0, "uploads are accepted while Redis is down"

    def all_scored() -> bool:
        # As a supervisor would: Celery's consumer can exit while closing the dead connection.
        if workers[-1].poll() is not None:
            workers.append(start_worker(**worker_env))
        services.reap_expired_leases()  # as beat would, on a short interval
        return not Submission.objects.filter(
            pk__in=accepted, status__in=["queued", "scoring"]
        ).exists()

    wait_for(all_scored, "every accepted upload to be scored", tmp_path, deadline=90)
    statuses = dict(Submission.objects.filter(pk__in=accepted).values_list("pk", "status"))
    tally.lost += sum(status != "scored" for status in statuses.values())
    assert tally.lost == 0, statuses
    assert SubmissionFile.objects.count() == len(accepted) * len(KEYS)
    stored = [
        p for p in isolation["private"].rglob("*") if p.is_file() and "submissions" in p.parts
    ]
    assert len(stored) == len(accepted) * len(KEYS)
