"""What a leaderboard is made of, and the queries it is built from.

A phase has two boards: ``public`` (every counted submission, ranked on the public part of the
split) and ``private`` (only each team's final selections, ranked on the private part; shown
to readers only as published snapshots). Without a split both use the whole reference. Only
``current`` Results on the *active* reference count. Anonymous teams are named
"Anonymous team <alias>" on every board, so no page, export or chart built from one shows them.

The columns come from the task's description (``scoring``'s ``Task.describe()``): every
metric reported with an interval, in the task's order, plus optional metrics (seen/unseen JGA)
when some Result on the board has them. The ranked metric is the challenge's primary one, in
its direction; it is moved to the front when it is not among the first two (which the overview
and the charts use).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from django.db.models import BooleanField, ExpressionWrapper, Q, QuerySet

from leaderboard.challenges.models import Challenge, Phase
from leaderboard.challenges.split import PARTS
from leaderboard.submissions.models import Result, Submission, withdrawn
from leaderboard.teams.models import anonymous_label

#: Submissions that never show on a board (nor count among the scored submissions of a row).
HIDDEN_STATUSES = (Submission.Status.INVALID, Submission.Status.CANCELLED)

#: (value, low, high) of one metric
Cell = tuple[float | None, float | None, float | None]


@dataclass(frozen=True)
class Column:
    name: str
    label: str
    #: "higher" or "lower" is better
    direction: str
    primary: bool = False

    @property
    def better(self) -> str:
        return f"{self.direction} is better"


@dataclass(frozen=True)
class Entry:
    """A ranked submission of a team, as every table of a board shows it."""

    rank: int
    #: None for an anonymous team: readers get no id to link its rows by
    team_id: int | None
    team_name: str
    team_slug: str
    submission_id: int
    method_name: str
    #: the method's paper or code and its description ("" for anonymous teams: a paper names
    #: its authors)
    method_url: str
    method_description: str
    is_baseline: bool
    submitted_at: dt.datetime
    #: what the submission declared about its system: declared fact key -> value (the
    #: challenge's declared keys only, ``challenges.facts``)
    facts: dict[str, Any]


@dataclass(frozen=True)
class Row(Entry):
    """A team's best result on one condition."""

    signature: str
    #: the entrant's scored submissions behind this row (those with a score on this
    #: condition); None on snapshots published before it was counted so
    submissions: int | None
    #: ranks this entry is statistically tied with, e.g. "1-2" (see ``groups``)
    group: str = ""
    #: (value, low, high) per column of the board (``Leaderboard.columns``)
    cells: tuple[Cell, ...] = ()
    #: the interval of its rank over the board's resamples of the dialogues (``resampled``);
    #: None when it has no per-dialogue statistics to resample
    rank_low: int | None = None
    rank_high: int | None = None


@dataclass(frozen=True)
class ConditionBoard:
    condition_id: int
    key: str
    label: str
    rows: tuple[Row, ...]
    #: why rank groups are missing, when the primary metric cannot be tested (F1s)
    note: str = ""
    #: the smallest difference in the primary metric (points) the paired test finds at 80%
    #: power, two-sided at 0.05, on this board's dialogues (``resampled``); None: see below
    detectable: float | None = None
    #: why there is no detectable difference ("" when there is one, or none was computed)
    detectable_note: str = ""


@dataclass(frozen=True)
class OverviewRow(Entry):
    """A team's best submission across the conditions."""

    #: condition key -> this submission's values of the board's first two columns
    per_condition: dict[str, tuple[float | None, ...]]
    #: the entrant's scored submissions (with a score on any condition); None on snapshots
    #: published before it was counted so
    submissions: int | None
    #: the first column on the last condition minus on the first (by condition order), in
    #: points: what this submission gains (+) or loses (-) from TTS-Verbatim to
    #: Human-Paraphrased. The tables and the charts show this one number with its sign.
    change: float | None = None
    #: means over the conditions of the board's first two columns
    means: tuple[float | None, ...] = ()
    #: condition key -> (value, low, high) of the board's first two columns
    cells: dict[str, tuple[Cell, ...]] = field(default_factory=dict)
    #: condition key -> this submission's rank group on that condition's board ("" when the
    #: team's row there is another of its submissions, or has no group)
    groups: dict[str, str] = field(default_factory=dict)
    #: the interval of its rank by the mean over the conditions, over the resamples
    #: (``resampled``); None when a condition has no per-dialogue statistics to resample
    rank_low: int | None = None
    rank_high: int | None = None


