"""Leaderboard build and page speed and weight with 500 teams x 3 conditions of results of
1,000 dialogues each (a real DSTC11 result's size), each beside a baseline measured in the same
run.

- time to build the public board as its worker's task does (``builds.build``: ``compute``,
  the serialised form, the store) and ``compute(phase, "public")`` alone (the queries, rank
  groups and figures), beside the least any build must do: one query fetching every current Result's
  ranking columns (primary metric, its interval, tie-breaker, metrics, intervals) and the
  primary metric's per-dialogue statistics, decoded into numpy arrays (a build also resamples
  every condition once for the rank groups, rank intervals and detectable difference, and
  ranks every entry in every resample); the two are measured
  in turn, round after round, so that a slow spell of a shared machine hits both alike; and,
  as before, the build of a board of the same teams with 20 dialogues per result;
- time to render the page after a change (the board built as its worker builds it, then
  read and rendered) and with the board stored (read and rendered), median of ``--repeat``
  runs;
- the baseline: the same stored board rendered as the tables alone, in a minimal template
  (no charts, no rank groups, no figure data), i.e. what the page would cost without them;
- bytes: the HTML, the figure data inside it (``json_script``), our JS and CSS and plotly.js's
  basic bundle (raw and gzip-compressed, as nginx and whitenoise serve the collected static
  files to browsers that accept gzip).

Runs one BLAS thread, as the board's worker does. Uses a throw-away Postgres database
(``--database-url``, dropped and created anew each run; ``--database-url ''`` for a throw-away
SQLite file instead) and a local-memory cache. Run:
``.venv/bin/python benchmarks/leaderboard.py [--teams 500] [--dialogues 1000] [--repeat 5]``
(``--teams 2000`` for the larger board; ``--n-boot`` sets the rank groups' resamples, 1,000 by
default as the scorer's; ``--split 0.5`` also times, last, the final board of the phase split
so, every team's one submission a final selection, with its shake-up).

It also times ``scoring.ranking.rank_intervals`` alone on boards of 500 and 2,000 entries
(``--n-boot`` resamples of results of ``--dialogues`` dialogues made as the benchmark's, the
smaller board the larger one's first 500 entries), beside the exact method it replaced (each
entry's quantiles read from two global sorts of every resample's (entry, place); kept in
``tests.scoring.helpers`` as the tests' second computation), round after round; with
``--rank-intervals-only`` it times that alone, without a database.
"""

from __future__ import annotations

import argparse
import gc
import gzip
import itertools
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

# One BLAS thread, as the worker runs its builds (``leaderboard.celery``), set before numpy
# loads: a pool of BLAS threads would time another configuration than the worker's, and on
# shared cores its waiting threads take turns from the build.
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
# The participant package's folder first: run as a script, this file's folder is on the path,
# where benchmarks/scoring.py would otherwise be the ``scoring`` the site imports.
sys.path.insert(0, str(ROOT / "participant"))

import numpy as np  # noqa: E402

from benchmarks.throwaway import throwaway_site  # noqa: E402
from tests.scoring.helpers import rank_intervals_sorted  # noqa: E402

BARE = """{% load scores %}<!doctype html><html><body>
{% for row in board.overview %}<tr><td>{{ row.rank }}</td><th>{{ row.team_name }}</th>
<td>{{ row.method_name }}</td>{% for mean in row.means %}<td>{{ mean|score }}</td>{% endfor %}
</tr>{% endfor %}{% for c in board.conditions %}<table>{% for row in c.rows %}<tr><td>
{{ row.rank }}</td><th>{{ row.team_name }}</th><td>{{ row.method_name }}</td>
{% for cell in row.cells %}<td>{% with_ci cell.0 cell.1 cell.2 %}</td>{% endfor %}</tr>
{% endfor %}</table>{% endfor %}
</body></html>"""


