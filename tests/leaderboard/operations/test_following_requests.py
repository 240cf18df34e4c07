"""Following a request, and counting them, on the real stack (``scripts/serve``: nginx before
gunicorn's two pools, a Celery worker and beat, production settings, ``LOG_FORMAT=json``):

- an upload through nginx answers with its request id (nginx's own: the one a client sends is
  not taken), and that id is on nginx's access line, the uploads pool's access line, the line
  the upload logs and the line of the scoring task it sends, each a JSON object, as is every
  line every process of the stack writes;
- ``/metrics`` counts the leaderboard's reads and their latencies by view under a readers' pool
  of two processes, every scrape the whole pool's figures whichever process answers it, with
  each live process's own series; and each process keeps its database connection between
  reads.

The stack is started once for the module; each test works on its queue, cache prefix and
private files.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import requests
from prometheus_client.parser import text_string_to_metric_families

from leaderboard.api.services import create_token
from leaderboard.submissions.models import Submission
from tests.leaderboard.factories import KEYS, approved_team, phase_with_references
from tests.leaderboard.operations.processes import (
    DEADLINE,
    Stack,
    children_of,
    connected_to_the_database,
    module_stack,
)
from tests.leaderboard.web import GOLD_BYTES, PREDICTION, scored_submission

pytestmark = [
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("on_the_stacks_storage"),
]

TOKEN = "metrics-token-of-this-test"


@pytest.fixture(scope="module")
def stack(django_db_setup, tmp_path_factory) -> Iterator[Stack]:
    """``scripts/serve`` for the whole module, its readers' pool two processes of one thread,
    metrics on."""
    with module_stack(tmp_path_factory.mktemp("stack"), WEB_CONCURRENCY="2", WEB_THREADS="1",
                      TRACKBOARD_METRICS_TOKEN=TOKEN) as found:  # fmt: skip
        yield found


def _lines(path: Path) -> list[dict]:
    """Every line of a log, each of which must be one JSON object."""
    found = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        try:
            entry = json.loads(line)
        except ValueError:
            pytest.fail(f"{path.name}:{number} is not JSON: {line!r}")
        assert isinstance(entry, dict), f"{path.name}:{number}: {line!r}"
        found.append(entry)
    return found


def _with_id(path: Path, request_id: str) -> list[dict]:
    return [entry for entry in _lines(path) if entry.get("request_id") == request_id]


def test_one_upload_is_followed_by_its_id_through_every_log(stack):
    phase = phase_with_references(GOLD_BYTES)
    team = approved_team(phase)
    _, token = create_token(team.created_by, "following")
    path = f"/api/v1/phases/{phase.pk}/submissions/"
    upload = requests.post(
        stack.base + path,
        data={"method_name": "followed"},
        files={key: ("run.json", json.dumps(PREDICTION).encode()) for key in KEYS},
        # behind nginx alone (TRACKBOARD_TRUSTED_PROXIES=1) a client's id is not taken
        headers={"Authorization": f"Bearer {token}", "X-Request-ID": "chosen-by-the-client"},
        timeout=30,
    )
    assert upload.status_code == 201, upload.text + stack.tails()
    request_id = upload.headers["X-Request-ID"]
    assert re.fullmatch(r"[0-9a-f]{32}", request_id), request_id  # nginx's $request_id
    submission = upload.json()["id"]
    deadline = time.monotonic() + DEADLINE
    while Submission.objects.get(pk=submission).status != "scored":
        assert time.monotonic() < deadline, stack.tails()
        time.sleep(0.3)

    def scoring_logged(entry: dict) -> bool:
        return "score_submission" in entry["message"]

    # The board build the scoring task sends carries the id too, and another of the worker's
    # processes may log it first: wait for the scoring task's own line.
    def logged() -> bool:
        return any(map(scoring_logged, _with_id(stack.logs / "worker.log", request_id))) and bool(
            _with_id(stack.logs / "access.log", request_id)
        )

    stack.wait_for(logged, "the scoring task's line and nginx's access line")

    [front] = _with_id(stack.logs / "access.log", request_id)
    assert front["request"] == f"POST {path} HTTP/1.1" and front["status"] == 201
    uploads = _with_id(stack.logs / "uploads.log", request_id)
    [access] = [entry for entry in uploads if entry["logger"] == "gunicorn.access"]
    assert access["request"].startswith(f"POST {path} ") and access["status"] == 201
    [stored] = [entry for entry in uploads if entry["logger"].endswith(".intake")]
    assert f"submission {submission} " in stored["message"]
    # Nothing of this request reached the readers' pool, and every process writes JSON only.
    assert _with_id(stack.logs / "web.log", request_id) == []
    for name in ("access", "web", "uploads", "worker", "beat"):
        assert _lines(stack.logs / f"{name}.log"), name


def _scrape(base: str) -> dict[str, dict[tuple, float]]:
    """{sample name: {sorted labels: value}} of one scrape."""
    answer = requests.get(f"{base}/metrics", headers={"Authorization": f"Bearer {TOKEN}"},
                          timeout=10)  # fmt: skip
    assert answer.status_code == 200, answer.text
    found: dict[str, dict[tuple, float]] = {}
    for family in text_string_to_metric_families(answer.text):
        for sample in family.samples:
            found.setdefault(sample.name, {})[tuple(sorted(sample.labels.items()))] = sample.value
    return found


def _pids(scraped: dict[str, dict[tuple, float]]) -> set[int]:
    series = scraped.get("trackboard_process_resident_memory_bytes", {})
    return {int(dict(labels)["pid"]) for labels, value in series.items() if value > 0}


def test_metrics_count_the_leaderboards_reads_of_both_processes(stack):
    phase = phase_with_references(GOLD_BYTES)
    scored_submission(approved_team(phase), phase)
    # Straight to the readers' pool: through nginx, anonymous reads come from its cache.
    pool = f"http://127.0.0.1:{stack.ports[1]}"
    board = f"{pool}/challenges/{phase.challenge.slug}/{phase.slug}/leaderboard/"
    workers = set(children_of(stack.pid("web")))
    assert len(workers) == 2, workers
    # The uploads' pool writes its series to the same folder once it has answered (the
    # module's other test uploads): the series of the readers' are those left.
    uploads = set(children_of(stack.pid("uploads")))

    def readers(scraped: dict[str, dict[tuple, float]]) -> set[int]:
        return _pids(scraped) - uploads

    reads = scrapes = 0
    waited: list[float] = []  # each read's round trip, as the client waited for it

    def read(_: int) -> requests.Response:
        started = time.monotonic()
        answer = requests.get(board, timeout=10)
        waited.append(time.monotonic() - started)
        return answer

    def kept() -> bool:
        """Each process holds a database connection between its answers."""
        return sorted(connected_to_the_database(list(workers))) == sorted(workers)

    with ThreadPoolExecutor(max_workers=6) as threads:
        # Until both processes have answered a read (each scrape is answered by either, and
        # asks nothing of the database).
        while True:
            answers = list(threads.map(read, range(12)))
            assert [a.status_code for a in answers] == [200] * 12
            reads += 12
            scraped = _scrape(pool)
            scrapes += 1
            if (readers(scraped) == workers and kept()) or reads >= 240:
                break
    assert readers(scraped) == workers
    # Each has kept the connection of its last read (leaderboard/gunicorn.py): with one per
    # request, none would hold one between reads.
    assert kept()
    missing = requests.get(f"{pool}/no-such-page/", timeout=10)
    assert missing.status_code == 404

    for _ in range(4):
        scraped = _scrape(pool)
        scrapes += 1
        counted = scraped["trackboard_http_requests_total"]
        leaderboard = (("method", "GET"), ("status", "200"), ("view", "rankings:leaderboard"))
        assert counted[leaderboard] == reads
        # a scrape is counted once answered: each sees those before it
        assert counted[(("method", "GET"), ("status", "200"), ("view", "metrics"))] == scrapes - 1
        assert counted[(("method", "GET"), ("status", "404"), ("view", "unmatched"))] == 1
        view = (("view", "rankings:leaderboard"),)
        assert scraped["trackboard_http_request_duration_seconds_count"][view] == reads
        buckets = scraped["trackboard_http_request_duration_seconds_bucket"]
        assert buckets[(("le", "+Inf"), ("view", "rankings:leaderboard"))] == reads
        # in seconds: each read's time in the app lies within the client's wait for it
        took = scraped["trackboard_http_request_duration_seconds_sum"][view]
        assert 0 < took <= sum(waited)
        assert readers(scraped) == workers