@dataclass(frozen=True)
class Move:
    """One entry of a final ranking, from the public part of the split to the private part
    (``shakeup``)."""

    submission_id: int
    #: its rank among the same entries by the primary metric on the public part (equal values
    #: share the better rank); None without a public-part score
    public_rank: int | None
    #: its rank on the final (private) board
    private_rank: int
    #: the primary metric on each part (the overview: the means over the conditions)
    public: float | None
    private: float | None

    @property
    def rank_change(self) -> int | None:
        """Places gained from the public ranking to the private one (negative: lost)."""
        return None if self.public_rank is None else self.public_rank - self.private_rank

    @property
    def shift(self) -> float | None:
        """The private-part score minus the public-part one, in points."""
        if self.public is None or self.private is None:
            return None
        return self.private - self.public


@dataclass(frozen=True)
class Shakeup:
    """How far the public-part ranking of a final board's entries predicted their private
    ranking, for the overview (``key`` "overview") or one condition (``shakeup``)."""

    key: str
    label: str
    #: in the final board's order
    moves: tuple[Move, ...]
    #: Kendall's tau-b and Spearman's rho between the two parts' scores, each with its
    #: bootstrap interval over the dialogues of both parts (None: fewer than two entries)
    tau: float | None = None
    tau_low: float | None = None
    tau_high: float | None = None
    rho: float | None = None
    rho_low: float | None = None
    rho_high: float | None = None
    #: the mean of the entries' score shifts (private minus public), in points
    mean_shift: float | None = None
    #: the mean number of places an entry moved (either way)
    mean_rank_change: float | None = None


@dataclass(frozen=True)
class Leaderboard:
    phase_id: int
    primary_metric: str
    conditions: tuple[ConditionBoard, ...]
    #: ``public`` or ``private``
    part: str
    overview: tuple[OverviewRow, ...]
    #: Plotly figures (data and layout) keyed by chart id, built once with the board
    charts: dict[str, Any] = field(default_factory=dict)
    #: figures reported elsewhere that the organisers show (unranked, "not scored here")
    reported: tuple[dict[str, Any], ...] = ()
    #: the runs and teams the organisers withdrew with a public reason (``Withdrawal``):
    #: ``{"team", "method" (empty: the whole team), "reason"}``
    withdrawn: tuple[dict[str, Any], ...] = ()
    #: the phase's ``board_version`` this board was built for (empty for snapshots)
    version: str = ""
    #: the metrics shown, primary flagged
    columns: tuple[Column, ...] = ()
    task: str = ""
    #: a private board of a phase with a split: the shake-up from the public part, the
    #: overview's first, then each condition's (``shakeup``)
    shakeups: tuple[Shakeup, ...] = ()
    #: why a final board has no shake-up ("" when it has one, and on a public board)
    shakeup_note: str = ""
    #: the public board of a phase with the Ladder: each row's primary score is the one the
    #: Ladder shows (``rankings.ladder``)
    ladder: bool = False
    #: the challenge's declared system facts (``Fact.data()``), in order: the rows' fact
    #: columns, the filters and the charts against a number
    facts: tuple[dict[str, Any], ...] = ()


def team_label(team: Any) -> tuple[str, str]:
    """(name, slug) as boards show them: anonymous teams get a neutral label and no slug."""
    if team.anonymous:
        return team.anonymous_label, ""
    return team.name, team.slug


