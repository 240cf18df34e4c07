"""The paper tables and the readers' analyses of a phase, each on one board.

Every view here reads the board it shows through ``requested_board``: the live public board,
or a published snapshot once readers may see it, behind the same ``challenges.visibility`` rule
as the leaderboard page (a hidden phase shows nothing before the reveal). Options:
``board=public|final`` (default: the latest snapshot when one is visible, else the public
board) and ``snapshot=N``. A snapshot ranks on the private part of a split: the analyses of a
snapshot read its submissions' per-dialogue statistics of that part, and its frozen labels.

- Paper tables (``table.tex``, ``table.md``, ``analyses.papers``), with ``conditions=a,b``
  and ``metrics=x,y``.
- The pairwise comparison (``pairwise/?a=ID&b=ID``, ``analyses.pairwise``): two entries of
  the board, per condition; the paired test's aggregates only.
- Robustness (``robustness/``, ``analyses.robustness``): each entry's change from the first
  condition, tested.
- The cross-team error analysis (``errors/``, ``analyses.crossteam``): its counts are on the
  whole reference, so readers get it only on a phase without a split (``may_see``);
  organisers always."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.cache import add_never_cache_headers

from leaderboard.analyses import pages
from leaderboard.analyses.crossteam import analyse, may_see
from leaderboard.analyses.pairwise import PairedCondition, PairError, compare, requested_pair
from leaderboard.analyses.papers import TableError, choice, statement, view
from leaderboard.analyses.papers import render as render_table
from leaderboard.analyses.robustness import changes, chart
from leaderboard.challenges.models import Phase
from leaderboard.challenges.visibility import access, phase_or_404
from leaderboard.rankings.board import Leaderboard
from leaderboard.rankings.boards import stored
from leaderboard.rankings.models import Snapshot
from leaderboard.rankings.snapshots import latest, load

#: file suffix -> (format, content type)
SUFFIXES = {"tex": ("latex", "application/x-tex"), "md": ("markdown", "text/markdown")}


@dataclass(frozen=True)
class Shown:
    """A board a reader may see, and the published snapshot it is (None: the live public
    board)."""

    board: Leaderboard
    snapshot: Snapshot | None = None

    def statement(self, phase: Phase) -> str:
        """Which board this is, as every table and export states it (``papers.statement``)."""
        number = None if self.snapshot is None else self.snapshot.number
        return statement(phase.has_split, self.board.part, number)

    def query(self) -> dict[str, str]:
        """The query that asks for this board again (the pairwise form carries it)."""
        if self.snapshot is None:
            return {"board": "public"}
        return {"board": "final", "snapshot": str(self.snapshot.number)}


def shown_board(phase: Phase, user: object, which: str = "", number: int | None = None) -> Shown:
    """The board ``user`` may see: ``public``, ``final`` (a published snapshot, ``number`` or
    the latest) or "" (the latest snapshot if visible, else the public board). Http404 for
    whatever the user may not see, hidden phases before the reveal included."""
    rights = access(phase, user)
    if which not in ("", "public", "final"):
        raise Http404
    if number is not None:
        # A named snapshot is that snapshot or nothing, never another board.
        found = phase.snapshots.filter(number=number).first() if rights.snapshots else None
        if which == "public" or found is None:
            raise Http404
        return Shown(load(found), found)
    if which in ("", "final") and rights.snapshots:
        found = (
            phase.snapshots.filter(number=number).first() if number is not None else latest(phase)
        )
        if found is not None:
            return Shown(load(found), found)
    if which in ("", "public") and rights.board:
        return Shown(stored(phase).board)
    raise Http404


def snapshot_number(params: Mapping[str, str]) -> int | None:
    """The ``snapshot`` a request names (None when it names none); Http404 for a value that
    is not a snapshot's number (``abc``, ``-1``, ``1.5``): it names no board."""
    text = params.get("snapshot")
    if text is None or text == "":
        return None
    if not (text.isascii() and text.isdigit()) or len(text) > 9:
        raise Http404
    return int(text)


def requested_board(phase: Phase, user: Any, params: Mapping[str, str]) -> Shown:
    """The board a request asks for (``board``, ``snapshot``), for every page and API view of
    this module alike (see ``shown_board``): a snapshot that does not exist, or a malformed
    number, is Http404, never another board."""
    return shown_board(phase, user, params.get("board", ""), snapshot_number(params))


def requested_final(phase: Phase, user: Any, params: Mapping[str, str]) -> Shown:
    """The published snapshot a request asks for (``snapshot``, default the latest): a
    shake-up is only on a snapshot's board. Http404 before the reveal (and for a snapshot
    that does not exist)."""
    return shown_board(phase, user, "final", snapshot_number(params))


def _list(text: str | None) -> list[str]:
    return [part.strip() for part in (text or "").split(",") if part.strip()]


def requested_table(phase: Phase, user: Any, params: Mapping[str, str], fmt: str) -> str:
    """The paper table a request asks for (``board``, ``snapshot``, ``conditions``,
    ``metrics``, ``rank_intervals``, ``view``), for the page and the API alike: ``Http404`` when the
    reader may not see that board, ``TableError`` for an option the board does not have or a
    value an option does not take."""
    intervals = choice("rank_intervals", params.get("rank_intervals", ""))
    lines = view(params.get("view", ""))
    shown = requested_board(phase, user, params)
    return render_table(
        shown.board,
        fmt,
        conditions=_list(params.get("conditions")),
        metrics=_list(params.get("metrics")),
        caption=f"{phase.challenge.title}, {phase.name}: {shown.statement(phase)}",
        rank_intervals=intervals,
        view=lines,
    )


