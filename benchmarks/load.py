"""Load through the front door: nginx (docker/nginx/nginx.conf) before gunicorn (production
settings, DEBUG off), Celery workers, Postgres and Redis on loopback, driven as a challenge
sees it: anonymous readers of the public board and its API, signed-in readers, and uploads of
real-size files arriving at a set rate.

The board holds ``--teams`` teams x 3 conditions of results of ``--dialogues`` dialogues each
(default 1,000, a real DSTC11 result's size). The servers run as ``docs/operators.md`` deploys
them: nginx on ``--port`` with the repository's configuration (rendered by
docker/nginx/render), ``--instances`` instances of the readers' gunicorn on the next port
(SO_REUSEPORT: the kernel spreads connections between them), ``--web-workers`` processes of
``--web-threads`` threads each, and the uploads' gunicorn on the port after
(``--upload-workers`` x ``--upload-threads``), where nginx routes the uploads; the Celery
workers are split between the queue of new submissions and the queues of re-scores and of the
boards' builds (``TRACKBOARD_RESCORE_QUEUE``, ``TRACKBOARD_BOARD_QUEUE``).

The load, for ``--duration`` seconds, all through nginx:

- ``--readers`` anonymous readers, closed loop, alternating the public board's page and the
  API's board: driven by ``wrk`` (Debian's package; a Python client would itself be the limit
  at these rates), whose CPU is printed like the rest;
- ``--signed-in`` signed-in readers, closed loop, the same two addresses with a session
  cookie (never cacheable), from this process (asyncio);
- uploads arriving open loop at ``--upload-rate`` a second (default 0.5: 1,800 an hour), each
  3 x 7,372 turns (a real system output's size), spread over ``--uploaders`` teams.

    .venv/bin/python benchmarks/load.py                      # the defaults, 60 s
    .venv/bin/python benchmarks/load.py --duration 10 --readers 20 --signed-in 2 \
        --saturation ""                                     # smoke

It uses its own database (``--database-url``, dropped and created) and Redis database number
(``--redis-url``, flushed: give it a number nothing else uses), starts every process itself and
stops them all at the end. Prints per class: requests/s, p50/p95/p99 latency and errors;
submissions accepted vs scored and upload-to-scored p50/p95; the CPU each part of the run used
(nginx, the servers, the workers, Postgres, Redis, wrk, this process) and per read and per
upload; how far the stored board trailed the phase (sampled every ``SAMPLE_SECONDS``); then,
with the load gone: a conditional GET of the unchanged board through nginx (304), the server
time of a warm page and of a build of the board, upload-to-scored times of single uploads to an
idle worker, and a saturation run: uploads alone at each rate of ``--saturation`` for
``--saturation-seconds``, until upload-to-scored p95 passes ``SATURATION_P95`` seconds. Figures,
not assertions: see benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import secrets
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
# The participant package's folder first: run as a script, this file's folder is on the path,
# where benchmarks/scoring.py would otherwise be the ``scoring`` the site imports.
sys.path.insert(0, str(ROOT / "participant"))
# The public DSTC11 test gold, committed (compressed) in tests/data: see tests/data/README.md.
FIXTURE_GOLD = "dstc11/test-dstc11.gold.json"
KEYS = ("tts-verbatim", "human-verbatim", "human-paraphrased")


# --- set-up (runs in a child process with the benchmark's environment) ----------------------


def seed(args: argparse.Namespace, workdir: Path) -> None:
    """Migrate, build the phase (500 teams x 3 conditions), the uploaders' teams and tokens."""
    import django

    django.setup()
    from django.core.management import call_command
    from django.test import Client

    from leaderboard.api.services import create_token
    from leaderboard.challenges.models import Challenge
    from scoring.synth import make_prediction
    from tests.fixturedata import fixture_bytes
    from tests.leaderboard import bulk
    from tests.leaderboard.boards import leaderboard
    from tests.leaderboard.factories import (
        ParticipationFactory,
        TeamFactory,
        UserFactory,
        phase_with_references,
    )

    call_command("migrate", verbosity=0)
    gold_bytes = fixture_bytes(FIXTURE_GOLD)
    gold = json.loads(gold_bytes)
    phase = phase_with_references(gold_bytes, keys=KEYS)
    Challenge.objects.filter(pk=phase.challenge_id).update(
        scorer_options={"profile": "default", "missing": "reject", "n_boot": 1000, "seed": 12345}
    )
    bulk.build(phase, args.teams, dialogues=args.dialogues)
    tokens = []
    for n in range(max(args.uploaders, 1)):
        team = TeamFactory(name=f"Uploader {n}", slug=f"uploader-{n}")
        ParticipationFactory(team=team, challenge=phase.challenge)
        tokens.append(create_token(team.created_by, "load")[1])
    # The signed-in readers' sessions, made with the site's own SECRET_KEY (this process has
    # the benchmark's environment).
    sessions = []
    for n in range(max(args.signed_in, 1)):
        browser = Client()
        user = UserFactory(username=f"reader-{n}")
        browser.force_login(type(user).objects.get(pk=user.pk))  # the stored password hash
        sessions.append(browser.cookies["sessionid"].value)
    (workdir / "prediction.json").write_bytes(
        json.dumps(make_prediction(gold, 0.1, seed=3)).encode()
    )
    leaderboard(phase)  # warm the cache, as a live site's would be
    turns = sum(len(v) for v in gold.values())
    (workdir / "seed.json").write_text(
        json.dumps(
            {
                "phase": phase.pk,
                "path": f"/challenges/{phase.challenge.slug}/{phase.slug}/leaderboard/",
                "tokens": tokens,
                "sessions": sessions,
                "turns": turns,
            }
        )
    )


