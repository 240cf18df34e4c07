"""What the challenge pages say about a phase, decided here so that the templates only print
it: each function returns the sentences and CSS classes for one piece of a page."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.utils.safestring import mark_safe
from django.utils.timesince import timeuntil

if TYPE_CHECKING:
    from leaderboard.challenges.models import Phase


@dataclass(frozen=True)
class Note:
    """A short remark printed as ``<span class="{css}">{text}</span>`` (``text`` is escaped
    unless it is a ``SafeString``)."""

    css: str
    text: str


def phase_notes(phase: Phase, now: dt.datetime | None = None) -> list[Note]:
    """The remarks after a phase's state: how long until it opens or closes, that its final
    ranking is still to come, and whether it is a post-challenge phase."""
    notes = []
    state = phase.state
    if state == "open":
        notes.append(Note("countdown", f"(closes in {timeuntil(phase.closes_at, now)})"))
    elif state == "upcoming":
        notes.append(Note("countdown", f"(opens in {timeuntil(phase.opens_at, now)})"))
    elif state == "closed" and phase.has_private_board:
        notes.append(Note("countdown", "(final ranking not published yet)"))
    if phase.post_challenge:
        notes.append(
            Note(
                "post-challenge",
                mark_safe(
                    "(post-challenge: submitted after the reveal, not part of the challenge's "
                    "results)"
                ),
            )
        )
    return notes
