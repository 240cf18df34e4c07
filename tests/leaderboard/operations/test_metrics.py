"""``/metrics``: off until a token is set, then the series an operator scales by, read from the
broker and the database at the scrape. The figures are checked against what the test itself
did (one upload, one scoring) and its own clock, not against the code's arithmetic."""

from __future__ import annotations

import json

import pytest
from django.utils import timezone
from prometheus_client.parser import text_string_to_metric_families

from leaderboard.rankings.models import Board
from leaderboard.submissions import services
from leaderboard.submissions.models import Submission
from scoring.synth import make_gold, make_prediction
from tests.leaderboard.factories import approved_team, phase_with_references, uploads
from tests.leaderboard.workers import wait_for

GOLD = make_gold(12, seed=3)
TOKEN = "metrics-token-for-the-test"


def _scrape(client, token: str = TOKEN) -> dict[str, dict[tuple, float]]:
    """{sample name: {sorted labels: value}} of one scrape."""
    response = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {token}")
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("text/plain; version=")
    assert response["Cache-Control"] == "no-store"
    found: dict[str, dict[tuple, float]] = {}
    for family in text_string_to_metric_families(response.content.decode()):
        for sample in family.samples:
            key = tuple(sorted(sample.labels.items()))
            found.setdefault(sample.name, {})[key] = sample.value
    return found


def _submit(phase=None) -> Submission:
    phase = phase or phase_with_references(json.dumps(GOLD).encode())
    team = approved_team(phase)
    return services.submit(
        team=team,
        phase=phase,
        user=team.created_by,
        files=uploads(make_prediction(GOLD, 0.2, seed=4)),
        method_name="metrics",
    )


@pytest.mark.django_db
def test_metrics_are_off_without_a_token_and_refuse_a_wrong_one(client, settings):
    settings.TRACKBOARD_METRICS_TOKEN = ""
    assert client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}").status_code == 404
    settings.TRACKBOARD_METRICS_TOKEN = TOKEN
    for sent in ("", "Bearer wrong", f"Basic {TOKEN}", TOKEN):
        response = client.get("/metrics", HTTP_AUTHORIZATION=sent)
        assert response.status_code == 401, sent
        assert response["WWW-Authenticate"] == 'Bearer realm="metrics"'
        assert b"trackboard_" not in response.content


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_after_a_scored_upload_every_series_is_there(
    client, settings, start_worker, redis_url, isolation, tmp_path
):
    settings.TRACKBOARD_METRICS_TOKEN = TOKEN
    queue = isolation["tag"]

    # No worker yet: the upload's task (and the boards' builds that its phase's changes ask
    # for) wait in the test's own queue.
    submission = _submit()
    wait_for(
        lambda: _scrape(client)["trackboard_queue_messages"].get((("queue", queue),), 0) >= 1,
        "the upload's task to show in the queue",
        tmp_path,
    )
    waiting = _scrape(client)
    assert waiting["trackboard_submissions"][(("status", "queued"),)] == 1
    assert waiting["trackboard_upload_to_scored_seconds_count"][()] == 0
    assert waiting["trackboard_broker_up"][()] == 1

    start_worker()
    wait_for(
        lambda: Submission.objects.get(pk=submission.pk).status == "scored",
        "the upload to be scored",
        tmp_path,
    )
    wait_for(
        lambda: (
            Board.objects.filter(phase=submission.phase, kind="public")
            .exclude(built_at=None)
            .exists()
        ),
        "the board to be built",
        tmp_path,
    )
    wait_for(lambda: bool(_scrape(client)["trackboard_workers_alive"][()]), "a heartbeat", tmp_path)
    wait_for(
        lambda: _scrape(client)["trackboard_queue_messages"][(("queue", queue),)] == 0,
        "the worker to empty the queue",
        tmp_path,
    )
    # read before the scrape: a board built again meanwhile is only younger at the scrape
    built = Board.objects.get(phase=submission.phase, kind="public")
    found = _scrape(client)
    row = Submission.objects.get(pk=submission.pk)

    statuses = found["trackboard_submissions"]
    assert statuses[(("status", "scored"),)] == 1
    assert sum(statuses.values()) == 1
    # One scored upload, in the histogram's +Inf bucket, taking what its row says it took.
    latency = found["trackboard_upload_to_scored_seconds_bucket"]
    assert latency[(("le", "+Inf"),)] == 1
    assert found["trackboard_upload_to_scored_seconds_count"][()] == 1
    took = found["trackboard_upload_to_scored_seconds_sum"][()]
    assert took == pytest.approx((row.scored_at - row.created_at).total_seconds())
    # Buckets are cumulative: never fewer below a larger bound.
    ordered = sorted((float(dict(k)["le"]), v) for k, v in latency.items())
    assert [v for _, v in ordered] == sorted(v for _, v in ordered)
    # Scoring began after the upload, so it took no longer than upload-to-scored.
    assert found["trackboard_scoring_seconds_count"][()] == 1
    scoring = found["trackboard_scoring_seconds_sum"][()]
    assert scoring == pytest.approx((row.scored_at - row.started_at).total_seconds())
    assert 0 < scoring <= took

    phase = f"{submission.phase.challenge.slug}/{submission.phase.slug}"
    board = (("kind", "public"), ("phase", phase))
    # the age at the scrape, of the board read before it or of one built since
    age = found["trackboard_board_age_seconds"][board]
    assert 0 <= age <= (timezone.now() - built.built_at).total_seconds()
    assert found["trackboard_board_build_seconds"][board] > 0
    assert found["trackboard_board_behind"][board] in (0, 1)
    ages = found["trackboard_worker_heartbeat_age_seconds"]
    assert any(dict(k)["worker"].startswith(queue) and v >= 0 for k, v in ages.items())
    assert found["trackboard_workers_alive"][()] >= 1
    # no beat runs in this test: beat's own heartbeat has never been written
    assert "trackboard_scheduler_heartbeat_age_seconds" not in found