def measure(phase_pk: int, path: str, repeat: int) -> dict[str, float]:
    """Server time, in ms, of a build of the board (what the worker's task does before it
    stores it: ``compute``, the ranking queries, rank groups and figures, then its serialised
    form; median of ``repeat``) and of a warm page (median of 20 GETs through Django's handler,
    the page already cached), on the benchmark's database and cache."""
    import django

    django.setup()
    from django.test import Client

    from leaderboard.challenges.models import Phase
    from leaderboard.rankings.compute import compute
    from leaderboard.rankings.serialised import serialise

    def timed(function, n: int) -> float:
        samples = []
        for _ in range(n):
            started = time.perf_counter()
            function()
            samples.append((time.perf_counter() - started) * 1000)
        return statistics.median(samples)

    rebuild = timed(
        lambda: serialise(
            compute(Phase.objects.select_related("challenge").get(pk=phase_pk)), charts=True
        ),
        repeat,
    )
    client = Client(HTTP_X_FORWARDED_PROTO="https", HTTP_HOST="127.0.0.1")
    assert client.get(path).status_code == 200
    warm = timed(lambda: client.get(path), 20)
    return {"rebuild": rebuild, "warm": warm}


def submission_times(ids: list[int]) -> dict[int, tuple[str, float | None, float]]:
    """status, scored_at (epoch) and created_at (epoch) of the given submissions."""
    import django

    django.setup()
    from leaderboard.submissions.models import Submission

    rows = Submission.objects.filter(pk__in=ids).values_list(
        "pk", "status", "scored_at", "created_at"
    )
    return {
        pk: (status, scored.timestamp() if scored else None, created.timestamp())
        for pk, status, scored, created in rows
    }


# --- HTTP (asyncio streams; gunicorn's sync workers close each connection) ------------------


async def request(
    port: int, method: str, path: str, headers: dict, body: bytes = b""
) -> tuple[int, bytes]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        head = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1", "Connection: close",
                "X-Forwarded-Proto: https", f"Content-Length: {len(body)}"]  # fmt: skip
        head += [f"{k}: {v}" for k, v in headers.items()]
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + body)
        await writer.drain()
        raw = await reader.read()
    finally:
        writer.close()
    status = int(raw[9:12]) if raw[:5] == b"HTTP/" else 0
    return status, raw[raw.find(b"\r\n\r\n") + 4 :]


async def response(port: int, path: str, headers: dict) -> tuple[int, dict[str, str], bytes]:
    """GET ``path``: the status, the headers (lower-case names) and the body."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        head = [f"GET {path} HTTP/1.1", "Host: 127.0.0.1", "Connection: close",
                "X-Forwarded-Proto: https", *(f"{k}: {v}" for k, v in headers.items())]  # fmt: skip
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode())
        await writer.drain()
        raw = await reader.read()
    finally:
        writer.close()
    top, _, body = raw.partition(b"\r\n\r\n")
    lines = top.decode("latin-1").split("\r\n")
    fields = dict(line.split(":", 1) for line in lines[1:] if ":" in line)
    return int(lines[0][9:12]), {k.strip().lower(): v.strip() for k, v in fields.items()}, body


def multipart(fields: dict[str, str], files: dict[str, bytes]) -> tuple[str, bytes]:
    boundary = secrets.token_hex(16)
    parts = []
    for name, value in fields.items():
        parts.append(
            f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n'
            f"{value}\r\n".encode()
        )
    for name, data in files.items():
        parts.append(
            f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; '
            f'filename="{name}.json"\r\nContent-Type: application/json\r\n\r\n'.encode()
            + data
            + b"\r\n"
        )
    parts.append(f"--{boundary}--\r\n".encode())
    return f"multipart/form-data; boundary={boundary}", b"".join(parts)


class Stats:
    def __init__(self) -> None:
        self.latency: dict[str, list[float]] = defaultdict(list)
        self.errors: dict[str, list[str]] = defaultdict(list)
        self.accepted: list[tuple[int, float]] = []  # (submission id, time the upload started)
        #: when each class of load stopped (time.monotonic): the last signed-in reader's last
        #: answer, the last upload sent; its rate is over the time it ran, not over the wait for
        #: the slowest upload's answer
        self.stopped: dict[str, float] = {}

    def record(self, endpoint: str, started: float, status: int, ok: set[int]) -> None:
        self.latency[endpoint].append(time.perf_counter() - started)
        if status not in ok:
            self.errors[endpoint].append(str(status))


async def reader_loop(port, seed_info, stats: Stats, stop: float, n: int) -> None:
    """A signed-in reader: the page and the API's board in turn, with a session cookie."""
    endpoints = [
        ("signed-in page", seed_info["path"]),
        ("signed-in api", f"/api/v1/phases/{seed_info['phase']}/leaderboard/"),
    ]
    cookie = {"Cookie": f"sessionid={seed_info['sessions'][n % len(seed_info['sessions'])]}"}
    i = n
    while time.monotonic() < stop:
        name, path = endpoints[i % 2]
        i += 1
        started = time.perf_counter()
        try:
            status, _ = await request(port, "GET", path, {"Accept-Encoding": "gzip", **cookie})
        except OSError as exc:
            status = 0
            stats.errors[name].append(repr(exc))
        stats.record(name, started, status, {200})
    stats.stopped["signed-in"] = max(stats.stopped.get("signed-in", 0.0), time.monotonic())


