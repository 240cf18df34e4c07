"""Building the stored boards: the one writer of ``Board``, run by a worker's task.

A change to what a phase's boards show increments its ``board_version`` in the transaction of
the change (``Phase.changed``); once committed, ``request`` sends the phase's build task
(``tasks.build_boards``, on the boards' queue: ``leaderboard.background``), unless a worker
holds one of the phase's boards now: that worker looks at the phase's version again after it
lets go (``build``), so a change committed while it held the board is never missed, and a burst
of changes costs a few builds, not one each. The task claims each board with a conditional
UPDATE (a lease, as a worker claims a submission) while the stored version is behind the
phase's, builds it, stores it and lets go in one UPDATE, and reads the phase and its boards
again; a task whose boards are current, or held by another worker, does nothing, so sending
one twice is harmless. While it builds, a heartbeat thread renews the lease every third of
``LEASE_SECONDS`` (``leaderboard.leases``, the mechanism of the scoring claim), so a build may
take as long as it takes without another worker taking the board over.
A task lost with the broker, or a worker that died holding a board (its lease runs out within
``LEASE_SECONDS``), is made good by ``resend``, which beat runs with the lease reaper.

Which boards a phase has (``kinds``): the public one, and the private one (each team's final
selections, ranked on the private part) once the organisers may need it: when the phase has a
private board (hidden results or a split) or has closed (the reveal publishes it). The close
is the phase's recorded ``closed`` (beat's ``close_phases`` records it and moves the phase's
version, so the private board is built because the data changed), never the clock.
"""

from __future__ import annotations

import datetime as dt
import logging
import secrets
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from leaderboard.background import BUILD_BOARDS
from leaderboard.celery import send
from leaderboard.challenges.models import Phase
from leaderboard.leases import Heartbeat
from leaderboard.rankings.compute import compute, draws_for
from leaderboard.rankings.models import Board
from leaderboard.rankings.serialised import serialise
from scoring.stats import Draws

log = logging.getLogger(__name__)

#: How long a worker's claim on a board lasts; its heartbeat renews it every third of it while
#: it builds, so past it the builder is gone and another worker may take the board over.
LEASE_SECONDS: float = 30


def kinds(phase: Phase) -> tuple[str, ...]:
    """The boards ``phase`` has: the public one, and the private one when the phase has a
    private board or its close was recorded (``Phase.closed``)."""
    if phase.has_private_board or phase.closed:
        return (Board.Kind.PUBLIC, Board.Kind.PRIVATE)
    return (Board.Kind.PUBLIC,)


# --- asking for a build ---------------------------------------------------------------------


def request(phase_ids: Iterable[int]) -> None:
    """Send the build task of each phase, unless a worker holds one of its boards now (it
    looks again when it lets go). Runs once a change has committed (``board_changed``)."""
    ids = list(phase_ids)
    held = set(
        Board.objects.filter(phase_id__in=ids, lease_until__gt=timezone.now()).values_list(
            "phase_id", flat=True
        )
    )
    for phase_id in ids:
        if phase_id not in held:
            send(BUILD_BOARDS, phase_id)


def on_board_changed(sender: Any, phase_ids: Iterable[int], **kwargs: Any) -> None:
    """The receiver of ``challenges.models.board_changed``: never raises into the commit of
    the change (the change is stored; ``resend`` makes up for a build not asked for)."""
    try:
        request(phase_ids)
    except Exception:
        log.exception("could not ask for the boards of phases %s to be built", list(phase_ids))


def resend(now: dt.datetime | None = None) -> list[int]:
    """Send the build task of every phase with a board behind its version (or never built)
    that no worker holds: a task lost with the broker, a worker that died while building.
    Periodic (beat). Returns the phases sent."""
    now = now or timezone.now()
    boards = {
        (phase_id, kind): (version, lease)
        for phase_id, kind, version, lease in Board.objects.values_list(
            "phase_id", "kind", "version", "lease_until"
        )
    }
    sent = []
    for phase in Phase.objects.all():
        for kind in kinds(phase):
            version, lease = boards.get((phase.pk, kind), (None, None))
            if version != phase.board_version and (lease is None or lease <= now):
                send(BUILD_BOARDS, phase.pk)
                sent.append(phase.pk)
                break
    return sent


# --- building (the worker) ------------------------------------------------------------------


#: How long one task goes on building a board that keeps changing before it lets the other
#: tasks of its queue go first (it sends the phase's build task again).
TURN_SECONDS = 60