class Counted(NamedTuple):
    """A Result a board counts, as the board reads it: values, not model instances (one query
    for every Result of a board, ``counted_values``). What its rows show of its submission and
    team, and its figures on the board's part of the split."""

    pk: int
    condition_id: int
    submission_id: int
    team_id: int
    team_name: str
    team_slug: str
    anonymous: bool
    alias: str
    method_name: str
    url: str
    method_description: str
    is_baseline: bool
    submitted_at: dt.datetime
    #: the submission's declared facts (``Submission.facts``), declared keys only
    facts: dict[str, Any]
    signature: str
    #: every metric on the whole reference (which columns a board shows: ``columns``)
    metrics: dict[str, Any]
    #: its reference, and its primary metric's per-dialogue statistics as stored
    #: (``Result.primary_ratios``, decoded by ``dialogues.part_dialogues``)
    reference_id: int
    statistics: bytes | memoryview
    #: metric -> value, and metric -> [low, high], on the board's part of the split
    values: dict[str, Any]
    intervals: dict[str, Any]
    #: its submission is the run its team chose for the public board
    #: (``Submission.shown_on_public``) and did not fail; whether the board ranks the choice
    #: is the phase's (``Phase.public_run_chosen``, ``compute``)
    chosen: bool = False

    def cell(self, metric: str) -> Cell:
        """(value, low, high) of ``metric`` on the board's part of the split."""
        low, high = (self.intervals.get(metric) or [None, None])[:2]
        return self.values.get(metric), low, high

    @property
    def entrant(self) -> tuple[int, str]:
        """Who a board row stands for (``entrant``)."""
        return (self.team_id, self.method_name if self.is_baseline else "")


_COUNTED_FIELDS = (
    "pk",
    "condition_id",
    "submission_id",
    "submission__team_id",
    "submission__team__name",
    "submission__team__slug",
    "submission__team__anonymous",
    "submission__team__alias",
    "submission__method_name",
    "submission__url",
    "submission__method_description",
    "submission__is_baseline",
    "submission__created_at",
    "submission__facts",
    "signature",
    "metrics",
)


def counted_values(phase: Phase, part: str, only: Iterable[int] | None = None) -> list[Counted]:
    """Every Result a board of ``part`` counts (``counted``), oldest first, in one query that
    reads only the figures of the board's part of the split (``split_part``), with its stored
    statistics: the one read of a board's Results."""
    which = split_part(phase, part)
    figures = "intervals" if which is None else f"part_metrics__{which}"
    # the team's choice of its public run, read in the same query (a failed run is never shown)
    chosen = ExpressionWrapper(
        Q(submission__shown_on_public=True) & ~Q(submission__status=Submission.Status.FAILED),
        output_field=BooleanField(),
    )
    rows = (
        counted(phase, only)
        .annotate(chosen=chosen)
        .order_by("created_at", "pk")
        .values_list(*_COUNTED_FIELDS, "reference_id", "primary_ratios", figures, "chosen")
    )
    declared = [f.key for f in phase.challenge.facts()]
    found = []
    for *fields, metrics, reference_id, data, stored, choice in rows:
        given = fields[-2] or {}
        fields[-2] = {key: given[key] for key in declared if key in given}
        metrics = metrics or {}
        if which is None:
            values, intervals = metrics, stored or {}
        else:
            stored = stored or {}
            values, intervals = stored.get("metrics") or {}, stored.get("intervals") or {}
        row = (*fields, metrics, reference_id, data, values, intervals, bool(choice))
        found.append(Counted._make(row))
    return found


#: A Result a board shows in a condition's table, with its rank there.
Ranked = tuple[Counted, int]


