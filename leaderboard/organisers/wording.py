"""What the organiser dashboard says of the queue, the workers and each phase, decided here so
that its template only prints it (tests/leaderboard/organiser/test_wording.py works each
branch by hand). Sentences with markup are ``SafeString``: their values escaped."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from django.urls import reverse
from django.utils import dateformat, timezone
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.text import capfirst

if TYPE_CHECKING:
    from leaderboard.challenges.models import Phase
    from leaderboard.submissions.models import Withdrawal


def plural(count: int, one: str, many: str) -> str:
    return one if count == 1 else many


def oldest_queued(age: dt.timedelta | None) -> str:
    """How long the oldest queued submission has waited, in whole seconds (a dash: none)."""
    if age is None:
        return "—"
    return f"{int(age.total_seconds() + 0.5)} s"


def refused_text(refused: Sequence[tuple[str, str, int]]) -> str:
    """Per phase and condition, how many submissions its active reference refuses."""
    if not refused:
        return "none"
    return "; ".join(
        f"{phase} / {condition}: {n} {plural(n, 'submission', 'submissions')} the active "
        "version does not score"
        for phase, condition, n in refused
    )


def workers_text(alive: int, last: dt.datetime | None) -> SafeString:
    """How many workers are alive; with none, since when and what it means for uploads."""
    if alive:
        return format_html("{}", alive)
    since = (
        format_html(
            ' (last <time datetime="{}">{}</time>)',
            dateformat.format(timezone.localtime(last), "c"),
            dateformat.format(timezone.localtime(last), "j M Y H:i:s"),
        )
        if last
        else ""
    )
    return format_html(
        "<strong>none</strong>: no worker has sent a heartbeat for a minute{}; uploads wait in "
        "the queue until one runs",
        since,
    )


def scheduler_text(silence: str) -> SafeString:
    """Whether the scheduler runs; when not, for how long and what stops meanwhile."""
    if not silence:
        return format_html("{}", "running")
    return format_html(
        "<strong>{}</strong>: lost queue messages are not sent again and the leases of stopped "
        "workers are not reaped until it runs (one beat process per site)",
        capfirst(silence),
    )


def phase_summary(phase: Phase) -> str:
    """A phase's results visibility, split and final selections in one sentence."""
    if phase.revealed:
        text = "Results revealed (the private leaderboard is published)"
    else:
        text = f"Results {phase.get_results_visibility_display()}"
    if phase.has_split:
        text += (
            f"; public part {round(phase.split_fraction * 100)}% of the dialogues "
            f"(seed {phase.split_seed})"
        )
    if phase.has_private_board:
        n = phase.max_final_selections
        text += f"; up to {n} final {plural(n, 'selection', 'selections')} per team"
    else:
        text += "; no final selections (the live board is the ranking)"
    return text + "."


def statuses_text(statuses: Mapping[str, int]) -> str:
    """The phase's submissions counted per status."""
    counts = ", ".join(f"{status} {n}" for status, n in statuses.items())
    return f"Submissions: {counts or 'none'}."


def reveal_label(revealed: bool) -> str:
    """The button to the reveal's preview: the first reveal, or a new snapshot after it."""
    if revealed:
        return "Preview and publish a new snapshot"
    return "Preview and reveal the private leaderboard"


def reference_state(active: bool) -> SafeString:
    """Whether the reviewed reference version is the one submissions are scored against."""
    if active:
        return format_html("{}", "This version is the active one.")
    return mark_safe(
        "It is stored but <strong>not active</strong>: no submission has been scored against "
        "it yet."
    )


def two_decimals(value: float | None) -> str:
    """A score of the impact table (a dash where there is none)."""
    return "—" if value is None else f"{value:.2f}"


#: how many of the dialogues a new reference version adds or removes the review names
NAMED_DIALOGUES = 10


def dialogues_changed(what: str, ids: Sequence[str]) -> str:
    """The dialogues a version adds or removes, the first ``NAMED_DIALOGUES`` of them."""
    if not ids:
        return ""
    more = " ..." if len(ids) > NAMED_DIALOGUES else ""
    return f" Dialogues {what}: {', '.join(ids[:NAMED_DIALOGUES])}{more}."


def outcome(what: str, failure: str) -> SafeString:
    """A submission's outcome against the reviewed version, with the scorer's message when it
    would fail."""
    if not failure:
        return format_html("{}", what)
    return format_html('{}: <span class="scorer-message">{}</span>', what, failure)


def withdrawal_row(withdrawal: Withdrawal) -> dict[str, SafeString | str]:
    """A withdrawal in the phase's list: what it withdrew (one run, linked, or every run of a
    disqualified team), to whom it is shown, and its undo button's label."""
    run = withdrawal.submission
    if run is None:
        what: SafeString | str = "every run (disqualified)"
        undo = f"Undo for {withdrawal.team.name}"
    else:
        what = format_html(
            '<a href="{}">submission {}</a> ({})',
            reverse("submissions:detail", args=[run.pk]),
            run.pk,
            run.method_name,
        )
        undo = f"Undo for submission {run.pk}"
    shown = "on the leaderboard" if withdrawal.public else "to the team only"
    return {"what": what, "shown": shown, "undo": undo}
