"""The end-to-end flow of scripts/containers-test, run against the compose stack it started.

As an organiser and a participant would, through the containers only: create a challenge on
the DSTC11 test gold (manage.py in the web container), sign up, make a team and an API token
(the site's pages), upload AuGPT's predictions for three conditions (the API), kill the worker
container that is scoring them, wait for the scores and check the submission was scored once,
then back the challenge up. Prints what it did and the numbers; exits non-zero on any
difference. Standard library only (it runs with the host's python3).

    python3 scripts/containers_flow.py --url http://127.0.0.1:18000 \
        --compose "docker-compose -p trackboard -f docker/compose.yml" --out /tmp/flow
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import shlex
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
import zipfile
from pathlib import Path
from typing import Any, BinaryIO

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
KEYS = ("tts-verbatim", "human-verbatim", "human-paraphrased")
# Published figures for augpt.json against the DSTC11 test gold, default profile (the test
# data's README): JGA and slot error rate.
EXPECTED = {"jga": 17.93, "ser": 45.40}
CONFIG = """\
challenge:
  slug: dstc11
  title: DSTC11 Speech-Aware Dialogue State Tracking
  task: dstc11
  primary_metric: jga
  registration: auto
  organisers: [organiser]
  # The most resamples allowed, not the default 1000 (the bootstrap's interval only; JGA and
  # SER are the same): scoring lasts seconds, long enough to kill the worker in the middle.
  scorer_options: {n_boot: 100000}
phases:
  - name: Test
    slug: test
    opens_at: 2020-01-01T00:00:00Z
    closes_at: 2100-01-01T00:00:00Z
    daily_quota: 5
    results_visibility: public
    conditions:
      - {key: tts-verbatim, label: TTS-Verbatim, reference: test-dstc11.gold.json}
      - {key: human-verbatim, label: Human-Verbatim, reference: test-dstc11.gold.json}
      - {key: human-paraphrased, label: Human-Paraphrased, reference: test-dstc11.gold.json}