@pytest.mark.django_db
def test_a_broker_that_is_down_is_a_series_not_an_error(client, settings):
    """The broker's address points at a port where nothing listens (a Redis that is stopped):
    the scrape still answers, with the broker down and no queue length."""
    from tests.leaderboard.operations.processes import free_port

    settings.TRACKBOARD_METRICS_TOKEN = TOKEN
    from leaderboard.celery import app

    stopped = f"redis://127.0.0.1:{free_port()}/0"
    previous = app.conf.broker_url
    app.conf.broker_url = stopped
    try:
        found = _scrape(client)
    finally:
        app.conf.broker_url = previous
    assert found["trackboard_broker_up"][()] == 0
    assert "trackboard_queue_messages" not in found
    assert found["trackboard_submissions"][(("status", "scored"),)] == 0


@pytest.mark.django_db
def test_the_histograms_count_hand_set_timings(client, settings, enqueued):
    """Two scored submissions with their times set by hand: 3 s and 40 s from upload to
    scored, 1.5 s and 20 s of scoring; a third still queued."""
    import datetime as dt

    from django.utils import timezone

    settings.TRACKBOARD_METRICS_TOKEN = TOKEN
    phase = phase_with_references(json.dumps(GOLD).encode())
    first, second, _queued = (_submit(phase) for _ in range(3))
    now = timezone.now()
    for submission, upload, scoring in ((first, 3, 1.5), (second, 40, 20)):
        Submission.objects.filter(pk=submission.pk).update(
            status="scored",
            created_at=now - dt.timedelta(seconds=upload),
            started_at=now - dt.timedelta(seconds=scoring),
            scored_at=now,
        )
    found = _scrape(client)
    assert found["trackboard_submissions"][(("status", "scored"),)] == 2
    assert found["trackboard_submissions"][(("status", "queued"),)] == 1
    latency = found["trackboard_upload_to_scored_seconds_bucket"]
    assert [latency[(("le", b),)] for b in ("2.0", "5.0", "30.0", "60.0", "+Inf")] == [
        0,
        1,
        1,
        2,
        2,
    ]
    assert found["trackboard_upload_to_scored_seconds_sum"][()] == pytest.approx(43)
    scoring = found["trackboard_scoring_seconds_bucket"]
    assert [scoring[(("le", b),)] for b in ("1.0", "2.0", "10.0", "30.0", "+Inf")] == [
        0,
        1,
        1,
        2,
        2,
    ]
    assert found["trackboard_scoring_seconds_sum"][()] == pytest.approx(21.5)


@pytest.mark.django_db
def test_the_scheduler_s_heartbeat_is_its_age(client, settings):
    import datetime as dt

    from django.utils import timezone

    from leaderboard.operations.models import SchedulerHeartbeat

    settings.TRACKBOARD_METRICS_TOKEN = TOKEN
    SchedulerHeartbeat.objects.create(seen_at=timezone.now() - dt.timedelta(seconds=90))
    age = _scrape(client)["trackboard_scheduler_heartbeat_age_seconds"][()]
    assert 90 <= age < 120
