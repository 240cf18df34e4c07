"""A reader with the leaderboard open sees a newly scored run seconds after it is scored, for
every task, as ``scripts/run`` starts the site: the web server and the worker are separate
processes, in the embedded default (SQLite, the local file broker, each process its own
in-process cache) and on Postgres and Redis.

The reader does what the page's script does (``static/js/leaderboard.js``): it asks for the
tables (``?fragment=1``) every ``REFRESH_SECONDS``, revalidating what it holds. Two runs are
uploaded one after the other to each of the three demo challenges (DSTC11, MultiWOZ 2.2,
DVD-DST) through the API, as a participant's script sends them; the time from a run's
``scored_at`` to the first refresh that shows it is printed for the record. Speed is measured
by ``benchmarks/``, not asserted: the only bound here is a generous wait, so a broken worker
fails the test instead of hanging it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
import uuid
from pathlib import Path
from typing import Any

import pytest
import requests

from leaderboard.rankings.views import REFRESH_SECONDS
from scoring.dvd import synth as dvd
from scoring.multiwoz22 import synth as mwz
from scoring.synth import make_gold, make_prediction
from tests.conftest import ROOT, require
from tests.leaderboard.operations.processes import free_port, signals_as_from_a_terminal

pytestmark = pytest.mark.slow

#: Generous: a run that is not on the page by then is lost, not slow.
WAIT_SECONDS = 90

#: Run once in the site's own shell: each demo challenge's test phase (its id, its condition
#: keys and whether it asks for the declared system facts) and an upload token for each of the
#: two teams that send the new runs, as one line of JSON.
SETUP = """
import json
from leaderboard.api.services import create_token
from leaderboard.challenges.models import Phase
from leaderboard.teams.models import Team
phases = {{}}
for slug in {slugs!r}:
    phase = Phase.objects.get(challenge__slug=slug, slug="test")
    phases[slug] = {{"pk": phase.pk, "keys": list(phase.conditions.values_list("key", flat=True)),
                    "facts": bool(phase.challenge.system_facts)}}
tokens = [create_token(Team.objects.get(name=name).created_by, "fresh boards")[1]
          for name in {teams!r}]
print(json.dumps({{"phases": phases, "tokens": tokens}}))
"""

TEAMS = ("Team Alpha", "Team Beta")


def _prediction(slug: str, seed: int) -> bytes:
    """A run generated like the demo's own (the seeded gold of the demo) without an error, so
    it is the team's best and has a row of its own on the board."""
    if slug == "multiwoz22-demo":
        data = mwz.make_prediction(mwz.make_gold(30, seed=2022), 0.0, seed)
    elif slug == "dvd-demo":
        data = dvd.make_prediction(dvd.make_gold(30, seed=2022), 0.0, seed)
    else:
        data = make_prediction(make_gold(), 0.0, seed=seed)
    return json.dumps(data).encode()


def _upload(base: str, token: str, phase: dict, method: str, data: bytes) -> int:
    """One upload through the API, as a participant's script sends it; its submission's id."""
    fields = {"method_name": method}
    if phase["facts"]:  # the DSTC11 demo asks which ASR system a run used
        fields["fact.asr"] = "Whisper"
    sent = requests.post(
        f"{base}/api/v1/phases/{phase['pk']}/submissions/", data=fields,
        files={key: (f"{key}.json", data) for key in phase["keys"]},
        headers={"Authorization": f"Bearer {token}"}, timeout=60,
    )  # fmt: skip
    assert sent.status_code == 201, sent.text
    return int(sent.json()["id"])


#: Each run's status and the time it was scored, in the order given, asked once at the end.
SCORED_AT = """
import json
from leaderboard.submissions.models import Submission
runs = Submission.objects.in_bulk({pks})
print(json.dumps([[runs[pk].status, runs[pk].scored_at and runs[pk].scored_at.timestamp()]
                  for pk in {pks}]))
"""

CHALLENGES = ("dstc11-demo", "multiwoz22-demo", "dvd-demo")


