"""Reveal: publish a phase's private leaderboard as an immutable, numbered snapshot.

The snapshot stores the board's rows as JSON (no references to Results), so a later re-score,
a new reference version or a change of selections never changes what was published. Another
reveal publishes a new snapshot; the history stays listed under the phase.

What is published is the phase's stored private board (``rankings.boards``; its worker keeps
it up to date), never one computed in the request. Before publishing, the organiser previews
it (``preview``): the same data, loaded back as a published snapshot is, under a fingerprint.
Publishing with that fingerprint publishes exactly what was previewed, or nothing when the
board has changed since, or when the phase has changed since the board was built (its worker
is building the new one: the organiser previews again a few seconds later).

Team labels are frozen as the board showed them at the reveal (an anonymous team's alias, no
slug), with one exception readers always get (``shown_data``): a team that is anonymous now is
shown by its anonymous label in every snapshot too, so no page pairs its name with the same
submissions under its label."""

from __future__ import annotations

import copy
import hashlib
import json
from dataclasses import dataclass
from typing import Any

import orjson
from django.db import transaction
from django.db.models import Max

from leaderboard.challenges import audit
from leaderboard.challenges.models import Phase
from leaderboard.rankings.board import Leaderboard
from leaderboard.rankings.boards import Stored, stored
from leaderboard.rankings.models import Board, Snapshot
from leaderboard.rankings.serialised import from_data, serialise
from leaderboard.teams.models import Team


class RevealError(ValueError):
    """The phase cannot be revealed now; the message is safe to show the organiser."""


def fingerprint(data: dict[str, Any]) -> str:
    """The sha256 of a serialised board: equal fingerprints, equal published boards. Computed
    by the preview and again by the reveal, never stored; the standard library's encoder with
    sorted keys, as always, so the data of a snapshot published before has the fingerprint it
    had (its rows of format 2 or 1, the board's now of format 3)."""
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), allow_nan=True)
    return hashlib.sha256(text.encode()).hexdigest()


def publishable(board: Leaderboard) -> dict[str, Any]:
    """``board`` as a snapshot stores it: serialised (the stored boards' form,
    ``rankings.serialised``), through JSON as the boards are stored, without charts."""
    return dict(orjson.loads(orjson.dumps(serialise(board))))


@dataclass(frozen=True)
class Preview:
    """The private board as the next reveal would publish it, loaded back as a snapshot is."""

    board: Leaderboard
    #: its fingerprint, for ``reveal(expected=...)``; "" when it cannot be published now
    fingerprint: str
    #: the stored private board it comes from
    stored: Stored

    @property
    def ready(self) -> bool:
        """Built, and built from the phase's current version."""
        return self.stored.built and not self.stored.behind


def preview(phase: Phase) -> Preview:
    """The stored private board of ``phase`` as the next reveal would publish it."""
    found = stored(phase, Board.Kind.PRIVATE)
    data = publishable(found.board)
    ready = found.built and not found.behind
    return Preview(from_data(data), fingerprint(data) if ready else "", found)


def _not_ready(phase: Phase) -> RevealError:
    return RevealError(
        f"The private leaderboard of {phase.name} is being brought up to date (something it "
        "shows changed moments ago): nothing was published. Preview it again in a few seconds."
    )


def shown_data(snapshot: Snapshot) -> dict[str, Any]:
    """The stored data, with the label of each team that is anonymous now in place of a name
    the snapshot froze before it turned anonymous."""
    data = copy.deepcopy(snapshot.data)
    if "entries" in data:  # format 3: each entry's facts once
        rows = list(data["entries"].values())
    else:
        rows = [r for c in data["conditions"] for r in c["rows"]] + list(data["overview"])
    # by slug, which a restore onto another site keeps (ids change); a frozen label has none
    slugs = {r["team_slug"] for r in rows if r["team_slug"]}
    hidden = {t.slug: t for t in Team.objects.filter(anonymous=True, slug__in=slugs)}
    for r in rows:
        if r["team_slug"] in hidden:
            r["team_name"] = hidden[r["team_slug"]].anonymous_label
            r["team_slug"] = ""
            r["team_id"] = None
    return data


def load(snapshot: Snapshot) -> Leaderboard:
    """The published board, with charts, as stored (team labels as ``shown_data``)."""
    return from_data(shown_data(snapshot))


def reveal(phase: Phase, user: Any, expected: str | None = None) -> Snapshot:
    """Organiser action: publish the stored private board as a snapshot, when it was built
    from the phase's current version; with ``expected`` (a ``preview``'s fingerprint), only
    when it is still the board previewed."""
    if not phase.challenge.is_organised_by(user):
        raise RevealError("Only an organiser of this challenge can reveal its results.")
    if phase.state in ("upcoming", "open"):
        raise RevealError(f"{phase.name} is still {phase.state}; reveal it after it closes.")
    found = stored(phase, Board.Kind.PRIVATE)
    if not found.built or found.behind:
        raise _not_ready(phase)
    data = publishable(found.board)
    if expected is not None and fingerprint(data) != expected:
        raise RevealError(
            f"The private leaderboard of {phase.name} changed since your preview (a re-score, "
            "a final selection or a reference change): nothing was published. Check the "
            "preview again before publishing."
        )
    with transaction.atomic():
        locked = Phase.objects.select_for_update().get(pk=phase.pk)
        if locked.board_version != found.version:
            raise _not_ready(phase)
        number = (locked.snapshots.aggregate(n=Max("number"))["n"] or 0) + 1
        snapshot = Snapshot.objects.create(
            phase=locked, number=number, data=data, published_by=user
        )
        Phase.objects.filter(pk=phase.pk).update(revealed=True)
        Phase.changed(phase.pk)
        audit.record(
            phase.challenge, "revealed", actor=user, phase=phase,
            subject=f"snapshot {number}", after={"snapshot": number},
        )  # fmt: skip
    phase.revealed = True
    return snapshot


def latest(phase: Phase) -> Snapshot | None:
    return phase.snapshots.order_by("-number").first()