def ranking_key(challenge: Challenge) -> Callable[[Counted], tuple[Any, ...]]:
    """The order of a condition's table, best first: the primary metric, then the
    tie-breaking metric, each in its direction (undefined last), then the earlier submission,
    then the lower submission id; on the board's part of the split (``Counted.values``)."""
    direction = {m.name: m.direction for m in challenge.scoring_task().metrics}
    signs = [
        (metric, 1.0 if direction[metric] == "lower" else -1.0)
        for metric in (challenge.primary, challenge.tiebreak)
    ]

    def key(found: Counted) -> tuple[Any, ...]:
        keys: list[Any] = []
        for metric, sign in signs:
            value = found.values.get(metric)
            keys.append((value is None, sign * (value or 0.0)))
        return (*keys, found.submitted_at, found.submission_id)

    return key


def entry(rank: int, found: Counted) -> dict[str, Any]:
    """The :class:`Entry` fields of the Result ``found`` ranked ``rank``: an anonymous team's
    by its label, without id, slug, method address or description."""
    anonymous = found.anonymous
    return {
        "rank": rank,
        "team_id": None if anonymous else found.team_id,
        "team_name": anonymous_label(found.alias) if anonymous else found.team_name,
        "team_slug": "" if anonymous else found.team_slug,
        "submission_id": found.submission_id,
        "method_name": found.method_name,
        "method_url": "" if anonymous or not _is_web(found.url) else found.url,
        "method_description": "" if anonymous else found.method_description,
        "is_baseline": found.is_baseline,
        "submitted_at": found.submitted_at,
        "facts": found.facts,
    }


def entrant(submission: Submission) -> tuple[int, str]:
    """Who a board row stands for: a team (its best submission), or, for a baseline, the
    team's baseline method of that name, so several baselines each have their own row."""
    return (submission.team_id, submission.method_name if submission.is_baseline else "")


def _is_web(url: str) -> bool:
    """Whether ``url`` may be a link on a page: http(s) only, whatever stored it."""
    return url.lower().startswith(("https://", "http://"))


def split_part(phase: Phase, part: str) -> str | None:
    """The part of the split whose numbers ``part``'s board ranks; None: the whole
    reference (no split)."""
    if part not in PARTS:
        raise ValueError(f"unknown leaderboard part {part!r}")
    return part if phase.has_split else None


def prefix(phase: Phase, part: str) -> str:
    """Column prefix of ``part``'s typed ranking columns: ``public_``/``private_`` with a
    split, else none."""
    found = split_part(phase, part)
    return f"{found}_" if found else ""


def counted(phase: Phase, only: Iterable[int] | None = None) -> QuerySet[Result]:
    """The Results a board of ``phase`` ranks: current, on active references, of submissions
    that count and that no organiser withdrew (``only``: of these submissions only)."""
    rows = (
        Result.objects.filter(submission__phase=phase, reference__active=True, current=True)
        .exclude(submission__status__in=HIDDEN_STATUSES)
        .exclude(withdrawn(phase))
    )
    if only is not None:
        rows = rows.filter(submission_id__in=list(only))
    return rows


def columns(challenge: Challenge, stored: Iterable[dict[str, Any] | None]) -> tuple[Column, ...]:
    """The metrics a board of ``challenge`` shows, given the ``metrics`` of its Results."""
    primary = challenge.primary
    present: set[str] = set()
    for metrics in stored:
        present.update(k for k, v in (metrics or {}).items() if v is not None)
    shown = [
        m
        for m in challenge.scoring_task().metrics
        if (m.interval or m.name == primary) and (not m.optional or m.name in present)
    ]
    # The overview and the charts use the first two columns: the primary metric must be one.
    at = next((i for i, m in enumerate(shown) if m.name == primary), 0)
    if at >= 2:
        shown.insert(0, shown.pop(at))
    return tuple(Column(m.name, m.label, m.direction, m.name == primary) for m in shown)


def cell(result: Result, metric: str, part: str | None) -> Cell:
    """(value, low, high) of ``metric`` for ``result`` on ``part`` of the split (None: the
    whole reference)."""
    values, intervals = result.part(part)
    low, high = (intervals.get(metric) or [None, None])[:2]
    return values.get(metric), low, high
