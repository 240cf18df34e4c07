"""The whole flow on a production-like site: gunicorn, a Celery worker and beat as separate
processes with production settings (DEBUG off, a required SECRET_KEY, ALLOWED_HOSTS, JSON
logs, collected and hashed static files), on Postgres and Redis, driven through HTTP only.

The subprocesses use this test's own (transactional) database, a Celery queue, a cache
prefix and a private directory of their own, so concurrent runs never meet.
"""

from __future__ import annotations

import csv
import io
import json
import re
import shlex
import socket
import subprocess
from pathlib import Path

import pytest
import requests
import yaml
from aiosmtpd.controller import Controller

from scoring.synth import make_gold, make_prediction
from tests.conftest import ROOT
from tests.leaderboard.accounts.conftest import Inbox
from tests.leaderboard.operations.processes import PYTHON, Processes, free_port, production_env

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

KEYS = ("tts-verbatim", "human-verbatim", "human-paraphrased")


def _config(tmp: Path) -> Path:
    gold = make_gold(12, seed=9)
    (tmp / "gold.json").write_text(json.dumps(gold))
    for i, key in enumerate(KEYS):
        (tmp / f"{key}.json").write_text(json.dumps(make_prediction(gold, 0.1 * (i + 1), seed=i)))
    config = {
        "challenge": {"slug": "dstc11", "title": "DSTC11 Speech-Aware DST", "registration": "auto"},
        "phases": [
            {
                "name": "Test",
                "slug": "test",
                "opens_at": "2020-01-01T00:00:00Z",
                "closes_at": "2100-01-01T00:00:00Z",
                "daily_quota": 5,
                "conditions": [
                    {"key": key, "label": key.title(), "reference": "gold.json"} for key in KEYS
                ],
            }
        ],
    }
    path = tmp / "challenge.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


@pytest.fixture
def inbox():
    """A real SMTP server on loopback: the worker's account mail lands here."""
    received = Inbox()
    received.port = free_port()  # type: ignore[attr-defined]
    controller = Controller(received, hostname="127.0.0.1", port=received.port)
    controller.start()
    yield received
    controller.stop()


@pytest.fixture
def site(transactional_db, postgres, redis_url, isolation, tmp_path, inbox):
    """Collect static files, create the challenge with manage.py, then start gunicorn, a
    worker and beat; yields (base URL, processes, environment); stops them all after."""
    var = tmp_path / "var"
    logs = tmp_path / "logs"
    logs.mkdir()
    port = free_port()
    env = production_env(
        redis_url=redis_url,
        tag=isolation["tag"],
        private=isolation["private"],
        var=var,
        TRACKBOARD_REAPER_INTERVAL="1",
        EMAIL_HOST="127.0.0.1",
        EMAIL_PORT=str(inbox.port),
        TRACKBOARD_SITE_URL=f"http://127.0.0.1:{port}",
    )
    procs = Processes(logs)
    try:
        procs.run("collectstatic", [PYTHON, "manage.py", "collectstatic", "--no-input"], env)
        config = _config(tmp_path)
        out = procs.run("create_challenge", [PYTHON, "manage.py", "create_challenge", str(config)],
                        env)  # fmt: skip
        assert "dstc11" in out
        procs.start(
            "gunicorn",
            [PYTHON, "-m", "gunicorn", "leaderboard.wsgi:application",
             f"--bind=127.0.0.1:{port}", "--workers=2", "--access-logfile=-"],
            env,
        )  # fmt: skip
        celery = [PYTHON, "-m", "celery", "-A", "leaderboard"]
        procs.start(
            "worker",
            [*celery, "worker", "--pool=solo", "--without-gossip", "--without-mingle",
             "--without-heartbeat", "--loglevel=INFO",
             f"--hostname={isolation['tag']}@%h"],
            env,
        )  # fmt: skip
        # the mail tasks' worker of its own, as in docker/compose.yml
        procs.start(
            "mail-worker",
            [*celery, "worker", "--pool=solo", "--without-gossip", "--without-mingle",
             "--without-heartbeat", "--loglevel=INFO", f"--queues={isolation['tag']}-mail",
             f"--hostname={isolation['tag']}-mail@%h"],
            env,
        )  # fmt: skip
        procs.start(
            "beat",
            [*celery, "beat", "--loglevel=INFO", f"--schedule={tmp_path / 'beat-schedule'}"],
            env,
        )
        base = f"http://127.0.0.1:{port}"
        procs.wait_for(lambda: requests.get(f"{base}/healthz", timeout=2).ok, "gunicorn")
        yield base, procs, env, tmp_path, isolation["tag"]
    finally:
        procs.stop()


def _csrf(session: requests.Session, url: str) -> str:
    page = session.get(url, timeout=10)
    page.raise_for_status()
    return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)


