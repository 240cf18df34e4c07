"""What a database connection per request costs a web server: gunicorn as deployed
(``leaderboard/gunicorn.py``: each thread keeps its connection) beside the same server opening
one for every request (``DATABASE_CONN_MAX_AGE=0``), both running in the same run.

A phase of ``--teams`` teams x 3 conditions (``tests.leaderboard.bulk``), its public board
built and stored as its worker builds it, on a Postgres database the script drops and creates
(a SQLite file has no connection to open). Two gunicorn servers with the project's
configuration, one process of one thread each, on loopback ports; a participant's session. In
each of ``--rounds`` rounds, for each server in turn (the order alternating), ``--requests``
reads of each of ``/livez``, the leaderboard page anonymous and the page signed in, over one
kept-alive client connection. The figure is the whole machine's CPU per request (every
process: the client, gunicorn, the Postgres backends, including those that have exited by the
time it is read; ``/proc/stat``), medians over the rounds; the client's share is the same for
both servers. Run it on an otherwise idle machine.

Run: ``.venv/bin/python benchmarks/connections.py [--teams 500] [--rounds 5] [--requests 300]
[--database-url postgres://postgres@127.0.0.1:5432/trackboard_connections]``
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
# The participant package's folder first, as in signed_in.py.
sys.path.insert(0, str(ROOT / "participant"))

from benchmarks.throwaway import throwaway_site  # noqa: E402

SERVERS = {"kept (as deployed)": None, "one per request": "0"}


def machine_ticks() -> int:
    """Busy clock ticks of every core since boot (all but idle and I/O wait)."""
    fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    return sum(fields) - fields[3] - fields[4]


def start(conn_max_age: str | None, port: int) -> tuple[subprocess.Popen, str]:
    env = {**os.environ, "TRACKBOARD_BIND": f"127.0.0.1:{port}", "WEB_CONCURRENCY": "1"}
    env |= {"WEB_THREADS": "1", "LOG_LEVEL": "WARNING"}
    env.pop("DATABASE_CONN_MAX_AGE", None)
    if conn_max_age is not None:
        env["DATABASE_CONN_MAX_AGE"] = conn_max_age
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "--config", "python:leaderboard.gunicorn",
         "--access-logfile", "/dev/null"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    return server, f"http://127.0.0.1:{port}"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--teams", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--requests", type=int, default=300, help="of each kind, per round")
    parser.add_argument(
        "--database-url", default="postgres://postgres@127.0.0.1:5432/trackboard_connections"
    )
    args = parser.parse_args()

    throwaway_site("trackboard-connections-", args.database_url)
    import django

    django.setup()
    import json

    import requests
    from django.conf import settings
    from django.core.management import call_command
    from django.test import Client
    from django.urls import reverse

    from leaderboard.challenges.models import Phase
    from leaderboard.teams.models import Membership, Team
    from scoring.synth import make_gold
    from tests.leaderboard import bulk
    from tests.leaderboard.boards import leaderboard
    from tests.leaderboard.factories import phase_with_references
    from tests.leaderboard.operations.processes import free_port

    call_command("migrate", verbosity=0)
    phase = phase_with_references(json.dumps(make_gold(3, seed=1)).encode())
    bulk.build(phase, args.teams, seed=8, dialogues=20)
    leaderboard(Phase.objects.get(pk=phase.pk))  # built and stored, as its worker does
    team = Team.objects.get(slug="bulk-team-0")
    Membership.objects.get_or_create(team=team, user=team.created_by, defaults={"role": "owner"})
    login = Client()
    login.force_login(team.created_by)
    cookie = login.cookies[settings.SESSION_COOKIE_NAME].value
    page = reverse("rankings:leaderboard", args=[phase.challenge.slug, phase.slug])

    servers = {name: start(age, free_port()) for name, age in SERVERS.items()}
    clients = {}
    for name, (server, base) in servers.items():
        anonymous, signed_in = requests.Session(), requests.Session()
        signed_in.cookies.set(settings.SESSION_COOKIE_NAME, cookie)
        deadline = time.monotonic() + 60
        while True:
            try:
                anonymous.get(f"{base}/livez", timeout=5)
                break
            except requests.ConnectionError:
                assert time.monotonic() < deadline and server.poll() is None, f"{name}: no start"
                time.sleep(0.2)
        clients[name] = {
            "/livez": (anonymous, f"{base}/livez"),
            "the page, anonymous": (anonymous, base + page),
            "the page, signed in": (signed_in, base + page),
        }
    tick_ms = 1000 / os.sysconf("SC_CLK_TCK")
    samples: dict[tuple[str, str], list[float]] = {}
    try:
        for name in clients:  # warm: the board decoded and kept, the templates loaded
            for session, url in clients[name].values():
                for _ in range(20):
                    assert session.get(url, timeout=30).status_code == 200, url
        for round_ in range(args.rounds):
            order = list(clients) if round_ % 2 == 0 else list(reversed(clients))
            for name in order:
                for kind, (session, url) in clients[name].items():
                    before = machine_ticks()
                    for _ in range(args.requests):
                        session.get(url, timeout=30)
                    used = (machine_ticks() - before) * tick_ms / args.requests
                    samples.setdefault((name, kind), []).append(used)
    finally:
        for server, _ in servers.values():
            server.send_signal(signal.SIGTERM)
            server.wait(timeout=60)

    medians = {key: statistics.median(values) for key, values in samples.items()}
    kept, each = SERVERS
    print(f"{args.teams} teams x 3 conditions; machine CPU per request, medians of "
          f"{args.rounds} rounds of {args.requests} (load average at the end "
          f"{os.getloadavg()[0]:.2f})")  # fmt: skip
    print(f"  {'request':<22} {kept:>20} {each:>18}   one per request / kept")
    for kind in clients[kept]:
        a, b = medians[kept, kind], medians[each, kind]
        print(f"  {kind:<22} {a:17.2f} ms {b:15.2f} ms   {b / a:5.2f} x (+{b - a:.2f} ms)")


if __name__ == "__main__":
    main()
