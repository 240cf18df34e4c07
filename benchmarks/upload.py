"""The CPU of one accepted upload, from the request to ``scored``, beside a bare parse of it.

A DSTC11 phase of three conditions, each with the real test reference (1,000 dialogues,
``tests/data``), default resampling (1,000 resamples); an approved team whose member sends,
through the API with a personal access token (``django.test.Client``), a real system's output
(``augpt.json``, 2.97 MB) for each of the three conditions. Each round:

- the request: ``POST /api/v1/phases/<id>/submissions/``, answered 201;
- the scoring: ``run_scoring`` of that submission, as its worker runs it, until ``scored``.

Both in this one process, timed by ``time.process_time``, so every process's CPU of the upload
is counted once (the web's request and the worker's task), with the board builds the change
asks for excluded: tasks are recorded, not sent (the boards are ``benchmarks/leaderboard.py``'s).
One upload and its scoring are made before the timed rounds, so the references are read and
kept by the process, as a serving process and a worker have them after their first upload.

The floor, measured in the same rounds: ``json.loads`` of the three files. Medians over
``--rounds`` rounds, each round one of each in turn.

Run: ``.venv/bin/python benchmarks/upload.py [--rounds 9]
[--database-url postgres://postgres@127.0.0.1:5432/trackboard_upload]`` (a Postgres database
the script drops and creates; default a SQLite file in a temporary folder).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
# The participant package's folder first: run as a script, this file's folder is on the path,
# where benchmarks/scoring.py would otherwise be the ``scoring`` the site imports.
sys.path.insert(0, str(ROOT / "participant"))

from benchmarks.throwaway import throwaway_site  # noqa: E402

GOLD = "dstc11/test-dstc11.gold.json"
PRED = "mwzeval-predictions/augpt.json"


def cpu_ms(function: Callable[[], object]) -> float:
    start = time.process_time()
    function()
    return (time.process_time() - start) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument(
        "--database-url",
        default="",
        help="a Postgres database to drop and create for the run (default: a SQLite file)",
    )
    args = parser.parse_args()

    throwaway_site("trackboard-upload-", args.database_url)
    import django

    django.setup()

    import json

    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.core.management import call_command
    from django.test import Client
    from django.urls import reverse

    from leaderboard import celery
    from leaderboard.api import services as api_services
    from leaderboard.submissions.models import Submission
    from leaderboard.submissions.services import run_scoring
    from tests.fixturedata import fixture_bytes
    from tests.leaderboard.factories import approved_team, phase_with_references

    sent: list[tuple[str, tuple[object, ...]]] = []
    celery._publish = lambda name, *task_args: sent.append((name, task_args))  # type: ignore[assignment]

    call_command("migrate", verbosity=0)
    gold, prediction = fixture_bytes(GOLD), fixture_bytes(PRED)
    phase = phase_with_references(gold)
    phase.challenge.task = "dstc11"
    phase.challenge.scorer_options = {"profile": "default", "missing": "reject"}
    phase.challenge.save()
    team = approved_team(phase)
    _, token = api_services.create_token(team.created_by, "benchmark")
    client = Client(headers={"authorization": f"Bearer {token}"})
    url = reverse("api:submit", args=[phase.pk])
    keys = [c.key for c in phase.conditions.order_by("order")]

    submitted: list[int] = []

    def request() -> None:
        body: dict[str, object] = {"team": team.slug, "method_name": "augpt"}
        for key in keys:
            body[key] = SimpleUploadedFile(f"{key}.json", prediction, "application/json")
        response = client.post(url, body)
        assert response.status_code == 201, (response.status_code, response.content[:500])
        submitted.append(response.json()["id"])

    def scoring() -> None:
        outcome = run_scoring(submitted[-1])
        assert outcome == "scored", outcome

    def floor() -> None:
        for _ in keys:
            json.loads(prediction)

    request()
    scoring()  # the references read and kept, as a warm server's and worker's
    samples: dict[str, list[float]] = {"request": [], "scoring": [], "floor": []}
    for _ in range(args.rounds):
        samples["floor"].append(cpu_ms(floor))
        samples["request"].append(cpu_ms(request))
        samples["scoring"].append(cpu_ms(scoring))
    assert Submission.objects.filter(status=Submission.Status.SCORED).count() == args.rounds + 1

    median = {name: statistics.median(values) for name, values in samples.items()}
    total = median["request"] + median["scoring"]
    load = os.getloadavg()
    print(f"{len(prediction):,} bytes x {len(keys)} conditions; {args.rounds} rounds; ", end="")
    print(f"load {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print(f"{'bare parse, json.loads of the 3 files':<44} {median['floor']:8.1f} ms  1.00 x")
    for name in ("request", "scoring"):
        print(f"{'the ' + name:<44} {median[name]:8.1f} ms  {median[name] / median['floor']:.2f} x")
    ratio = total / median["floor"]
    print(f"{'request + scoring (target <= 3 x)':<44} {total:8.1f} ms  {ratio:.2f} x")


if __name__ == "__main__":
    main()