def _post(session: requests.Session, url: str, data: dict[str, str]) -> requests.Response:
    data = {"csrfmiddlewaretoken": session.cookies["csrftoken"], **data}
    return session.post(url, data=data, headers={"Referer": url}, timeout=10)


class _LoopbackSession(requests.Session):
    """Sends HTTPS-only cookies over plain HTTP (loopback stands in for the TLS proxy) and
    records the names of the cookies the site marked secure."""

    def __init__(self) -> None:
        super().__init__()
        self.secure_seen: set[str] = set()

    def request(self, *args, **kwargs):  # type: ignore[no-untyped-def, override]
        for cookie in self.cookies:
            if cookie.secure:
                self.secure_seen.add(cookie.name)
                cookie.secure = False
        return super().request(*args, **kwargs)


def _mail_to(inbox, address: str, procs, count: int = 1) -> str:
    """The ``count``-th message the worker sent to ``address`` (waiting for it)."""

    found: list[str] = []

    def arrived() -> bool:
        found[:] = [message for to, message in inbox.received if to == [address]]
        return len(found) >= count

    procs.wait_for(arrived, f"the worker's mail to {address}")
    return found[count - 1]


def _sign_up_and_get_token(base: str, inbox, procs) -> str:
    s = _LoopbackSession()
    token = _csrf(s, f"{base}/accounts/signup/")
    r = s.post(
        f"{base}/accounts/signup/",
        data={"csrfmiddlewaretoken": token, "username": "alice", "email": "alice@example.org",
              "password1": "a-long-enough-pass-42", "password2": "a-long-enough-pass-42"},
        timeout=10,
    )  # fmt: skip
    assert r.ok and "sessionid" in s.cookies, r.text[:2000]
    # The worker mails the link that confirms the address (on the site's address); until it
    # is opened the account cannot create a team.
    assert "Confirm your e-mail address first" in _post(s, f"{base}/teams/new/", {"name": "X"}).text
    link = re.search(r"(/accounts/confirm-email/\S+/)", _mail_to(inbox, "alice@example.org", procs))
    page = s.get(base + link.group(1), timeout=10)
    assert "Confirm the address" in page.text, page.text[:2000]
    assert _post(s, base + link.group(1), {}).url == f"{base}/teams/"  # confirmed
    r = _post(s, f"{base}/teams/new/", {"name": "Team Alpha"})
    assert r.ok, r.text[:2000]
    teams = s.get(f"{base}/api/v1/teams/mine/", timeout=10).json()
    team_id = teams["results"][0]["id"] if "results" in teams else teams[0]["id"]
    r = _post(s, f"{base}/challenges/dstc11/register/", {"team": str(team_id)})
    assert r.ok, r.text[:2000]
    r = _post(s, f"{base}/accounts/profile/tokens/", {"name": "cli"})
    assert r.ok, r.text[:2000]
    # The production switch is on: session and CSRF cookies are HTTPS-only.
    assert {"sessionid", "csrftoken"} <= s.secure_seen
    return re.search(r'<code id="new-token">([^<]+)</code>', r.text).group(1)