def build(phase_id: int) -> int:
    """Build every board of the phase that is behind its version and that no other worker
    holds; returns the number of boards built. Each round reads the phase and its boards once
    and passes the rows down; after letting go of its boards it reads them again, on purpose:
    a change committed while it held them sent no task (``request``). Its boards, and every
    board built again in its turn, share one set of the bootstrap's draws (``Draws``): each
    number of dialogues is drawn once a task."""
    built = 0
    draws: Draws | None = None
    until = time.monotonic() + TURN_SECONDS
    while True:
        phase = Phase.objects.select_related("challenge").filter(pk=phase_id).first()
        if phase is None:
            return built
        boards = _boards(phase_id)
        now = timezone.now()
        behind = [
            (kind, boards.get(kind))
            for kind in kinds(phase)
            if kind not in boards or _free_and_behind(boards[kind], phase.board_version, now)
        ]
        if not behind:
            return built  # current, or held by a worker that looks again when it lets go
        if built and time.monotonic() >= until:
            send(BUILD_BOARDS, phase_id)  # still changing: the next turn is a task of its own
            return built
        draws = draws_for(phase, draws)
        for kind, row in behind:
            pk = row.pk if row is not None else _row(phase_id, kind)
            built += _build(phase, kind, pk, draws)


@dataclass(frozen=True)
class _Stored:
    """What a build needs of a board's row: its key, the version it holds, its lease."""

    pk: int
    version: int | None
    lease_until: dt.datetime | None


def _boards(phase_id: int) -> dict[str, _Stored]:
    """The phase's board rows by kind, in one read."""
    return {
        kind: _Stored(pk, version, lease)
        for pk, kind, version, lease in Board.objects.filter(phase_id=phase_id).values_list(
            "pk", "kind", "version", "lease_until"
        )
    }


def _free_and_behind(row: _Stored, version: int, now: dt.datetime) -> bool:
    return row.version != version and (row.lease_until is None or row.lease_until <= now)


def _build(phase: Phase, kind: str, pk: int, draws: Draws) -> int:
    """Claim the phase's ``kind`` board (row ``pk``) while it is behind ``phase``'s version,
    build it once on the task's ``draws`` (``compute`` makes new ones if the challenge's
    resampling changed meanwhile), store it and let go; 1 when built, 0 when another worker
    holds it or built it since ``phase`` was read."""
    version = phase.board_version
    token = _claim(pk, version)
    if token is None:
        return 0
    lease = dt.timedelta(seconds=LEASE_SECONDS)

    def renew(held: str) -> str | None:
        return Board.renew(pk, held, lease)

    try:
        with Heartbeat(renew, token, lease, f"the {kind} board of phase {phase.pk}") as beat:
            started = time.monotonic()
            data = Board.pack(serialise(compute(phase, kind, draws=draws), charts=True))
            seconds = time.monotonic() - started
        # Not stored when another worker took the board over (the heartbeat may have found out).
        return int(not beat.lost and _store(pk, token, version, data, seconds))
    except BaseException:
        Board.objects.filter(pk=pk, builder=token).update(lease_until=None, builder="")
        raise


def _row(phase_id: int, kind: str) -> int:
    """The board's row, created (empty) on its first build (``build`` found none)."""
    try:
        with transaction.atomic():
            return int(Board.objects.create(phase_id=phase_id, kind=kind).pk)
    except IntegrityError:  # another worker created it meanwhile
        return int(Board.objects.get(phase_id=phase_id, kind=kind).pk)


def _claim(pk: int, version: int | None = None) -> str | None:
    """Take the board for this worker (a conditional UPDATE): its token, or None when another
    worker holds it, or (given the phase's ``version``) already stored that version."""
    token = secrets.token_hex(8)
    now = timezone.now()
    free = Q(lease_until__isnull=True) | Q(lease_until__lte=now)
    lease = now + dt.timedelta(seconds=LEASE_SECONDS)
    rows = Board.objects.filter(free, pk=pk)
    if version is not None:
        rows = rows.exclude(version=version)
    claimed = rows.update(lease_until=lease, builder=token)
    return token if claimed else None


def _store(pk: int, token: str, version: int, data: bytes, seconds: float) -> bool:
    """Store a built board and let go of it, if this worker still holds the row (its
    heartbeat renews the lease, ``_build``)."""
    return bool(
        Board.objects.filter(pk=pk, builder=token).update(
            version=version,
            data=data,
            built_at=timezone.now(),
            build_seconds=seconds,
            lease_until=None,
            builder="",
        )
    )
