"""The command line's run of the ``dstc11`` task: the functions every caller uses, arranged for
a short process (``python -m scoring score|compare`` without a training-values file).

- The reference comes from the cache (:mod:`scoring.refcache`) when it holds the gold file;
  else it is read and then cached.
- The intervals of a ``score`` come from cached resample counts without numpy
  (:mod:`scoring.resample`); else from a forked process (:mod:`scoring.parallel`), which
  imports numpy while this one reads the files, and caches the counts once the run is over.
- Errors come in the order of a plain run: the reference's first, then each prediction's.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from scoring import refcache
from scoring.dstc11.model import Reference, load_prediction
from scoring.dstc11.model import load_reference as read_reference
from scoring.errors import ScoringError
from scoring.results import Comparison, Score, Settings, Statistics, compare, score

if TYPE_CHECKING:
    import argparse

    from scoring.parallel import ForkedStatistics


def run(
    args: argparse.Namespace,
    settings: Settings,
    forked: list[ForkedStatistics],
    read: Callable[[str], bytes],
) -> tuple[Score | Comparison, object]:
    """Score (or compare) as ``args`` and ``settings`` say; returns the outcome and everything
    it was made from (kept alive by a caller about to exit). A forked process started here is
    appended to ``forked`` for the caller to close."""
    gold = (read(args.gold), Path(args.gold).name)
    files = [(read(path), Path(path).name) for path in args.pred]
    statistics, reference = _start(
        gold, settings, forked, not args.no_cache, args.command == "score"
    )
    predictions = [
        load_prediction(data, reference, name, settings.missing, settings.profile)
        for data, name in files
    ]
    outcome: Score | Comparison
    if args.command == "score":
        if len(predictions) != 1:
            raise ScoringError("'score' takes exactly one --pred; use 'compare' for two.")
        outcome = score(reference, predictions[0], settings, statistics)
    else:
        if len(predictions) != 2:
            raise ScoringError("'compare' takes exactly two --pred files.")
        outcome = compare(reference, predictions[0], predictions[1], settings, statistics)
    return outcome, (reference, predictions)


def _start(
    gold: tuple[bytes, str],
    settings: Settings,
    forked: list[ForkedStatistics],
    use_cache: bool,
    intervals_only: bool,
) -> tuple[Statistics | None, Reference]:
    """The statistics (None: :mod:`scoring.stats` in this process) and the reference (whose
    own error, if any, comes first)."""
    profile, n_boot, seed = settings.profile, settings.n_boot, settings.seed
    where = refcache.folder() if use_cache else None
    name = refcache.key(gold[0], profile) if where is not None else None
    cached = refcache.load(where, name)
    if cached is not None and intervals_only:
        n = len(cached.ids)
        draws = refcache.load_draws(where, refcache.draws_key(n, n_boot, seed), n, n_boot, seed)
        if draws is not None:
            from scoring.resample import PackedStatistics

            return PackedStatistics(draws), cached.renamed(gold[1])

    def keep_draws(n: int | None) -> None:  # in the forked process, after the run
        if where is None or not intervals_only or n is None:
            return
        from scoring import stats

        draws = refcache.draws_key(n, n_boot, seed)
        if draws is not None and not refcache.has(where, draws):
            counts = stats.resample_counts(n, n_boot, seed)
            if counts is not None:
                refcache.store(where, draws, counts)

    from scoring.parallel import ForkedStatistics

    # numpy loads in a forked process (the slowest start of all) while this one reads.
    started = ForkedStatistics.start(keep_draws)
    if started is not None:
        forked.append(started)
    reference: Reference = cached.renamed(gold[1]) if cached is not None else read_reference(*gold)
    if started is not None:
        started.prepare(len(reference.ids), n_boot, seed)
    if cached is None and where is not None and name is not None:
        refcache.store(where, name, refcache.dumps(reference.compact(profile)))
    return started, reference