def test_the_whole_flow_runs_on_gunicorn_a_worker_and_beat_with_production_settings(site, inbox):
    base, procs, env, tmp, tag = site

    # Health and readiness; plotly.js served hashed and compressed from the collected files, not
    # the finders.
    health = requests.get(f"{base}/healthz", timeout=10).json()
    assert health == {"status": "ok", "database": True, "broker": True, "storage": True}
    # ready once the worker has written its first heartbeat
    procs.wait_for(
        lambda: requests.get(f"{base}/readyz", timeout=10).json()["ready"] is True,
        "the worker's heartbeat (/readyz)",
    )
    manifest = json.loads((tmp / "var" / "static" / "staticfiles.json").read_text())
    plotly = manifest["paths"]["vendor/plotly-basic.min.js"]
    accepts = {"Accept-Encoding": "br, gzip"}
    served = requests.get(f"{base}/static/{plotly}", headers=accepts, timeout=10)
    assert served.ok and served.headers["Content-Encoding"] == "gzip"
    assert "immutable" in served.headers.get("Cache-Control", "")
    # DEBUG is off: an unknown page is the plain 404, not Django's debug page.
    missing = requests.get(f"{base}/no-such-page/", timeout=10)
    assert missing.status_code == 404 and "URLconf" not in missing.text

    # Sign up, confirm the address, create a team, register it, make an API token: all
    # through the pages and the worker's mail.
    key = _sign_up_and_get_token(base, inbox, procs)
    # A password reset answers the same for a known and an unknown address; the worker mails
    # the known one only.
    anonymous = _LoopbackSession()
    answers = []
    for address in ("alice@example.org", "nobody@example.org"):
        _csrf(anonymous, f"{base}/accounts/password/reset/")
        answer = _post(anonymous, f"{base}/accounts/password/reset/", {"email": address})
        answers.append((answer.status_code, answer.url))
    assert answers[0] == answers[1] and answers[0][1].endswith("/accounts/password/reset/done/")
    reset = _mail_to(inbox, "alice@example.org", procs, count=2)
    assert (
        "Reset your Trackboard password" in reset
        and f"{base}/accounts/password/reset/key/" in reset
    )

    # The trackboard CLI uploads through the API and waits for the worker to score it.
    cli_env = {**env, "TRACKBOARD_CONFIG": str(tmp / "cli.json")}
    cli = [PYTHON, "-m", "trackboard_cli"]

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*cli, *args], env=cli_env, capture_output=True, text=True,
                              timeout=90, cwd=tmp)  # fmt: skip

    login = run("login", "--url", base, "--token", key)
    assert login.returncode == 0, login.stderr
    files = [arg for k in KEYS for arg in ("--file", f"{k}={tmp / f'{k}.json'}")]
    submit = run("submit", "dstc11/test", *files, "--method", "Prod run", "--wait",
                 "--interval", "0.3", "--timeout", "60")  # fmt: skip
    assert submit.returncode == 0, submit.stdout + submit.stderr + procs.tails()
    assert "scored" in submit.stdout

    # The numbers equal those of the local scorer on the same files.
    expected = {}
    for k in KEYS:
        local = subprocess.run(
            [PYTHON, "-m", "scoring", "score", "--gold", str(tmp / "gold.json"),
             "--pred", str(tmp / f"{k}.json"), "--json"],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        expected[k] = json.loads(local.stdout)["metrics"]["jga"]

    board = run("leaderboard", "dstc11/test", "--condition", "tts-verbatim", "--json")
    assert board.returncode == 0, board.stderr
    rows = json.loads(board.stdout)["results"]
    assert len(rows) == 1
    assert rows[0]["metrics"]["jga"]["value"] == pytest.approx(expected["tts-verbatim"])

    # The reader exports, anonymously.
    export = requests.get(f"{base}/challenges/dstc11/test/leaderboard.json", timeout=10).json()
    text = json.dumps(export)
    assert "Team Alpha" in text and "Prod run" in text
    table = requests.get(f"{base}/challenges/dstc11/test/leaderboard.csv", timeout=10)
    lines = list(csv.DictReader(io.StringIO(table.text)))
    by_condition = {line["condition"]: line for line in lines if line["board"] == "public"}
    for k in KEYS:  # the CSV has four decimals
        assert float(by_condition[k]["jga"]) == pytest.approx(expected[k], abs=5e-5)
    page = requests.get(f"{base}/challenges/dstc11/test/leaderboard/", timeout=10)
    assert page.ok and "Team Alpha" in page.text

    # Beat sends the lease reaper every second on our queue; the worker runs it.
    procs.wait_for(
        lambda: "reap_expired_leases" in (tmp / "logs" / "worker.log").read_text(errors="replace"),
        "beat's reaper task to reach the worker",
    )
    # Operations commands in a separate process, with production settings, on Postgres (the
    # backup takes its snapshot of the tables in a REPEATABLE READ transaction there).
    manage = [PYTHON, "manage.py"]
    out = procs.run("backup", [*manage, "backup_challenge", "dstc11", str(tmp / "b.zip")], env)
    assert "3 submissions.submissionfile" in out and "6 files" in out
    assert "6 stored files match" in procs.run("verify", [*manage, "verify_files"], env)

    # The health checks compose.yml declares pass against these processes.
    services = yaml.safe_load((ROOT / "docker" / "compose.yml").read_text())["services"]
    web_check = services["web"]["healthcheck"]["test"][-1].replace("http://127.0.0.1:8000", base)
    beat_check = services["beat"]["healthcheck"]["test"][-1].replace(
        "/var/lib/trackboard/beat/celerybeat-schedule", str(tmp / "beat-schedule")
    )
    for code in (web_check, beat_check):
        assert subprocess.run([PYTHON, "-c", code], env=env, timeout=30).returncode == 0, code
    worker_check = services["worker"]["healthcheck"]["test"][-1]
    ping = shlex.split(worker_check.replace("worker@$$HOSTNAME", f"{tag}@{socket.gethostname()}"))
    assert ping[0] == "celery"
    pinged = subprocess.run(
        [PYTHON, "-m", *ping], env=env, capture_output=True, text=True, timeout=60, cwd=ROOT
    )
    assert pinged.returncode == 0 and "pong" in pinged.stdout, pinged.stdout + pinged.stderr

    # Logs are JSON lines under LOG_FORMAT=json.
    worker_lines = (tmp / "logs" / "worker.log").read_text(errors="replace").splitlines()
    parsed = [json.loads(line) for line in worker_lines if line.startswith("{")]
    assert any(entry["logger"].startswith("celery") for entry in parsed)