async def upload_once(port, seed_info, body_files, stats: Stats, n: int) -> None:
    """One upload, through nginx (which sends it to the uploads' server)."""
    token = seed_info["tokens"][n % len(seed_info["tokens"])]
    ctype, body = multipart({"method_name": f"load {n}"}, body_files)
    started_wall, started = time.time(), time.perf_counter()
    try:
        status, payload = await request(
            port, "POST", f"/api/v1/phases/{seed_info['phase']}/submissions/",
            {"Authorization": f"Bearer {token}", "Content-Type": ctype}, body,
        )  # fmt: skip
    except OSError as exc:
        status, payload = 0, b""
        stats.errors["upload"].append(repr(exc))
    stats.record("upload", started, status, {201})
    if status == 201:
        stats.accepted.append((json.loads(payload)["id"], started_wall))


async def uploads_open_loop(port, seed_info, body_files, stats, stop: float, rate: float) -> None:
    """Uploads arriving at ``rate`` a second whatever the answers take (open loop)."""
    if rate <= 0:
        return
    pending, n, start = [], 0, time.monotonic()
    while (due := start + n / rate) < stop:
        await asyncio.sleep(max(0.0, due - time.monotonic()))
        pending.append(asyncio.create_task(upload_once(port, seed_info, body_files, stats, n)))
        n += 1
    stats.stopped["upload"] = time.monotonic()
    await asyncio.gather(*pending)


#: wrk's script: the anonymous readers alternate the page and the API's board, and its summary
#: prints the percentiles and errors as one JSON line.
WRK_SCRIPT = """
local paths = {"%(page)s", "%(api)s"}
local n = 0
request = function()
  n = n + 1
  return wrk.format("GET", paths[n %% 2 + 1], {["Accept-Encoding"] = "gzip",
    ["X-Forwarded-Proto"] = "https"})
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('WRK {"requests": %%d, "seconds": %%f, "p50": %%f, "p95": %%f, ' ..
    '"p99": %%f, "status": %%d, "connect": %%d, "read": %%d, "write": %%d, "timeout": %%d}\\n',
    summary.requests, summary.duration / 1e6, latency:percentile(50) / 1e3,
    latency:percentile(95) / 1e3, latency:percentile(99) / 1e3, e.status, e.connect, e.read,
    e.write, e.timeout))
end
"""


async def anonymous_readers(args, seed_info, workdir: Path) -> dict:
    """``wrk`` with ``--readers`` connections for ``--duration`` seconds; its summary, and the
    CPU seconds it used."""
    script = workdir / "readers.lua"
    script.write_text(WRK_SCRIPT % {
        "page": seed_info["path"], "api": f"/api/v1/phases/{seed_info['phase']}/leaderboard/"
    })  # fmt: skip
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    process = await asyncio.create_subprocess_exec(
        "wrk", "-t2", f"-c{args.readers}", f"-d{args.duration:g}s", "--timeout", "10s",
        "-s", str(script), f"http://127.0.0.1:{args.port}/",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
    )  # fmt: skip
    out, _ = await process.communicate()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    line = next((x for x in out.decode().splitlines() if x.startswith("WRK ")), None)
    if line is None:
        raise SystemExit(f"wrk printed no summary:\n{out.decode()}")
    found = json.loads(line[4:])
    found["cpu"] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return found


def percentiles(values: list[float]) -> str:
    if not values:
        return "no requests"
    ordered = sorted(values)

    def pick(q: float) -> float:
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000

    return f"p50 {pick(0.50):8.1f} ms  p95 {pick(0.95):8.1f} ms  p99 {pick(0.99):8.1f} ms"


