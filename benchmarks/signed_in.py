"""Where the milliseconds of a signed-in read of a 500-team board go, in process.

A phase of ``--teams`` teams x 3 conditions (``tests.leaderboard.bulk``), its public board
built and stored as its worker builds it (``tests.leaderboard.boards.leaderboard``), on a
throw-away SQLite file in a temporary folder (``--database-url postgres://...`` for a Postgres
database the script drops and creates instead) and a local-memory cache. A participant (a team
member) is logged in with ``django.test.Client``; then, round-robin (one request of each per
round, medians over ``--rounds`` rounds), the CPU time (``time.process_time``) of one request
of each of:

- ``/livez`` (the floor: the middleware around a view that answers a constant);
- the leaderboard page, anonymous (the answer kept per stored board, ``caching.respond``);
- the page, signed in (rendered for the reader, never kept);
- the API's board (``api:leaderboard``), signed in by the session, and by a personal access
  token;

with the garbage collector's passes during each (``gc.callbacks``; what setting up left is
collected first, as a reader process holds no such garbage), and ``base.html`` rendered alone
for the signed-in reader (the frame every page has). The stored board is decoded once and kept
by the process (``rankings.boards``), so its size, not ``--dialogues``, is what a read meets.

Then the signed-in page is profiled (``cProfile``, ``--profiled`` requests) and its time
attributed: each middleware of ``settings.MIDDLEWARE`` by its own work (each layer of the
handler's chain is wrapped in a function of its own name, so the profile's cumulative time of a
layer less that of the next is the middleware's own), the session's load and save, the
authentication (the user's query and the session's hash), and inside the view the phase (whose
query also answers whether the reader organises the challenge), the rights, the stored board,
the kept tables and header, template rendering; the queries are counted and listed
(``CaptureQueriesContext``) in a separate pass, since capturing them costs time. The profiled
shares are applied to the unprofiled median, printed beside the profiler's own figures.

Run: ``.venv/bin/python benchmarks/signed_in.py [--teams 500] [--rounds 41] [--profiled 200]
[--database-url postgres://postgres@127.0.0.1:5432/trackboard_signed_in]`` (``--dump FILE``
keeps the page's profile for ``pstats``).
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import itertools
import pstats
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
# The participant package's folder first: run as a script, this file's folder is on the path,
# where benchmarks/scoring.py would otherwise be the ``scoring`` the site imports.
sys.path.insert(0, str(ROOT / "participant"))

from benchmarks.throwaway import throwaway_site  # noqa: E402


def cpu_ms(function: Callable[[], object]) -> float:
    start = time.process_time()
    function()
    return (time.process_time() - start) * 1000


def wrap_layers(layers: list[str]) -> None:
    """Make every layer of the handler's middleware chain a function of its own (its name the
    middleware's class, or ``view`` for the innermost: URL resolution and the view), so that
    cProfile tells the layers apart; Django's own wrapper is one function for all of them."""
    from django.core.handlers import base

    original = base.convert_exception_to_response

    def convert(get_response: Any) -> Any:
        inner = original(get_response)
        is_view = getattr(get_response, "__name__", "") == "_get_response"
        name = "view" if is_view else type(get_response).__name__
        layers.append(name)
        scope: dict[str, Any] = {"inner": inner}
        exec(  # a distinct code object per layer, named after it
            compile("def layer(request):\n    return inner(request)\n", f"<layer {name}>", "exec"),
            scope,
        )
        return scope["layer"]

    base.convert_exception_to_response = convert


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--teams", type=int, default=500)
    parser.add_argument(
        "--dialogues",
        type=int,
        default=20,
        help="per result (the stored board's size depends on the teams, not on this)",
    )
    parser.add_argument("--rounds", type=int, default=41)
    parser.add_argument("--profiled", type=int, default=200, help="signed-in pages profiled")
    parser.add_argument("--dump", default="", help="write the page's profile here (pstats)")
    parser.add_argument(
        "--database-url",
        default="",
        help="a Postgres database to drop and create for the run (default: a SQLite file)",
    )
    args = parser.parse_args()

    throwaway_site("trackboard-signed-in-", args.database_url)
    import django

    layers: list[str] = []
    wrap_layers(layers)
    django.setup()

    import json

    from django.conf import settings
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext
    from django.urls import reverse

    from leaderboard.api import services as api_services
    from leaderboard.challenges.models import Phase
    from leaderboard.teams.models import Membership, Team
    from scoring.synth import make_gold
    from tests.leaderboard import bulk
    from tests.leaderboard.boards import leaderboard
    from tests.leaderboard.factories import phase_with_references

    call_command("migrate", verbosity=0)
    gold = json.dumps(make_gold(3, seed=1)).encode()
    phase = phase_with_references(gold)
    bulk.build(phase, args.teams, seed=8, dialogues=args.dialogues)
    board = leaderboard(Phase.objects.get(pk=phase.pk))  # built and stored, as its worker does
    assert sum(len(c.rows) for c in board.conditions) == 3 * args.teams

    team = Team.objects.get(slug="bulk-team-0")
    Membership.objects.get_or_create(team=team, user=team.created_by, defaults={"role": "owner"})
    participant = team.created_by
    page_url = reverse("rankings:leaderboard", args=[phase.challenge.slug, phase.slug])
    api_url = reverse("api:leaderboard", args=[phase.pk])

    anonymous = Client()
    signed_in = Client()
    signed_in.force_login(participant)
    token = make_token(api_services, participant)
    by_token = Client(headers={"authorization": f"Bearer {token}"})

    def get(client: Client, url: str) -> Callable[[], object]:
        def run() -> object:
            response = client.get(url)
            assert response.status_code == 200, (url, response.status_code)
            return response

        return run

    requests: dict[str, Callable[[], object]] = {
        "/livez": get(anonymous, "/livez"),
        "page, anonymous": get(anonymous, page_url),
        "page, signed in": get(signed_in, page_url),
        "API board, signed in (session)": get(signed_in, api_url),
    }
    requests["API board, signed in (token)"] = get(by_token, api_url)
    for run in requests.values():  # warm: the board decoded and kept, the templates loaded
        for _ in range(3):
            run()

    # the garbage collector's passes during the rounds: CPU ms and count per generation, by the
    # request during which each ran (a pass runs when allocations pass its threshold, whoever
    # allocates; a full pass reads every tracked object of the process)
    gc.collect()  # what setting up left behind, as a reader process has no such garbage
    tracked = len(gc.get_objects())
    passes: dict[str, dict[int, list[float]]] = {name: {0: [], 1: [], 2: []} for name in requests}
    current: list[Any] = [None, 0.0]

    def on_gc(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            current[1] = time.process_time()
        elif current[0] is not None:
            passes[current[0]][info["generation"]].append((time.process_time() - current[1]) * 1000)

    gc.callbacks.append(on_gc)
    samples: dict[str, list[float]] = {name: [] for name in requests}
    for round_ in range(args.rounds):
        names = list(requests)
        for name in names if round_ % 2 == 0 else reversed(names):
            current[0] = name
            samples[name].append(cpu_ms(requests[name]))
    current[0] = None
    gc.callbacks.remove(on_gc)
    medians = {name: statistics.median(values) for name, values in samples.items()}
    means = {name: statistics.fmean(values) for name, values in samples.items()}
    floor = medians["/livez"]

    # the queries of each request, captured apart (capturing costs time)
    queries: dict[str, list[str]] = {}
    for name, run in requests.items():
        with CaptureQueriesContext(connection) as captured:
            run()
        queries[name] = [q["sql"] for q in captured.captured_queries]

    print(
        f"signed-in reads, {args.teams} teams x 3 conditions, in process on "
        f"{connection.vendor}, CPU time per request, medians of {args.rounds} rounds"
    )
    for name, value in medians.items():
        print(
            f"  {name:<32} {value:6.2f} ms  ({value / floor:5.1f} x /livez; mean "
            f"{means[name]:6.2f} ms; {len(queries[name])} queries)"
        )
    print(f"  the garbage collector in those rounds ({tracked:,} objects tracked at the start):")
    for name, by_generation in passes.items():
        spent = sum(sum(v) for v in by_generation.values()) / args.rounds
        counts = ", ".join(
            f"gen {g}: {len(v)} ({sum(v):.1f} ms)" for g, v in by_generation.items() if v
        )
        print(f"    {name:<30} {spent:6.2f} ms a request, mean; passes {counts or 'none'}")

    # the page's frame alone (base.html: the navigation with the reader's name, the log-out
    # form's CSRF token, the messages), beside the whole page's rendering in the table below
    from django.template.loader import render_to_string
    from django.test import RequestFactory

    framed = RequestFactory().get(page_url)
    framed.user = participant
    framed.session = signed_in.session
    frame_ms = statistics.median(
        cpu_ms(lambda: render_to_string("base.html", {}, request=framed))
        for _ in range(args.rounds)
    )
    print(f"  base.html alone, signed in       {frame_ms:6.2f} ms  (the frame every page renders)")

    # --- attribution of the signed-in page ----------------------------------------------
    page = requests["page, signed in"]
    profile = cProfile.Profile()
    started = time.process_time()
    profile.enable()
    for _ in range(args.profiled):
        page()
    profile.disable()
    profiled_ms = (time.process_time() - started) * 1000 / args.profiled
    stats = pstats.Stats(profile)
    if args.dump:
        stats.dump_stats(args.dump)
    table = attribute(stats, layers, args.profiled, settings.MIDDLEWARE)
    whole = table[0][1]
    scale = medians["page, signed in"] / whole
    print(
        f"\nthe signed-in page attributed (cProfile, {args.profiled} requests, "
        f"{profiled_ms:.2f} ms each profiled; the shares applied to the unprofiled "
        f"{medians['page, signed in']:.2f} ms)"
    )
    print(f"  {'part':<62} {'ms':>6} {'share':>6}  {'profiled ms':>11}")
    for label, value in table:
        if value != value:  # a heading
            print(f"  {label}")
            continue
        print(f"  {label:<62} {value * scale:6.2f} {value / whole:6.1%}  {value:11.2f}")
    print("\nthe signed-in page's queries:")
    for sql in queries["page, signed in"]:
        print(f"  {sql[:150]}")
    print("\nthe API board's queries (session):")
    for sql in queries["API board, signed in (session)"]:
        print(f"  {sql[:150]}")


def make_token(services: Any, user: Any) -> str:
    """A personal access token of ``user``, as the profile page makes one."""
    _, key = services.create_token(user, "benchmark")
    return str(key)


def cumulative(stats: pstats.Stats, match: Callable[[str, int, str], bool]) -> float:
    """Seconds: the cumulative time of the functions matching ``match(file, line, name)``
    (summed: match functions that do not call one another)."""
    return sum(
        row[3]
        for (file, line, name), row in stats.stats.items()  # type: ignore[attr-defined]
        if match(file, line, name)
    )


def attribute(
    stats: pstats.Stats, layers: list[str], count: int, middleware: list[str]
) -> list[tuple[str, float]]:
    """(part, profiled ms per request): the whole request, outside the middleware, each
    middleware's own work, and the view's parts."""
    per = 1000 / count

    def layer(name: str) -> float:
        return cumulative(stats, lambda f, _l, _n: f == f"<layer {name}>") * per

    def function(module_end: str, name: str) -> float:
        return cumulative(stats, lambda f, _l, n: f.endswith(module_end) and n == name) * per

    # the chain, outermost first: the handler builds it innermost first
    chain = list(reversed(layers[-(len(middleware) + 1) :]))
    whole = function("benchmarks/signed_in.py", "run")  # the whole request, as timed above
    rows: list[tuple[str, float]] = [("whole request (django.test.Client.get)", whole)]
    rows.append(("  test client and handler, outside the middleware", whole - layer(chain[0])))
    for outer, inner in itertools.pairwise(chain):
        rows.append((f"  middleware {outer}, own work", layer(outer) - layer(inner)))
    view = layer("view")
    rows.append(("  URL resolution and the view (phase_leaderboard)", view))
    session_load = function("sessions/backends/db.py", "load")
    get_user = function("django/contrib/auth/__init__.py", "get_user")
    # ``request.user`` is lazy: the view's first use of it (``_phase``, asking the phase's
    # query whether the reader organises the challenge) loads the session and the user, so
    # those are taken out of the phase
    parts = [
        ("    session load (SessionStore.load: 1 query, decode)", session_load),
        ("    the user (auth.get_user less the load: 1 query, the hash)", get_user - session_load),
        (
            "    the phase and whether the reader organises (_phase less the user: 1 query)",
            function("rankings/views.py", "_phase") - get_user,
        ),
        (
            "    the rights (visibility.access: the phase's answer, no query)",
            function("challenges/visibility.py", "access"),
        ),
        (
            "    the stored board (boards.stored: its state, 1 query)",
            function("rankings/boards.py", "stored"),
        ),
        (
            "    the tables (views._tables_html: the cache's get)",
            function("rankings/views.py", "_tables_html"),
        ),
        (
            "    the header (views._header_html: its key, the cache's get)",
            function("rankings/views.py", "_header_html"),
        ),
        (
            "    template rendering (backends.django.Template.render)",
            function("template/backends/django.py", "render"),
        ),
    ]
    rows += parts
    rest = view - sum(v for _, v in parts)
    rows.append(("    the rest: URL resolution, the context, headers", rest))
    rows += [
        ("  across the parts above:", float("nan")),
        ("    reverse() (the {% url %} tags)", function("django/urls/base.py", "reverse")),
        ("    {% static %} tags", function("templatetags/static.py", "render")),
        (
            "    the database driver (CursorWrapper.execute)",
            function("db/backends/utils.py", "execute"),
        ),
        ("    session save (SessionStore.save)", function("sessions/backends/db.py", "save")),
    ]
    return rows


if __name__ == "__main__":
    main()