def timed(function: Callable[[], object], repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


#: The boards' entries for ``rank_intervals`` alone (the smaller: the first of them).
RANKED_ENTRIES = (500, 2000)


def rank_interval_times(
    dialogues: int, n_boot: int, repeat: int
) -> list[tuple[tuple[int, int], float, float]]:
    """((B, E), ours ms, sorted ms): ``rank_intervals`` and the sort-based method on each board
    of ``RANKED_ENTRIES`` entries: results of ``dialogues`` dialogues made as
    ``tests.leaderboard.bulk`` makes them, their primary metric resampled ``n_boot`` times;
    both methods in turn, round after round (the order swapped each round), medians of
    ``repeat`` rounds. Needs Django set up
    (the results' maker), not a database."""
    import random

    from scoring.ranking import rank_intervals
    from scoring.stats import resample_entries
    from tests.leaderboard import bulk

    rng = random.Random(8)
    made = [bulk._dialogues(rng, dialogues).columns["jga"] for _ in range(max(RANKED_ENTRIES))]
    values = resample_entries([n for n, _ in made], [d for _, d in made], [], n_boot, 1).values
    boards = [np.ascontiguousarray(values[:, :entries]) for entries in RANKED_ENTRIES]
    kinds = {"sorted": rank_intervals_sorted, "ours": rank_intervals}
    samples: list[dict[str, list[float]]] = [{kind: [] for kind in kinds} for _ in boards]
    for board in boards:
        assert rank_intervals(board, "higher", 0.95) == rank_intervals_sorted(board, "higher", 0.95)
    for round_ in range(repeat):
        for board, times in zip(boards, samples, strict=True):
            for kind in sorted(kinds, reverse=round_ % 2 == 1):
                start = time.perf_counter()
                kinds[kind](board, "higher", 0.95)
                times[kind].append((time.perf_counter() - start) * 1000)
    return [
        (board.shape, statistics.median(t["ours"]), statistics.median(t["sorted"]))
        for board, t in zip(boards, samples, strict=True)
    ]


def print_rank_interval_times(times: list[tuple[tuple[int, int], float, float]]) -> None:
    for (rows, entries), ours_ms, sorted_ms in times:
        print(
            f"  rank intervals      {ours_ms:8.1f} ms  (two global sorts instead: "
            f"{sorted_ms:.1f} ms, {sorted_ms / ours_ms:5.2f} x; {rows} x {entries}, alone)"
        )


#: The database the benchmark drops and creates anew (trust authentication on the loopback).
DATABASE_URL = "postgres://postgres@127.0.0.1:5432/trackboard_bench"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--teams", type=int, default=500)
    parser.add_argument("--dialogues", type=int, default=1000, help="per result")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--n-boot",
        type=int,
        default=1000,
        help="resamples of the rank groups (default: the scorer's 1000, as a real challenge)",
    )
    parser.add_argument(
        "--split",
        type=float,
        default=None,
        help="also time the final board of a phase with this public share (its shake-up: "
        "every team's submission a final selection)",
    )
    parser.add_argument(
        "--database-url",
        default=DATABASE_URL,
        help="Postgres database to drop and create for the run ('': a throw-away SQLite file)",
    )
    parser.add_argument(
        "--rank-intervals-only",
        action="store_true",
        help="time only rank_intervals beside the sort-based method (no database)",
    )
    args = parser.parse_args()

    throwaway_site("trackboard-bench-", "" if args.rank_intervals_only else args.database_url)
    if args.rank_intervals_only:
        import django

        django.setup()
        n_boot = args.n_boot or 1000
        print(
            f"rank intervals, {args.dialogues} dialogues per result, {n_boot} resamples, "
            f"median of {args.repeat}"
        )
        print_rank_interval_times(rank_interval_times(args.dialogues, n_boot, args.repeat))
        return
    import django

    django.setup()
    import json

    from django.contrib.staticfiles import finders
    from django.core.management import call_command
    from django.db import connection
    from django.template import Context, Template
    from django.test import Client
    from django.urls import reverse

    from leaderboard.challenges.models import Phase
    from leaderboard.rankings import builds
    from leaderboard.rankings.board import counted
    from leaderboard.rankings.compute import compute
    from leaderboard.submissions import ratios
    from scoring.ranking import rank_intervals
    from scoring.stats import Draws, resample_entries
    from scoring.synth import make_gold
    from tests.leaderboard import bulk
    from tests.leaderboard.boards import leaderboard
    from tests.leaderboard.factories import phase_with_references

    call_command("migrate", verbosity=0)
    gold = json.dumps(make_gold(3, seed=1)).encode()
    small = phase_with_references(gold)
    bulk.build(small, args.teams, dialogues=bulk.DIALOGUES, name="small")
    phase = phase_with_references(gold)
    bulk.build(phase, args.teams, seed=8, dialogues=args.dialogues)
    if args.n_boot:
        for challenge in (phase.challenge, small.challenge):
            challenge.scorer_options = {**challenge.scorer_options, "n_boot": args.n_boot}
            challenge.save()
    primary = phase.challenge.primary

    def baseline() -> list[tuple[object, ...]]:
        rows = counted(phase).values_list(
            "primary", "primary_low", "primary_high", "tiebreak", "metrics", "intervals",
            "primary_ratios",
        )  # fmt: skip
        return [(*row[:6], ratios.primary(row[6], primary)) for row in rows]

    fetched = baseline()
    # What this process has loaded and made so far stays out of the garbage collector's
    # passes, as in a worker's pool process once started (``leaderboard.celery``).
    gc.freeze()
    assert len(fetched) == 3 * args.teams and all(row[6] is not None for row in fetched)

    # The statistics a build computes, alone: every condition's entries resampled on one draw
    # (the products, the rank groups' p-values, the standard errors) and ranked in every
    # resample, then the overview's means ranked, from the same stored statistics already
    # read and decoded: the part of a build that no query, row or serialised form adds to.
    resampling = phase.challenge.resampling()
    direction = phase.challenge.scoring_task().metric(primary).direction
    per_condition: dict[int, list[tuple[object, object]]] = {}
    for condition_id, data in (
        counted(phase)
        .order_by("condition_id", "-primary")
        .values_list("condition_id", "primary_ratios")
    ):
        per_condition.setdefault(condition_id, []).append(ratios.primary(data, primary))

    def statistics_alone() -> None:
        draws = Draws(resampling.n_boot, resampling.seed)
        means = None
        for pairs in per_condition.values():
            found = resample_entries(
                [n for n, _ in pairs],
                [d for _, d in pairs],
                list(itertools.pairwise(range(len(pairs)))),
                resampling.n_boot,
                resampling.seed,
                draws,
            )
            rank_intervals(found.values, direction, resampling.level)
            means = found.values if means is None else means + found.values
        rank_intervals(means, direction, resampling.level)

    def worker_build() -> float:
        """A change, then the board's build as its worker's task does it (compute, the
        serialised form, the store), timed without the change."""
        Phase.changed(phase.pk)
        started = time.perf_counter()
        assert builds.build(phase.pk) == 1
        return (time.perf_counter() - started) * 1000

    rounds: dict[str, list[float]] = {"compute": [], "baseline": [], "build": [], "stats": []}
    for _ in range(args.repeat):
        rounds["baseline"].append(timed(baseline, 1))
        rounds["stats"].append(timed(statistics_alone, 1))
        rounds["compute"].append(timed(lambda: compute(Phase.objects.get(pk=phase.pk)), 1))
        rounds["build"].append(worker_build())
    rebuild_ms = statistics.median(rounds["compute"])
    query_ms = statistics.median(rounds["baseline"])
    build_ms = statistics.median(rounds["build"])
    stats_ms = statistics.median(rounds["stats"])
    small_ms = timed(lambda: compute(Phase.objects.get(pk=small.pk)), args.repeat)
    ranked = rank_interval_times(args.dialogues, args.n_boot or 1000, args.repeat)
    url = reverse("rankings:leaderboard", args=[phase.challenge.slug, phase.slug])
    client = Client()

    def cold() -> bytes:
        # a change, the board's build (as its worker builds it), then the page
        Phase.changed(phase.pk)
        leaderboard(Phase.objects.get(pk=phase.pk))
        return client.get(url).content

    def warm() -> bytes:
        return client.get(url).content

    bare_template = Template(BARE)

    def bare() -> str:
        current = Phase.objects.get(pk=phase.pk)
        return bare_template.render(Context({"board": leaderboard(current)}))

    cold_ms = timed(cold, args.repeat)
    warm()
    warm_ms = timed(warm, args.repeat)
    bare_ms = timed(bare, args.repeat)
    page = warm()
    bare_bytes = bare().encode()
    start = page.index(b'<script id="chart-data"')
    data = page[start : page.index(b"</script>", start)]
    assets = {
        name: Path(finders.find(name)).read_bytes()
        for name in (
            "vendor/plotly-basic.min.js",
            "js/charts.js",
            "js/leaderboard.js",
            "css/trackboard.css",
        )
    }

    def kb(raw: bytes) -> str:
        return f"{len(raw) / 1024:8.1f} KiB raw {len(gzip.compress(raw)) / 1024:8.1f} KiB gzip"

    final_ms = None
    if args.split is not None:  # last: the phase's board is not the one measured above
        from leaderboard.submissions.services.processing import recompute_parts

        Phase.objects.filter(pk=phase.pk).update(split_fraction=args.split, split_seed=3)
        recompute_parts(Phase.objects.get(pk=phase.pk))  # the parts' figures, as the admin does
        final_ms = timed(lambda: compute(Phase.objects.get(pk=phase.pk), "private"), args.repeat)
    print(
        f"leaderboard, {args.teams} teams x 3 conditions, {args.dialogues} dialogues per "
        f"result, rank groups on {resampling.n_boot} resamples, median of {args.repeat}, "
        f"on {connection.vendor}"
    )
    print(f"  build, as the worker {build_ms:7.1f} ms  ({build_ms / query_ms:5.1f} x baseline; "
          "compute, serialise, store)")  # fmt: skip
    print(f"  compute (public)    {rebuild_ms:8.1f} ms  ({rebuild_ms / query_ms:5.1f} x baseline)")
    print(
        f"  baseline: 1 query   {query_ms:8.1f} ms  ({len(fetched)} Results' ranking columns "
        "and primary per-dialogue statistics, decoded)"
    )
    print(f"  statistics alone    {stats_ms:8.1f} ms  ({stats_ms / query_ms:5.1f} x baseline; "
          "each condition resampled and ranked, then the overview, from arrays read)")  # fmt: skip
    print_rank_interval_times(ranked)
    print(f"  compute, small      {small_ms:8.1f} ms  ({bulk.DIALOGUES} dialogues per result)")
    if final_ms is not None:
        print(f"  compute (final)     {final_ms:8.1f} ms  (split {args.split}: with its shake-up)")
    print(f"  page after a change {cold_ms:8.1f} ms  ({cold_ms / bare_ms:5.1f} x bare tables)")
    print(f"  page, board stored  {warm_ms:8.1f} ms  ({warm_ms / bare_ms:5.1f} x bare tables)")
    print(f"  bare tables         {bare_ms:8.1f} ms  (baseline: same board, tables only)")
    print(f"  HTML page           {kb(page)}  ({len(page) / len(bare_bytes):4.1f} x bare)")
    print(f"    of which figures  {kb(data)}")
    print(f"  bare tables HTML    {kb(bare_bytes)}")
    for name, raw in assets.items():
        print(f"  {name:<19} {kb(raw)}")
    total = len(page) + sum(len(raw) for raw in assets.values())
    total_gz = len(gzip.compress(page)) + sum(len(gzip.compress(r)) for r in assets.values())
    print(f"  first visit total   {total / 1024:8.1f} KiB raw {total_gz / 1024:8.1f} KiB gzip")


if __name__ == "__main__":
    main()