# --- orchestration ----------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=60.0)
    parser.add_argument("--readers", type=int, default=200)
    parser.add_argument("--signed-in", type=int, default=20, help="signed-in readers")
    parser.add_argument("--upload-rate", type=float, default=0.5, help="uploads a second")
    parser.add_argument("--uploaders", type=int, default=20, help="teams the uploads come from")
    parser.add_argument(
        "--saturation", default="0.5,1,1.5,2,3", help="upload rates of the saturation run"
    )
    parser.add_argument("--saturation-seconds", type=float, default=30.0)
    parser.add_argument("--teams", type=int, default=500)
    parser.add_argument("--dialogues", type=int, default=1000, help="per result on the board")
    parser.add_argument("--instances", type=int, default=2, help="gunicorn instances")
    parser.add_argument("--web-workers", type=int, default=3, help="worker processes each")
    parser.add_argument("--web-threads", type=int, default=1, help="threads per process")
    parser.add_argument("--upload-workers", type=int, default=2, help="the uploads' server")
    parser.add_argument("--upload-threads", type=int, default=2)
    parser.add_argument("--rebuilds", type=int, default=3, help="cold rebuilds timed")
    parser.add_argument(
        "--celery-workers", type=int, default=2, help="the first takes new submissions, the "
        "second re-scores, any more new submissions"
    )  # fmt: skip
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--drain", type=float, default=180.0, help="max s to wait for scoring")
    parser.add_argument("--idle-uploads", type=int, default=5)
    parser.add_argument(
        "--database-url", default="postgres://postgres@127.0.0.1:5432/trackboard_load"
    )
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/7")
    parser.add_argument("--_seed", help=argparse.SUPPRESS)
    parser.add_argument("--_times", help=argparse.SUPPRESS)
    parser.add_argument("--_measure", help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args._seed:
        seed(args, Path(args._seed))
        return
    if args._times:
        ids = [int(x) for x in Path(args._times).read_text().split()]
        print(json.dumps(submission_times(ids)))
        return
    if args._measure:
        info = json.loads(Path(args._measure).read_text())
        print(json.dumps(measure(info["phase"], info["path"], args.rebuilds)))
        return

    nginx = shutil.which("nginx") or (
        "/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None
    )
    missing = [
        what for what, found in (("nginx", nginx), ("wrk", shutil.which("wrk"))) if not found
    ]
    if missing:
        raise SystemExit(f"missing: {', '.join(missing)} (Debian: apt-get install nginx wrk)")
    workdir = Path(tempfile.mkdtemp(prefix="trackboard-load-"))
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "leaderboard.settings",
        "DATABASE_URL": args.database_url,
        "REDIS_URL": args.redis_url,
        "TRACKBOARD_VAR_DIR": str(workdir / "var"),
        "TRACKBOARD_PRIVATE_ROOT": str(workdir / "private"),
        "TRACKBOARD_QUEUE": "trackboard-load",
        "TRACKBOARD_RESCORE_QUEUE": "trackboard-load-rescore",
        "TRACKBOARD_BOARD_QUEUE": "trackboard-load-boards",
        "TRACKBOARD_CACHE_PREFIX": "trackboard-load",
        "TRACKBOARD_PRODUCTION": "true",
        "DEBUG": "false",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "127.0.0.1",
        "TRACKBOARD_READ_TIMEOUT": "120",
        "TRACKBOARD_PROXY_SSL_HEADER": "X-Forwarded-Proto",
        "TRACKBOARD_THROTTLE_SUBMIT_USER": "100000/hour",
        "TRACKBOARD_THROTTLE_SUBMIT_IP": "100000/hour",
        "DATABASE_CONN_MAX_AGE": "60",
        "LOG_LEVEL": "WARNING",
    }
    env.pop("DATABASE_TEST_NAME", None)
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    python = sys.executable
    processes: list[subprocess.Popen] = []

    import psycopg
    import redis

    db = urlsplit(args.database_url)
    name = db.path.lstrip("/")
    admin = args.database_url.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')
    redis.Redis.from_url(args.redis_url).flushdb()

    try:
        t0 = time.monotonic()
        subprocess.run(
            [python, __file__, "--_seed", str(workdir), "--teams", str(args.teams),
             "--uploaders", str(args.uploaders), "--signed-in", str(args.signed_in),
             "--dialogues", str(args.dialogues)],
            env=env, cwd=ROOT, check=True,
        )  # fmt: skip
        seed_info = json.loads((workdir / "seed.json").read_text())
        print(f"set-up: {args.teams} teams x {len(KEYS)} conditions, {args.dialogues} "
              f"dialogues per result, reference of {seed_info['turns']:,} turns, in "
              f"{time.monotonic() - t0:.1f} s")  # fmt: skip
        logs = workdir / "logs"
        logs.mkdir()
        servers = [(f"web-{n}", args.port + 1, args.web_workers, args.web_threads)
                   for n in range(args.instances)]  # fmt: skip
        servers.append(("uploads", args.port + 2, args.upload_workers, args.upload_threads))
        for label, port, workers, threads in servers:
            log = open(logs / f"gunicorn-{label}.log", "wb")  # noqa: SIM115
            command = [python, "-m", "gunicorn", "--config", "python:leaderboard.gunicorn",
                       "-w", str(workers), "--threads", str(threads), "-b", f"127.0.0.1:{port}",
                       "--reuse-port", "--backlog", "2048"]  # fmt: skip
            processes.append(
                subprocess.Popen(command, env=env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
            )
        for n in range(args.celery_workers):
            processes.append(
                subprocess.Popen(
                    [
                        python,
                        "-m",
                        "celery",
                        "-A",
                        "leaderboard",
                        "worker",
                        "--pool=solo",
                        "--without-gossip",
                        "--without-mingle",
                        "--without-heartbeat",
                        "--loglevel=WARNING",
                        f"--hostname=load-{n}@%h",
                        "-Q",
                        f"{env['TRACKBOARD_RESCORE_QUEUE']},{env['TRACKBOARD_BOARD_QUEUE']}"
                        if n == 1
                        else env["TRACKBOARD_QUEUE"],
                    ],
                    env=env,
                    cwd=ROOT,
                    stdout=open(logs / f"worker-{n}.log", "wb"),  # noqa: SIM115
                    stderr=subprocess.STDOUT,
                )
            )
        front = _start_nginx(nginx, args, workdir, logs)
        processes.append(front)
        for port in (args.port + 1, args.port + 2, args.port):
            _wait_for_server(port)
        time.sleep(3)  # let the workers connect
        for path in (seed_info["path"], f"/api/v1/phases/{seed_info['phase']}/leaderboard/"):
            status, head, _ = asyncio.run(response(args.port, path, {}))
            if status != 200:
                raise SystemExit(f"{path} through nginx: HTTP {status} {head}")
        body_files = {key: (workdir / "prediction.json").read_bytes() for key in KEYS}
        before = cpu_seconds(args, name, front.pid)
        sampler = BoardSampler(args.database_url, seed_info["phase"])
        sampler.start()
        stats, anonymous = asyncio.run(_drive(args, seed_info, body_files, workdir))
        driven = cpu_seconds(args, name, front.pid)
        driven["wrk (anonymous readers)"] = anonymous["cpu"]
        _report_requests(stats, anonymous, args)
        accepted = [pk for pk, _ in stats.accepted]
        times = _drain(args, env, workdir, accepted)
        sampler.settle(args.drain)
        sampler.stop()
        _report_scoring(stats, times)
        sampler.report()
        drained = cpu_seconds(args, name, front.pid)
        drained["wrk (anonymous readers)"] = anonymous["cpu"]
        _report_cpu(stats, anonymous, before, driven, drained)
        _report_idle_board(args, env, workdir, seed_info)
        if args.idle_uploads:
            _idle_uploads(args, env, workdir, seed_info, body_files)
        if args.saturation:
            _saturation(args, env, workdir, seed_info, body_files)
    finally:
        for process in processes:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in processes:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        redis.Redis.from_url(args.redis_url).flushdb()
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        print(f"stopped {len(processes)} processes; logs in {workdir / 'logs'}")


def _wait_for_server(port: int) -> None:
    for _ in range(300):
        try:
            status, _ = asyncio.run(request(port, "GET", "/healthz", {}))
            if status == 200:
                return
        except OSError:
            pass
        time.sleep(0.1)
    raise SystemExit("gunicorn did not answer /healthz")


def _start_nginx(nginx: str, args, workdir: Path, logs: Path) -> subprocess.Popen:
    """nginx with the repository's configuration, before the servers started above; the
    clients stand in for the TLS proxy in front of it (their X-Forwarded-Proto is passed on)."""
    state = workdir / "nginx"
    state.mkdir()
    (workdir / "static").mkdir(exist_ok=True)
    conf = state / "nginx.conf"
    render_env = {
        **os.environ,
        "NGINX_LISTEN": f"127.0.0.1:{args.port}",
        "NGINX_WEB": f"127.0.0.1:{args.port + 1}",
        "NGINX_UPLOADS": f"127.0.0.1:{args.port + 2}",
        "NGINX_STATIC_ROOT": str(workdir / "static"),
        "NGINX_STATE": str(state),
        "NGINX_ACCESS_LOG": "off",
        "NGINX_FORWARDED_PROTO": "$http_x_forwarded_proto",
    }
    render = ROOT / "docker" / "nginx" / "render"
    subprocess.run([str(render), str(ROOT / "docker/nginx/nginx.conf"), str(conf)],
                   env=render_env, check=True)  # fmt: skip
    settings = "daemon off;" + (" user root root;" if os.geteuid() == 0 else "")
    return subprocess.Popen(
        [nginx, "-e", "stderr", "-p", str(state), "-c", str(conf), "-g", settings],
        stdout=open(logs / "nginx.log", "wb"),
        stderr=subprocess.STDOUT,
    )


async def _drive(args, seed_info, body_files, workdir: Path) -> tuple[Stats, dict]:
    stats = Stats()
    stop = time.monotonic() + args.duration
    started = time.monotonic()
    tasks = [reader_loop(args.port, seed_info, stats, stop, n) for n in range(args.signed_in)]
    tasks.append(uploads_open_loop(args.port, seed_info, body_files, stats, stop, args.upload_rate))
    anonymous, *_ = await asyncio.gather(anonymous_readers(args, seed_info, workdir), *tasks)
    stats.elapsed = time.monotonic() - started  # type: ignore[attr-defined]
    stats.ran = {  # type: ignore[attr-defined]
        name: at - started for name, at in stats.stopped.items()
    }
    return stats, anonymous


def _report_requests(stats: Stats, anonymous: dict, args) -> None:
    elapsed = stats.elapsed  # type: ignore[attr-defined]
    print(f"\ndriven for {elapsed:.1f} s through nginx: {args.readers} anonymous readers (wrk), "
          f"{args.signed_in} signed-in readers, uploads at {args.upload_rate:g}/s")  # fmt: skip
    errors = sum(anonymous[k] for k in ("status", "connect", "read", "write", "timeout"))
    print(f"  {'anonymous (page+api)':22s} {anonymous['requests']:6d} req  "
          f"{anonymous['requests'] / anonymous['seconds']:7.1f} req/s  p50 {anonymous['p50']:8.1f} "
          f"ms  p95 {anonymous['p95']:8.1f} ms  p99 {anonymous['p99']:8.1f} ms  errors {errors}"
          + (f" ({ {k: anonymous[k] for k in ('status', 'connect', 'read', 'write', 'timeout')} })"
             if errors else ""))  # fmt: skip
    signed = [e for e in stats.latency if e.startswith("signed-in")]
    classes = {"signed-in (page+api)": ("signed-in", signed), "upload": ("upload", ["upload"])}
    for label, (kind, endpoints) in classes.items():
        values = [v for e in endpoints for v in stats.latency[e]]
        errors_seen = [x for e in endpoints for x in stats.errors.get(e, [])]
        ran = stats.ran.get(kind, elapsed)  # type: ignore[attr-defined]
        print(f"  {label:22s} {len(values):6d} req  {len(values) / ran:7.1f} req/s "
              f"(over {ran:.1f} s)  "
              f"{percentiles(values)}  errors {len(errors_seen)}"
              + (f" ({sorted(set(errors_seen))[:5]})" if errors_seen else ""))  # fmt: skip


def _times(env, workdir, ids) -> dict:
    (workdir / "ids.txt").write_text(" ".join(map(str, ids)))
    out = subprocess.run(
        [sys.executable, __file__, "--_times", str(workdir / "ids.txt")],
        env=env, cwd=ROOT, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return {int(k): v for k, v in json.loads(out.stdout.strip().splitlines()[-1]).items()}


def _drain(args, env, workdir, ids) -> dict:
    deadline = time.monotonic() + args.drain
    while True:
        times = _times(env, workdir, ids) if ids else {}
        pending = [pk for pk, (status, _, _) in times.items() if status in ("queued", "scoring")]
        if not pending or time.monotonic() > deadline:
            return times
        time.sleep(2)


def _scoring(stats: Stats, times: dict) -> tuple[dict[str, int], int, list[float]]:
    """Submissions by status, accepted ones without a row, and upload-to-scored delays."""
    by_status: dict[str, int] = defaultdict(int)
    for status, _, _ in times.values():
        by_status[status] += 1
    started = dict(stats.accepted)
    delays = [scored - started[pk] for pk, (_, scored, _) in times.items() if scored]
    return dict(by_status), len(stats.accepted) - len(times), delays


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _report_scoring(stats: Stats, times: dict) -> None:
    by_status, missing, delays = _scoring(stats, times)
    print(f"  submissions accepted {len(stats.accepted)}, by status {by_status}, "
          f"missing rows {missing}")  # fmt: skip
    if delays:
        print(f"  upload-to-scored under load: p50 {statistics.median(delays):.1f} s, "
              f"p95 {_quantile(delays, 0.95):.1f} s, max {max(delays):.1f} s")  # fmt: skip


#: The saturation run's bound: the highest rate whose upload-to-scored p95 stays under it.
SATURATION_P95 = 10.0


def _saturation(args, env, workdir, seed_info, body_files) -> None:
    """Uploads alone, open loop, at each rate of ``--saturation`` for
    ``--saturation-seconds``, each drained before the next; stops at the first rate whose
    upload-to-scored p95 passes ``SATURATION_P95`` (or loses or fails an upload)."""
    rates = [float(x) for x in args.saturation.split(",") if x.strip()]
    print(f"\nsaturation: uploads alone, open loop, {args.saturation_seconds:g} s a rate, "
          f"until upload-to-scored p95 passes {SATURATION_P95:g} s")  # fmt: skip
    highest = None
    for rate in rates:
        stats = Stats()
        stop = time.monotonic() + args.saturation_seconds
        asyncio.run(uploads_open_loop(args.port, seed_info, body_files, stats, stop, rate))
        times = _drain(args, env, workdir, [pk for pk, _ in stats.accepted])
        by_status, missing, delays = _scoring(stats, times)
        refused = len(stats.latency["upload"]) - len(stats.accepted)
        p95 = _quantile(delays, 0.95) if delays else float("inf")
        print(
            f"  {rate:4g}/s: {len(stats.accepted)} accepted, {refused} refused, {by_status}, "
            f"missing {missing}; upload-to-scored p50 "
            f"{statistics.median(delays) if delays else float('nan'):.1f} s, p95 {p95:.1f} s"
        )
        ok = p95 <= SATURATION_P95 and not refused and not missing
        if not ok or set(by_status) != {"scored"}:
            break
        highest = rate
    print(
        f"  saturation rate: {highest if highest is not None else 'below ' + str(rates[0])}"
        f"/s (the highest rate tried whose p95 stayed under {SATURATION_P95:g} s)"
    )


#: How often the board's trail behind the phase is sampled during the run.
SAMPLE_SECONDS = 0.2


class BoardSampler(threading.Thread):
    """Samples, every ``SAMPLE_SECONDS`` while the load runs, the phase's ``board_version`` and
    the version and build time of its stored public board, straight from the database."""

    def __init__(self, database_url: str, phase: int) -> None:
        super().__init__(daemon=True)
        self.database_url, self.phase = database_url, phase
        #: (time, the phase's version, the stored board's version, its build time)
        self.samples: list[tuple[float, int, int | None, float | None]] = []
        self.halt = threading.Event()

    def sample(self, db) -> tuple[float, int, int | None, float | None]:
        row = db.execute(
            "SELECT p.board_version, b.version, b.built_at FROM challenges_phase p "
            "LEFT JOIN rankings_board b ON b.phase_id = p.id AND b.kind = 'public' "
            "WHERE p.id = %s",
            (self.phase,),
        ).fetchone()
        built = row[2].timestamp() if row[2] is not None else None
        return (time.time(), row[0], row[1], built)

    def run(self) -> None:
        import psycopg

        with psycopg.connect(self.database_url, autocommit=True) as db:
            while not self.halt.wait(SAMPLE_SECONDS):
                self.samples.append(self.sample(db))

    def settle(self, timeout: float) -> None:
        """Wait until the stored board is built from the phase's version (the load is gone)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.samples and self.samples[-1][1] == self.samples[-1][2]:
                return
            time.sleep(SAMPLE_SECONDS)

    def stop(self) -> None:
        self.halt.set()
        self.join()

    def report(self) -> None:
        """For each sample: how many builds ended after it before a board showed the phase's
        version of that moment ("1": the next build did, the served board trailed by at most
        the build in progress; "2": a build in progress had started before the change, so
        the one after it showed it), and how long that took."""
        builds = sorted({(built, version) for _, _, version, built in self.samples if built})
        counts: dict[int, int] = defaultdict(int)
        waits = []
        for at, wanted, shown, _ in self.samples:
            if shown is not None and shown >= wanted:
                continue  # the board showed the phase's version at that moment
            after = [(built, version) for built, version in builds if built > at]
            seen = next((n for n, (_, v) in enumerate(after, 1) if v >= wanted), None)
            if seen is None:
                continue  # not built again before the samples ended
            counts[seen] += 1
            waits.append(after[seen - 1][0] - at)
        print(f"\nstored board under load: {len(builds)} builds seen in {len(self.samples)} "
              f"samples every {SAMPLE_SECONDS:g} s")  # fmt: skip
        if waits:
            ordered = sorted(waits)
            p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
            spread = ", ".join(f"{n}: {counts[n]}" for n in sorted(counts))
            print(f"  builds that ended after a change until one showed it: {spread} "
                  f"(samples of a board behind the phase); trailed by at most "
                  f"{max(counts) - 1} build(s) in progress")  # fmt: skip
            print(f"  change to shown: median {statistics.median(ordered):.2f} s, p95 "
                  f"{p95:.2f} s, max {ordered[-1]:.2f} s")  # fmt: skip


def _report_idle_board(args, env, workdir, seed_info) -> None:
    """With the load gone: a conditional GET of the unchanged board (on the readers' server),
    then the server time of a warm page and of cold rebuilds (in a child process)."""
    path = seed_info["path"]
    # nginx may first answer with the entry it kept from the load (STALE) while it fetches the
    # board built since in the background: ask until its entry is the current one.
    for _ in range(20):
        status, head, _ = asyncio.run(response(args.port, path, {}))
        if head.get("x-cache-status") == "HIT":
            break
        time.sleep(0.5)
    tag = head.get("etag", "")
    again, second, body = asyncio.run(response(args.port, path, {"If-None-Match": tag}))
    print(f"\nconditional GET of the unchanged board, through nginx: HTTP {status} with ETag "
          f"{tag} (X-Cache-Status {head.get('x-cache-status')}), then HTTP {again} with "
          f"If-None-Match ({len(body)} bytes of body, X-Cache-Status "
          f"{second.get('x-cache-status')})")  # fmt: skip
    (workdir / "measure.json").write_text(json.dumps(seed_info))
    out = subprocess.run(
        [sys.executable, __file__, "--_measure", str(workdir / "measure.json"),
         "--rebuilds", str(args.rebuilds)],
        env=env, cwd=ROOT, capture_output=True, text=True,
    )  # fmt: skip
    if out.returncode != 0:
        print(f"server time: not measured ({out.stderr.strip().splitlines()[-1:]})")
        return
    figures = json.loads(out.stdout.strip().splitlines()[-1])
    print(f"server time: a build of the board {figures['rebuild']:.1f} ms (median of "
          f"{args.rebuilds}), warm page {figures['warm']:.2f} ms (median of 20)")  # fmt: skip


COMPONENTS = (
    "nginx",
    "readers' servers",
    "uploads' server",
    "worker, new submissions",
    "worker, re-scores and boards",
    "postgres (this database)",
    "redis",
    "wrk (anonymous readers)",
    "this process (signed-in, uploads)",
)


def cpu_seconds(args, database: str, nginx: int) -> dict[str, float]:
    """CPU seconds (user + system) used so far by each component of the run, from
    ``/proc/<pid>/stat`` (every thread of a process counts): nginx (its master ``nginx`` and
    the master's children), the servers and workers this script started, the Postgres backends
    of its database, Redis, and this process, which drives the signed-in readers and the
    uploads. wrk's is added by the caller (it has exited by then)."""
    tick = os.sysconf("SC_CLK_TCK")
    found = dict.fromkeys(COMPONENTS, 0.0)
    marks = {
        f"127.0.0.1:{args.port + 1} ": COMPONENTS[1],
        f"127.0.0.1:{args.port + 2} ": COMPONENTS[2],
        "--hostname=load-0@": COMPONENTS[3],
        "--hostname=load-1@": COMPONENTS[4],
    }
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # gone meanwhile
        seconds = (int(fields[11]) + int(fields[12])) / tick  # utime, stime
        label = next((label for mark, label in marks.items() if mark in command), None)
        if label is None and nginx in (int(entry.name), int(fields[1])):
            label = COMPONENTS[0]
        if label is None and command.startswith("postgres: ") and f" {database} " in command:
            label = COMPONENTS[5]
        if label is None and command.startswith("redis-server"):
            label = COMPONENTS[6]
        if label is not None:
            found[label] += seconds
    mine = os.times()
    found[COMPONENTS[8]] = mine.user + mine.system
    return found


def _report_cpu(stats: Stats, anonymous: dict, before: dict, driven: dict, drained: dict) -> None:
    """Where the two cores went while the load ran, and per unit of work."""
    elapsed = stats.elapsed  # type: ignore[attr-defined]
    print(f"\nCPU while the load ran ({elapsed:.1f} s; cores busy = CPU s / elapsed s), and "
          "until every submission was scored:")  # fmt: skip
    for label in COMPONENTS:
        used, total = driven[label] - before[label], drained[label] - before[label]
        print(f"  {label:34s} {used:7.1f} s  {used / elapsed:5.2f} cores   "
              f"until scored {total:7.1f} s")  # fmt: skip
    busy = sum(driven[label] - before[label] for label in COMPONENTS)
    print(f"  {'all':34s} {busy:7.1f} s  {busy / elapsed:5.2f} cores")
    signed = sum(len(stats.latency[e]) for e in stats.latency if e.startswith("signed-in"))
    anon = anonymous["requests"]
    server = driven[COMPONENTS[1]] - before[COMPONENTS[1]]
    front = driven[COMPONENTS[0]] - before[COMPONENTS[0]]
    if signed:
        # Anonymous reads reach the servers only to revalidate nginx's entries: a handful.
        print(f"  per signed-in read: readers' servers {1000 * server / signed:.2f} ms of CPU "
              f"(all of their CPU over the {signed} signed-in reads)")  # fmt: skip
    if anon:
        print(f"  per anonymous read: nginx {1000 * front / anon:.3f} ms, wrk "
              f"{1000 * anonymous['cpu'] / anon:.3f} ms of CPU")  # fmt: skip
    uploads = len(stats.accepted)
    if uploads:
        per = {label: (drained[label] - before[label]) / uploads for label in COMPONENTS[2:5]}
        shares = ", ".join(f"{label} {seconds:.2f} s" for label, seconds in per.items())
        print(f"  per accepted upload, until scored: {shares}")


def _idle_uploads(args, env, workdir, seed_info, body_files) -> None:
    delays = []
    for n in range(args.idle_uploads):
        ctype, body = multipart({"method_name": f"idle {n}"}, body_files)
        started = time.time()
        status, payload = asyncio.run(
            request(
                args.port, "POST", f"/api/v1/phases/{seed_info['phase']}/submissions/",
                {"Authorization": f"Bearer {seed_info['tokens'][0]}", "Content-Type": ctype},
                body,
            )
        )  # fmt: skip
        if status != 201:
            print(f"  idle upload {n}: HTTP {status} {payload[:200]!r}")
            continue
        pk = json.loads(payload)["id"]
        token = seed_info["tokens"][0]
        while time.time() - started < 120:
            _, detail = asyncio.run(
                request(args.port, "GET", f"/api/v1/submissions/{pk}/",
                        {"Authorization": f"Bearer {token}"})
            )  # fmt: skip
            if json.loads(detail)["status"] in ("scored", "failed"):
                break
            time.sleep(0.05)
        delays.append(time.time() - started)
    if delays:
        print(f"\nidle workers, {len(delays)} single uploads (3 x {seed_info['turns']:,} turns): "
              f"upload-to-scored median {statistics.median(delays):.2f} s, "
              f"min {min(delays):.2f} s, max {max(delays):.2f} s")  # fmt: skip


if __name__ == "__main__":
    main()
