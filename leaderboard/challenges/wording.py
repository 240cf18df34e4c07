"""What the challenge pages say about a phase, decided here so that the templates only print
it: each function returns the sentences and CSS classes for one piece of a page."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.timesince import timeuntil

if TYPE_CHECKING:
    from scoring.taskapi import MetricSpec


class Dated(Protocol):
    """What ``phase_notes`` reads of a phase (``challenges.models.Phase``, which imports this
    module for its ``notes``)."""

    opens_at: dt.datetime
    closes_at: dt.datetime
    post_challenge: bool

    @property
    def state(self) -> str: ...

    @property
    def has_private_board(self) -> bool: ...


@dataclass(frozen=True)
class Note:
    """A short remark printed as ``<span class="{css}">{text}</span>`` (``text`` is escaped
    unless it is a ``SafeString``)."""

    css: str
    text: str


def phase_notes(phase: Dated, now: dt.datetime | None = None) -> list[Note]:
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


#: (field of the challenge's pages, or None for a section always shown; anchor; label), in
#: the order of the challenge page's sections.
SECTIONS = (
    ("description", "page-description", "Overview"),
    (None, "announcements-heading", "Announcements"),
    (None, "phases-heading", "Phases"),
    (None, "page-data", "Data"),
    ("evaluation", "page-evaluation", "Evaluation"),
    (None, "rules-heading", "Rules"),
    ("terms", "page-terms", "Terms"),
)


def page_nav(pages: dict[str, str]) -> list[dict[str, str]]:
    """The challenge page's table of contents: every section it shows (an organisers' page
    only when it has text)."""
    return [
        {"anchor": anchor, "label": label}
        for field, anchor, label in SECTIONS
        if field is None or field in pages
    ]


def quota_text(daily: int | None, total: int | None, partial: bool) -> str:
    """A phase's submission limits in its row of the phases table."""
    text = f"{daily or 'no limit'} per day, {total or 'no limit'} in total"
    return text + ("; partial submissions accepted" if partial else "")


def phase_links(phase: Any, signed_in: bool) -> list[dict[str, str]]:
    """The links of a phase's row: its leaderboard, its final ranking once revealed, and for
    a signed-in reader their submissions and, while it is open, the upload form."""
    args = [phase.challenge.slug, phase.slug]
    links = [{"url": reverse("rankings:leaderboard", args=args), "label": "Leaderboard"}]
    if phase.state == "revealed":
        links.append({"url": reverse("rankings:snapshots", args=args), "label": "Final ranking"})
    if signed_in:
        links.append({"url": reverse("submissions:mine", args=args), "label": "My submissions"})
        if phase.state == "open":
            links.append({"url": reverse("submissions:submit", args=args), "label": "Submit"})
    return links


def registration_rule(registration: str) -> SafeString:
    """How a team's registration for the challenge is decided."""
    if registration == "approval":
        return mark_safe(
            "Registration needs an organiser's approval: an organiser approves each team before "
            "it can submit."
        )
    return mark_safe("Registration is automatic: a registered team can submit at once.")


#: A team's registration as the challenge page says it; a team without one gets a button.
REGISTRATION_STATES = {
    "approved": "registered",
    "pending": "registered, waiting for an organiser's approval",
    "rejected": "registration declined",
}


def registration_state(status: str | None) -> SafeString:
    """One of the reader's teams' registration (empty when it has none)."""
    return mark_safe(REGISTRATION_STATES.get(status or "", ""))


def ranking_rule(primary: MetricSpec, tiebreak: MetricSpec) -> SafeString:
    """How the challenge ranks its teams, with which direction of each metric is better."""
    return format_html(
        "Ranked by {} ({} is better); ties are broken by {} ({} is better); each team's best "
        "submission counts. Scores come with 95% bootstrap confidence intervals over dialogues.",
        primary.label,
        primary.direction,
        tiebreak.label,
        tiebreak.direction,
    )
