"""Reading the stored boards: pages, the API and the exports show a phase's board as its worker
last built it (``Board``, written by ``builds`` only), and never compute one.

``state`` is what a reader knows without loading the board (one query): the version it was
built from, when, and whether the phase has changed since (a newer board is on its way).
``stored`` adds the board itself, decoded once per process and version: ``_decoded`` is a small
least-recently-used map keyed by the row, its version and its build time, so it never needs
invalidating. A
phase whose board was never built (a new phase, before its worker's first build) reads as an
empty board of its conditions, marked so, not as an error.
"""

from __future__ import annotations

import datetime as dt
import threading
from collections import OrderedDict
from dataclasses import dataclass, replace

from leaderboard.challenges.models import Phase
from leaderboard.rankings.board import ConditionBoard, Leaderboard, columns
from leaderboard.rankings.models import Board
from leaderboard.rankings.serialised import from_data

#: Decoded boards a process keeps (each a few MB at 500 teams).
KEPT = 8


@dataclass(frozen=True)
class State:
    """A stored board as a reader sees it before loading it."""

    phase_id: int
    kind: str
    #: the row (None: no row yet)
    pk: int | None
    #: the phase's ``board_version`` the board was built from (None: never built)
    version: int | None
    built_at: dt.datetime | None
    #: the phase has changed since the board was built: a newer one is on its way
    behind: bool

    @property
    def built(self) -> bool:
        return self.version is not None

    @property
    def identity(self) -> str:
        """What tells this stored board from any other (validators and keys use it): its row,
        version and build time, so a database restored to an older state or a row made again
        after a rolled-back one is never taken for a board seen before."""
        when = self.built_at.timestamp() if self.built_at else ""
        return f"{self.pk}:{self.version}:{when}"


@dataclass(frozen=True)
class Stored(State):
    """A stored board with the board itself (empty when none was built yet)."""

    board: Leaderboard


def state(phase: Phase, kind: str = Board.Kind.PUBLIC) -> State:
    """The stored board of ``phase`` (loaded by the request, ``board_version`` included)
    without its data."""
    row = (
        Board.objects.filter(phase_id=phase.pk, kind=kind)
        .values_list("pk", "version", "built_at")
        .first()
    )
    pk, version, built_at = row if row is not None else (None, None, None)
    return State(phase.pk, kind, pk, version, built_at, _behind(phase, version))


def stored(phase: Phase, kind: str = Board.Kind.PUBLIC, known: State | None = None) -> Stored:
    """The stored board of ``phase`` (``known``: its ``state``, when the caller has it). A
    board built after ``known`` was read is newer, never older: its own version is reported."""
    known = known if known is not None else state(phase, kind)
    found = _kept(known.identity) if known.built else None
    if found is None and known.built and known.pk is not None:  # built: its row is there
        row = Board.objects.filter(pk=known.pk).values_list("version", "built_at", "data").first()
        if row is not None and row[0] is not None:
            version, built_at, data = row
            assert data is not None  # a board's data is written with its version
            found = replace(from_data(Board.unpack(data)), version=str(version))
            known = replace(
                known, version=version, built_at=built_at, behind=_behind(phase, version)
            )
            _keep(known.identity, found)
    if found is None:
        return Stored(**vars(known), board=empty(phase, kind))
    return Stored(**vars(known), board=found)


def empty(phase: Phase, kind: str = Board.Kind.PUBLIC) -> Leaderboard:
    """The board of a phase whose board was never built: its conditions, no rows."""
    challenge = phase.challenge
    return Leaderboard(
        phase_id=phase.pk,
        primary_metric=challenge.primary,
        conditions=tuple(
            ConditionBoard(c.pk, c.key, c.label, ())
            for c in phase.conditions.order_by("order", "key")
        ),
        part=kind,
        overview=(),
        columns=columns(challenge, []),
        task=challenge.task,
    )


def _behind(phase: Phase, version: int | None) -> bool:
    return version is None or version < phase.board_version


_decoded: OrderedDict[str, Leaderboard] = OrderedDict()
_lock = threading.Lock()


def _kept(identity: str) -> Leaderboard | None:
    with _lock:
        found = _decoded.get(identity)
        if found is not None:
            _decoded.move_to_end(identity)
        return found


def _keep(identity: str, board: Leaderboard) -> None:
    with _lock:
        _decoded[identity] = board
        while len(_decoded) > KEPT:
            _decoded.popitem(last=False)