"""


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


OPENER = urllib.request.build_opener(_NoRedirect)


class Site:
    """HTTP to the web container as the HTTPS proxy would pass it on: with
    ``X-Forwarded-Proto: https``, keeping the site's HTTPS-only cookies over loopback."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.cookies: dict[str, str] = {}
        self.token = ""

    def request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, bytes]:
        url = self.base + path
        sent = {"X-Forwarded-Proto": "https", "Referer": "https://" + url.split("://", 1)[1]}
        if self.cookies:
            sent["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        if self.token:
            sent["Authorization"] = f"Bearer {self.token}"
        sent.update(headers or {})
        request = urllib.request.Request(url, data=body, headers=sent, method=method)
        try:
            with OPENER.open(request, timeout=60) as answer:
                status, content, got = answer.status, answer.read(), answer.headers
        except urllib.error.HTTPError as error:
            status, content, got = error.code, error.read(), error.headers
        for cookie in got.get_all("Set-Cookie") or []:
            name, _, rest = cookie.partition("=")
            self.cookies[name.strip()] = rest.split(";", 1)[0]
        if status in (301, 302, 303) and got["Location"]:
            # Followed here, so that the cookies a redirect sets (the session) are kept.
            target = urllib.parse.urlsplit(got["Location"])
            return self.request("GET", target.path + (f"?{target.query}" if target.query else ""))
        return status, content

    def get_json(self, path: str) -> Any:
        status, content = self.request("GET", path)
        if status != 200:
            raise SystemExit(f"GET {path}: {status} {content[:500]!r}")
        return json.loads(content)

    def form(self, path: str, fields: dict[str, str], page: bool = True) -> str:
        """Post a form of the site's pages with the CSRF cookie's token (from the form's page
        first, unless ``page`` is false: a button posting to an action); the final page."""
        if page:
            status, _ = self.request("GET", path)
            if status != 200:
                raise SystemExit(f"GET {path}: {status}")
        fields = {"csrfmiddlewaretoken": self.cookies["csrftoken"], **fields}
        body = urllib.parse.urlencode(fields).encode()
        status, answer = self.request(
            "POST", path, body, {"Content-Type": "application/x-www-form-urlencoded"}
        )
        if status != 200:
            raise SystemExit(f"POST {path}: {status} {answer[:500]!r}")
        return answer.decode()


def multipart(fields: dict[str, str], files: dict[str, tuple[str, bytes]]) -> tuple[bytes, str]:
    boundary = uuid.uuid4().hex
    parts: list[bytes] = []
    for name, value in fields.items():
        head = f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n'
        parts.append(f"{head}{value}\r\n".encode())
    for name, (filename, content) in files.items():
        head = (
            f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; '
            f'filename="{filename}"\r\nContent-Type: application/json\r\n\r\n'
        )
        parts.append(head.encode() + content + b"\r\n")
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


class Stack:
    def __init__(self, compose: str) -> None:
        self.compose = shlex.split(compose)

    def run(self, *args: str, check: bool = True) -> str:
        done = subprocess.run([*self.compose, *args], capture_output=True, text=True)
        if check and done.returncode != 0:
            raise SystemExit(
                f"{' '.join(args)}: exit {done.returncode}\n{done.stdout}{done.stderr}"
            )
        return done.stdout

    def manage(self, *args: str) -> str:
        return self.run("exec", "-T", "web", "python", "manage.py", *args)

    def copy_in(self, source: BinaryIO, path: str) -> None:
        """A file into the web container, as Compose 1.29 can (it has no ``cp``)."""
        command = [*self.compose, "exec", "-T", "web", "sh", "-c", f"cat > {path}"]
        subprocess.run(command, stdin=source, check=True)

    def copy_out(self, path: str, target: BinaryIO) -> None:
        subprocess.run([*self.compose, "exec", "-T", "web", "cat", path], stdout=target, check=True)

    def containers(self, service: str) -> list[str]:
        return self.run("ps", "-q", service).split()


def step(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def wait_for(what: str, check: Any, timeout: float, interval: float = 1.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(interval)
    raise SystemExit(f"timed out after {timeout:.0f} s waiting for {what}")


def create_challenge(stack: Stack, out: Path) -> None:
    folder = out / "challenge"
    folder.mkdir(parents=True)
    (folder / "dstc11.yaml").write_text(CONFIG)
    gold = gzip.decompress((DATA / "dstc11" / "test-dstc11.gold.json.gz").read_bytes())
    (folder / "test-dstc11.gold.json").write_bytes(gold)
    for path in sorted(folder.iterdir()):
        with path.open("rb") as source:
            stack.copy_in(source, f"/tmp/{path.name}")
    print(stack.manage("create_challenge", "/tmp/dstc11.yaml").strip())


def participant(site: Site, stack: Stack) -> None:
    password = "a-long-enough-pass-" + uuid.uuid4().hex[:8]
    site.form(
        "/accounts/signup/",
        {"username": "alice", "email": "alice@example.org", "password1": password,
         "password2": password},
    )  # fmt: skip
    if "sessionid" not in site.cookies:
        raise SystemExit("sign-up: not signed in")
    # The stack mails to the console, so the operator confirms the address (the flow with the
    # mailed link runs in tests/leaderboard/operations/test_production_flow.py).
    print(stack.manage("confirm_address", "alice").strip())
    site.form("/teams/new/", {"name": "Team Alpha"})
    teams = site.get_json("/api/v1/teams/mine/")
    team = (teams["results"] if isinstance(teams, dict) else teams)[0]["id"]
    site.form("/challenges/dstc11/register/", {"team": str(team)}, page=False)
    page = site.form("/accounts/profile/tokens/", {"name": "containers"}, page=False)
    found = re.search(r'<code id="new-token">([^<]+)</code>', page)
    if found is None:
        raise SystemExit("no API token on the profile page")
    site.cookies.clear()  # from here on, the API with the token only
    site.token = found.group(1)


def scoring_in(worker: str) -> bool:
    """Whether this worker container has received a scoring task it has not finished (its
    log: Celery's "received" line for score_submission, and no "succeeded" or "raised")."""
    done = subprocess.run(["docker", "logs", worker], capture_output=True, text=True)
    lines = [
        line for line in (done.stdout + done.stderr).splitlines() if "score_submission[" in line
    ]
    received = sum("received" in line for line in lines)
    return received > sum(("succeeded" in line or "raised" in line) for line in lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--compose", required=True, help="the compose command, with -p and -f")
    parser.add_argument("--out", type=Path, required=True, help="a new folder for the files")
    options = parser.parse_args()
    stack, site = Stack(options.compose), Site(options.url.rstrip("/"))
    options.out.mkdir(parents=True, exist_ok=True)

    step("the first organiser (manage.py createsuperuser --no-input)")
    stack.manage(
        "createsuperuser", "--no-input", "--username", "organiser", "--email",
        "organiser@example.org",
    )  # fmt: skip
    step("create the challenge on the DSTC11 test gold (manage.py create_challenge)")
    create_challenge(stack, options.out)
    step("sign up, confirm the address, create a team, register it, make an API token")
    participant(site, stack)
    challenge = site.get_json("/api/v1/challenges/dstc11/")
    phase = next(p for p in challenge["phases"] if p["slug"] == "test")["id"]

    step("upload augpt.json for three conditions (POST /api/v1/phases/ID/submissions/)")
    prediction = gzip.decompress((DATA / "mwzeval-predictions" / "augpt.json.gz").read_bytes())
    body, kind = multipart(
        {"method_name": "AuGPT"}, {key: ("augpt.json", prediction) for key in KEYS}
    )
    status, answer = site.request(
        "POST", f"/api/v1/phases/{phase}/submissions/", body, {"Content-Type": kind}
    )
    if status != 201:
        raise SystemExit(f"upload: {status} {answer[:1000]!r}")
    submission = json.loads(answer)["id"]
    print(f"submission {submission}: queued")

    step("kill the worker container that is scoring it (docker kill)")
    workers = stack.containers("worker")
    if len(workers) != 2:
        raise SystemExit(f"expected two worker containers, found {len(workers)}")

    def scoring_worker() -> str | None:
        return next((w for w in workers if scoring_in(w)), None)

    victim = wait_for("a worker to start scoring", scoring_worker, 120, 0.2)
    subprocess.run(["docker", "kill", victim], check=True, capture_output=True)
    print(f"killed worker container {victim[:12]} while it scored submission {submission}")

    step("wait for the other worker to score it (after the lease expires)")

    def finished() -> dict[str, Any] | None:
        detail = site.get_json(f"/api/v1/submissions/{submission}/")
        return detail if detail["status"] not in ("queued", "scoring") else None

    detail = wait_for("the scores", finished, 420, 2)
    if detail["status"] != "scored":
        raise SystemExit(f"submission {submission}: {detail['status']} {detail.get('error')}")
    rows = stack.manage(
        "shell", "-c",
        "from leaderboard.submissions.models import Result; "
        f"print(Result.objects.filter(submission_id={submission}).count())",
    ).split()[-1]  # the count, after what the shell says it imported  # fmt: skip
    print(f"submission {submission}: scored, attempts {detail['attempts']}, result rows {rows}")
    failures = []
    if detail["attempts"] != 2:
        failures.append(f"attempts {detail['attempts']}, expected 2 (killed, then scored)")
    if rows != str(len(KEYS)):
        failures.append(f"{rows} result rows, expected one per condition ({len(KEYS)})")
    print(f"{'condition':<20} {'JGA':>7} {'SER':>7}   published: JGA 17.93, SER 45.40")
    for key in KEYS:
        metrics = detail["results"][key]["metrics"]
        got = {name: round(metrics[name]["value"], 2) for name in EXPECTED}
        print(f"{key:<20} {got['jga']:>7.2f} {got['ser']:>7.2f}")
        if got != EXPECTED:
            failures.append(f"{key}: {got}, published {EXPECTED}")

    step("back the challenge up (manage.py backup_challenge) and copy it out")
    print(stack.manage("backup_challenge", "dstc11", "/tmp/dstc11-backup.zip").strip())
    backup = options.out / "dstc11-backup.zip"
    with backup.open("wb") as target:
        stack.copy_out("/tmp/dstc11-backup.zip", target)
    with zipfile.ZipFile(backup) as archive:
        names = archive.namelist()
        if archive.testzip() is not None:
            failures.append("the backup zip is damaged")
    print(f"{backup.name}: {backup.stat().st_size} bytes, {len(names)} entries")
    print(stack.manage("verify_files").strip())
    dump = options.out / "trackboard.sql"
    with dump.open("wb") as target:
        command = ["exec", "-T", "postgres", "pg_dump", "-U", "trackboard", "trackboard"]
        subprocess.run([*stack.compose, *command], stdout=target, check=True)
    tables = dump.read_text().count("CREATE TABLE")
    print(f"{dump.name}: {dump.stat().st_size} bytes, {tables} tables")
    if tables < 10:
        failures.append(f"pg_dump wrote {tables} tables")

    for failure in failures:
        print(f"FAILED: {failure}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