class Reader:
    """The page's refresh loop: the tables every ``REFRESH_SECONDS``, revalidated."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.tag = ""
        self.html = ""

    def refresh(self) -> str:
        request = urllib.request.Request(self.url)
        if self.tag:
            request.add_header("If-None-Match", self.tag)
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                self.html = response.read().decode()
                self.tag = response.headers.get("ETag", "")
        except urllib.error.HTTPError as exc:
            if exc.code != 304:
                raise
        return self.html


def _environment(tmp_path: Path, services: bool) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("DATABASE_URL", "DATABASE_TEST_NAME", "REDIS_URL", "DJANGO_SETTINGS_MODULE")
    }
    env["TRACKBOARD_VAR_DIR"] = str(tmp_path / "var")
    env["TRACKBOARD_ADDR"] = f"127.0.0.1:{free_port()}"
    if services:
        tag = f"trackboard-fresh-{uuid.uuid4().hex[:10]}"
        env["DATABASE_URL"] = f"postgres://postgres@127.0.0.1:5432/{tag.replace('-', '_')}"
        env["REDIS_URL"] = os.environ["REDIS_URL"]
        env["TRACKBOARD_QUEUE"] = tag
        env["TRACKBOARD_CACHE_PREFIX"] = tag
    return env


def _postgres_database(env: dict[str, str], create: bool) -> None:
    import psycopg

    name = env["DATABASE_URL"].rsplit("/", 1)[1]
    with psycopg.connect("postgres://postgres@127.0.0.1:5432/postgres", autocommit=True) as db:
        db.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        if create:
            db.execute(f"CREATE DATABASE {name}")


def _manage(env: dict[str, str], *args: str) -> Any:
    """The JSON the command printed last."""
    done = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True,
        timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("mode", ["embedded", "postgres-redis"])
def test_a_reader_with_the_board_open_sees_each_scored_run_within_seconds(tmp_path, mode):
    services = mode == "postgres-redis"
    if services:
        require("PostgreSQL and Redis", bool(os.environ.get("REDIS_URL")), "set REDIS_URL")
    env = _environment(tmp_path, services)
    if services:
        _postgres_database(env, create=True)
    log = open(tmp_path / "run.log", "wb")  # noqa: SIM115 - closed below
    # scripts/run itself: migrate, the demo challenges, then the web server and the worker
    site = subprocess.Popen(
        ["scripts/run"], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
        start_new_session=True, preexec_fn=signals_as_from_a_terminal,
    )  # fmt: skip
    base = f"http://{env['TRACKBOARD_ADDR']}"

    def logs() -> str:
        return (tmp_path / "run.log").read_text(errors="replace")[-6000:]

    seen: list[tuple[int, str, float]] = []  # each run's id, challenge and time it was shown
    try:
        readers = {
            slug: Reader(f"{base}/challenges/{slug}/test/leaderboard/?fragment=1")
            for slug in CHALLENGES
        }
        deadline = time.monotonic() + 180
        while True:
            try:
                for reader in readers.values():
                    reader.refresh()
                break
            except OSError:
                if time.monotonic() > deadline or site.poll() is not None:
                    pytest.fail(f"the site did not start; its output:\n{logs()}")
                time.sleep(0.5)
        site_data = _manage(env, "shell", "-c", SETUP.format(slugs=CHALLENGES, teams=TEAMS))
        phases, tokens = site_data["phases"], site_data["tokens"]
        for round_ in range(len(TEAMS)):
            for n, slug in enumerate(CHALLENGES):
                method = f"Fresh run {round_}-{n}"
                assert method not in readers[slug].refresh()
                data = _prediction(slug, seed=900 + n)
                pk = _upload(base, tokens[round_], phases[slug], method, data)
                deadline = time.monotonic() + WAIT_SECONDS
                while method not in readers[slug].refresh():
                    if time.monotonic() > deadline:
                        pytest.fail(f"{method} never reached {slug}'s page; output:\n{logs()}")
                    time.sleep(REFRESH_SECONDS)
                seen.append((pk, slug, time.time()))
        scored = _manage(env, "shell", "-c", SCORED_AT.format(pks=[pk for pk, _, _ in seen]))
    finally:
        os.killpg(site.pid, 2)  # Ctrl-C, as a person stops scripts/run
        try:
            site.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(site.pid, 9)
            site.wait()
        log.close()
        if services:
            _postgres_database(env, create=False)
    assert len(seen) == len(scored) == 2 * len(CHALLENGES)
    assert [status for status, _ in scored] == ["scored"] * len(seen)
    waited = [(slug, at - t) for (_, slug, at), (_, t) in zip(seen, scored, strict=True)]
    print(f"\n{mode}: seconds from scored to shown on the open page: "
          + json.dumps([(slug, round(s, 2)) for slug, s in waited]))  # fmt: skip