def requested_errors(phase: Phase, user: Any, params: Mapping[str, str]) -> Shown:
    """The board of a cross-team error analysis: ``requested_board``'s, when ``may_see``."""
    if not may_see(phase, user):
        raise Http404
    return requested_board(phase, user, params)


def paper_table(request: HttpRequest, slug: str, phase: str, suffix: str) -> HttpResponse:
    if suffix not in SUFFIXES:
        raise Http404
    selected = phase_or_404(slug, phase, request.user)
    fmt, content_type = SUFFIXES[suffix]
    try:
        text = requested_table(selected, request.user, request.GET, fmt)
    except TableError as exc:
        response = HttpResponse(str(exc) + "\n", status=400, content_type="text/plain")
        add_never_cache_headers(response)
        return response
    response = HttpResponse(text, content_type=f"{content_type}; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{slug}-{phase}-table.{suffix}"'
    add_never_cache_headers(response)
    return response


def _entries(board: Leaderboard) -> list[tuple[int, str]]:
    """(submission id, label) of every row of the board, first condition first, once each."""
    seen: dict[int, str] = {}
    for condition in board.conditions:
        for row in condition.rows:
            label = f"{row.team_name}: {row.method_name}" if row.method_name else row.team_name
            seen.setdefault(row.submission_id, label)
    return list(seen.items())


def _context(selected: Phase, shown: Shown) -> dict[str, Any]:
    """What every analysis page says of the board it is on."""
    return {
        "phase": selected,
        "challenge": selected.challenge,
        "snapshot": shown.snapshot,
        "board_note": pages.board_note(selected, shown.snapshot),
        "board_fields": shown.query().items(),
    }


def pairwise(request: HttpRequest, slug: str, phase: str) -> HttpResponse:
    """Two entries of the board compared per condition (``?a=ID&b=ID``, the entries'
    submission ids): the paired test's aggregates only."""
    selected = phase_or_404(slug, phase, request.user)
    shown = requested_board(selected, request.user, request.GET)
    entries = _entries(shown.board)
    a, b = request.GET.get("a", ""), request.GET.get("b", "")
    rows: list[PairedCondition] = []
    error = ""
    if a and b:
        try:
            rows = compare(selected, shown.board, *requested_pair(request.GET))
        except PairError as exc:
            error = str(exc)
    labels = dict(entries)
    context = {
        **_context(selected, shown),
        "entries": entries,
        "options_a": pages.options(entries, int(a) if a.isdigit() else None, -1),
        "options_b": pages.options(entries, int(b) if b.isdigit() else None, 1),
        "label_a": labels.get(int(a)) if a.isdigit() else None,
        "label_b": labels.get(int(b)) if b.isdigit() else None,
        "rows": rows,
        "lines": [(r, pages.p_value(r.p_value, r.significant)) for r in rows],
        "error": error,
        "metric": selected.challenge.scoring_task().metric(selected.challenge.primary),
        "description": (
            f"Two entries of the {selected.name} leaderboard of {selected.challenge.title} "
            "compared with a paired significance test."
        ),
    }
    response = render(request, "analyses/pairwise.html", context, status=400 if error else 200)
    add_never_cache_headers(response)
    return response


def robustness(request: HttpRequest, slug: str, phase: str) -> HttpResponse:
    """Each entry's change from the first condition to every other, with its paired interval
    and a chart of the changes (aggregates only)."""
    selected = phase_or_404(slug, phase, request.user)
    shown = requested_board(selected, request.user, request.GET)
    metric = selected.challenge.scoring_task().metric(selected.challenge.primary)
    first, entries = changes(selected, shown.board)
    context = {
        **_context(selected, shown),
        "metric": metric,
        "first": first,
        "lines": pages.robustness_lines(entries),
        "others": [c.label for c in shown.board.conditions[1:]],
        "charts": {"chart-changes": chart(first, entries, metric.label)} if entries else {},
        "description": (
            f"How the entries of the {selected.name} leaderboard of {selected.challenge.title} "
            "hold up across the test conditions."
        ),
    }
    response = render(request, "analyses/robustness.html", context)
    add_never_cache_headers(response)
    return response


def errors(request: HttpRequest, slug: str, phase: str) -> HttpResponse:
    """The cross-team error analysis of the board (``analyses.crossteam``)."""
    selected = phase_or_404(slug, phase, request.user)
    shown = requested_errors(selected, request.user, request.GET)
    found = analyse(selected, shown.board)
    context = {
        **_context(selected, shown),
        "analysis": found,
        "labels": [c.label for c in found.conditions],
        "rates": pages.slot_rates(found, [(c.key, c.label) for c in found.conditions]),
        "has_counts": any(c.slots or c.domains for c in found.conditions),
        "description": (
            f"The errors the teams of {selected.challenge.title}, {selected.name}, make, slot by "
            "slot and turn by turn."
        ),
    }
    response = render(request, "analyses/errors.html", context)
    add_never_cache_headers(response)
    return response
