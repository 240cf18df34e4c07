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
from scoring.dstc11.model import Prediction, ReadAhead, Reference, load_prediction
from scoring.dstc11.model import load_reference as read_reference
from scoring.errors import ScoringError
from scoring.results import Comparison, Score, Settings, Statistics, compare, score

if TYPE_CHECKING:
    import argparse

    from scoring.parallel import ForkedStatistics

#: A file given on the command line: its bytes and the name used for it in messages.
File = tuple[bytes, str]


def run(
    args: argparse.Namespace, forked: list[ForkedStatistics], read: Callable[[str], bytes]
) -> tuple[Score | Comparison, object]:
    """Score (or compare) as ``args`` says; returns the outcome and everything it was made
    from (kept alive by a caller about to exit). A forked process started here is appended to
    ``forked`` for the caller to close."""
    settings = Settings(
        profile=args.profile or "default",
        missing=args.missing,
        n_boot=args.bootstrap,
        level=args.level,
        seed=args.seed,
    )
    settings.check()
    gold = (read(args.gold), Path(args.gold).name)
    files = [(read(path), Path(path).name) for path in args.pred]
    statistics, reference, ahead = _start(
        gold, files, settings, forked, not args.no_cache, args.command == "score"
    )
    predictions = [_load(file, parsed, reference, settings) for file, parsed in ahead]
    outcome: Score | Comparison
    if args.command == "score":
        if len(predictions) != 1:
            raise ScoringError("'score' takes exactly one --pred; use 'compare' for two.")
        outcome = score(reference, predictions[0], settings, statistics)
    else:
        if len(predictions) != 2:
            raise ScoringError("'compare' takes exactly two --pred files.")
        outcome = compare(reference, predictions[0], predictions[1], settings, statistics)
    return outcome, (reference, predictions, ahead)


def _start(
    gold: File,
    files: list[File],
    settings: Settings,
    forked: list[ForkedStatistics],
    use_cache: bool,
    intervals_only: bool,
) -> tuple[Statistics | None, Reference, list[tuple[File, object]]]:
    """The statistics (None: :mod:`scoring.stats` in this process), the reference and each
    prediction read ahead (a ReadAhead, or the error reading it raised)."""
    profile = settings.profile
    where = refcache.folder() if use_cache else None
    name = refcache.key(gold[0], profile) if where is not None else None
    cached = refcache.load(where, name)

    def keep_draws(n: int | None) -> None:  # in the forked process, after the run
        if where is None or not intervals_only or n is None:
            return
        from scoring import stats

        draws = refcache.draws_key(n, settings.n_boot, settings.seed)
        if draws is not None and not refcache.has(where, draws):
            counts = stats.resample_counts(n, settings.n_boot, settings.seed)
            if counts is not None:
                refcache.store(where, draws, counts)

    if cached is not None:
        reference: Reference = cached.renamed(gold[1])
        n = len(reference.ids)
        if intervals_only and where is not None:
            draws_name = refcache.draws_key(n, settings.n_boot, settings.seed)
            draws = refcache.load_draws(where, draws_name, n, settings.n_boot, settings.seed)
            if draws is not None:
                from scoring.resample import PackedStatistics

                return PackedStatistics(draws), reference, _read_ahead(files, profile)
        started = _fork(forked, keep_draws)
        if started is not None:
            started.prepare(n, settings.n_boot, settings.seed)
        return started, reference, _read_ahead(files, profile)

    # A first run: numpy loads in a forked process (the slowest start of all) while this one
    # reads the gold, which it keeps in the cache, and the predictions.
    started = _fork(forked, keep_draws)
    reference = read_reference(*gold)  # the reference's own error comes first
    if started is not None:
        started.prepare(len(reference.ids), settings.n_boot, settings.seed)
    if where is not None and name is not None:
        refcache.store(where, name, refcache.dumps(reference.compact(profile)))
    return started, reference, _read_ahead(files, profile)


def _fork(
    forked: list[ForkedStatistics], after: Callable[[int | None], object]
) -> ForkedStatistics | None:
    from scoring.parallel import ForkedStatistics

    started = ForkedStatistics.start(after)
    if started is not None:
        forked.append(started)
    return started


def _read_ahead(files: list[File], profile: str) -> list[tuple[File, object]]:
    """Read and normalise each prediction file now. A file that cannot be read keeps its
    error, raised by :func:`_load` in the order of an ordinary run."""
    from scoring.dstc11.model import read_ahead

    ahead: list[tuple[File, object]] = []
    for data, name in files:
        try:
            parsed: object = read_ahead(data, name, profile)
        except ScoringError as error:
            parsed = error
        ahead.append(((data, name), parsed))
    return ahead


def _load(file: File, parsed: object, reference: Reference, settings: Settings) -> Prediction:
    if isinstance(parsed, ScoringError):
        raise parsed
    data, name = file
    if isinstance(parsed, ReadAhead) and parsed.profile == settings.profile:
        return load_prediction(
            data,
            reference,
            name,
            settings.missing,
            settings.profile,
            parsed=parsed.parsed,
            normalised=parsed.states,
        )
    return load_prediction(data, reference, name, settings.missing, settings.profile)
