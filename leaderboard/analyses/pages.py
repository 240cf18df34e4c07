"""What the analyses' pages say, decided here and printed by their templates
(``analyses/pairwise.html``, ``analyses/robustness.html``, ``analyses/errors.html`` and the note
on the board each is on, ``analyses/_board_note.html``): which board, the cells' text, the
entries' names, the options chosen."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.urls import reverse

from leaderboard import numbers, plotting
from leaderboard.analyses.crossteam import Analysis
from leaderboard.analyses.robustness import Change, EntryChanges


@dataclass(frozen=True)
class BoardNote:
    """Which board an analysis is on: the text, a link (none when ``href`` is ""), the text
    after it."""

    before: str
    href: str
    text: str
    after: str


def board_note(phase: Any, snapshot: Any) -> BoardNote:
    """The published snapshot ``snapshot`` (its entries under the names it shows), or the live
    public board, with a link to the final ranking once one is published."""
    if snapshot is not None:
        part = ", ranked on the private part of the test set" if phase.has_split else ""
        href = reverse(
            "rankings:snapshot", args=(phase.challenge.slug, phase.slug, snapshot.number)
        )
        return BoardNote(
            "On the published final ranking, ",
            href,
            f"snapshot {snapshot.number}",
            f"{part}: its entries, under the names it shows.",
        )
    part = ", ranked on the public part of the test set" if phase.has_split else ""
    live = f"On the live public leaderboard{part}."
    if phase.revealed:
        return BoardNote(f"{live} ", "?board=final", "On the published final ranking", ".")
    return BoardNote(live, "", "", "")


@dataclass(frozen=True)
class Option:
    value: int
    text: str
    selected: bool


def options(
    entries: Sequence[tuple[int, str]], chosen: int | None, default: int
) -> tuple[Option, ...]:
    """The entries as a list's options, ``chosen`` selected, else the entry at index
    ``default`` (B: the second, so that the form compares two entries as it opens)."""
    return tuple(
        Option(key, text, key == chosen if chosen is not None else n == default)
        for n, (key, text) in enumerate(entries)
    )


def p_value(p: float | None, significant: bool) -> str:
    """A paired test's p-value with four decimals, marked when it is significant."""
    text = "—" if p is None else f"{p:.4f}"
    return f"{text} (significant)" if significant else text


def change(found: Change) -> str:
    """A robustness cell: the change with its interval and p-value, or why it has none."""
    if found.note:
        return found.note
    p = numbers.MISSING if found.p_value is None else f"{found.p_value:.4f}"
    return (
        f"{numbers.signed(found.change)} [{numbers.signed(found.low)}, "
        f"{numbers.signed(found.high)}], p = {p}"
    )


@dataclass(frozen=True)
class RobustnessLine:
    entry: EntryChanges
    #: the team, and a baseline's method (a baseline's team names no system)
    name: str
    #: (condition key, the cell's text) per other condition
    changes: tuple[tuple[str, str], ...]


def robustness_lines(entries: Sequence[EntryChanges]) -> tuple[RobustnessLine, ...]:
    """Each entry of the robustness table as its row prints it."""
    return tuple(
        RobustnessLine(
            e,
            f"{e.team_name}: {plotting.baseline_method(e.method_name)}"
            if e.is_baseline
            else e.team_name,
            tuple((c.key, change(c)) for c in e.changes),
        )
        for e in entries
    )


def slot_rates(
    analysis: Analysis, labels: Sequence[tuple[str, str]]
) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """(slot, its error rate on each condition as text) in the analysis's order."""
    return tuple(
        (name, tuple(numbers.score(per.get(key)) for key, _ in labels))
        for name, per in analysis.rates.items()
    )
