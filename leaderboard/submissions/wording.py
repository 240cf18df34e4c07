"""What a submission's pages say, decided here so that the templates only print it: each
function turns the submission's state into the sentences, labels and CSS classes of one part
of a page (tests/leaderboard/submissions/test_wording.py works each branch by hand)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.utils.html import format_html


@dataclass(frozen=True)
class Toggle:
    """A form that flips one flag: the value it posts and its button's label."""

    value: str
    label: str


def hint(direction: str) -> str:
    """The remark after a metric's label when a lower value is better."""
    return " (lower is better)" if direction == "lower" else ""


def final_toggle(selected: bool) -> Toggle:
    """The button that selects the run as a final submission, or unselects it."""
    if selected:
        return Toggle("0", "Unselect as final submission")
    return Toggle("1", "Select as final submission")


def public_toggle(shown: bool) -> Toggle:
    """The button that makes the run the one the public leaderboard shows, or stops it."""
    if shown:
        return Toggle("0", "Stop showing on the public leaderboard")
    return Toggle("1", "Show this run on the public leaderboard")


def withdrawal_notice(run_only: bool, team: str, phase: str) -> dict[str, str]:
    """The heading and the subject of the notice on a withdrawn run (``run_only``) or on a
    run of a disqualified team."""
    if run_only:
        return {"heading": "Withdrawn by the organisers", "subject": "This run"}
    return {"heading": f"{team} is disqualified from {phase}", "subject": "No run of the team"}


def error_heading(status: str) -> str:
    """The heading over the scorer's message: a refused upload, or a failed scoring."""
    return "Why the upload was not accepted" if status == "invalid" else "What went wrong"


def part_notice(public_only: bool) -> dict[str, str]:
    """The notice and the table caption over the scores a team sees while the rest is
    hidden: the public part of a split reference, or its own scores."""
    if public_only:
        return {
            "notice": "Scores on the public part of the test set only; everything else is "
            "hidden until the organisers reveal the private leaderboard.",
            "caption": "Public-part scores",
        }
    return {
        "notice": "Your own scores; the leaderboard stays hidden until the organisers reveal it.",
        "caption": "Your scores",
    }


def pending_note(status: str) -> str:
    """Why a run the team may see in full shows no results (empty when nothing is pending)."""
    if status == "queued":
        return "No results yet — scoring is waiting for a worker; this page updates when it ends."
    if status == "scoring":
        return "No results yet — scoring is in progress; this page updates when it ends."
    if status == "scored":
        return (
            "No results on the current references — the organisers replaced a reference; "
            "the submission will be re-scored."
        )
    return ""


def summary_table(summary: dict[str, Any], selected: Any) -> dict[str, Any]:
    """The summary across conditions as the page prints it: a column of changes from the
    first condition only when there are two or more, each header's remark, and which row is
    the condition shown below it."""
    rows = summary["rows"]
    compared = len(rows) > 1
    change = (
        format_html(", and the change from {}", rows[0]["result"].condition.label)
        if compared
        else ""
    )
    return {
        "caption": format_html(
            "Every condition's scores [95% CI]{}; choose a condition for its details", change
        ),
        "columns": summary["columns"],
        "changed": [
            {"label": f"Change in {c['label']}{hint(c['direction'])}"}
            for c in (summary["changed"] if compared else [])
        ],
        "rows": [
            {
                **row,
                "current": row["result"] == selected,
                "href": "?condition={0}#result-{0}".format(row["result"].condition.key),
                "changes": [
                    {"reference": n == 0, "value": change}
                    for change in (row["changes"] if compared else [])
                ],
            }
            for n, row in enumerate(rows)
        ],
    }


def edits_line(edits: dict[str, int] | None) -> str:
    """The slot-value errors of a result in one line (empty when the task reports none)."""
    if not edits:
        return ""
    return (
        f"S {edits['sub']} / D {edits['del']} / I {edits['ins']} "
        f"of {edits['n_ref']} reference slot values"
    )


def counts_line(counts: dict[str, Any]) -> str:
    """How many turns and dialogues the scorer read, after the format's name."""
    if not counts.get("turns"):
        return ""
    return f", {counts['turns']} turns in {counts.get('dialogues')} dialogues"


def breakdown_heading(turn_label: str, domains: bool) -> str:
    """The heading over the per-domain and per-position tables (only the latter without
    domains)."""
    return f"{turn_label}{' per domain and' if domains else ''} by turn position"


def history_state(current: bool, active: bool) -> dict[str, str]:
    """A stored result's state in the history: current only on the active reference with the
    newest signature; otherwise superseded, and greyed."""
    if current and active:
        return {"state": "current", "css": ""}
    return {"state": "superseded", "css": "superseded"}


def file_name(name: str) -> str:
    """A refused file's name after its condition, in parentheses (nothing without a name)."""
    return format_html(" (<code>{}</code>)", name) if name else ""


def plural(count: int, one: str, many: str) -> str:
    """``one`` for a count of 1, ``many`` otherwise."""
    return one if count == 1 else many


def refusal_summary(refused: int, unchecked: int, files: int) -> str:
    """How many files of a refused upload were refused, and how many not read (since another
    was refused); without a verdict per file, only that the upload was refused."""
    if not files:
        return "The upload was refused."
    were = plural(refused, "was", "were")
    text = f"{refused} of {files} {plural(files, 'file', 'files')} {were} refused"
    if unchecked:
        text += f"; {unchecked} {plural(unchecked, 'was', 'were')} not read"
    return text + "."


def files_to_choose(refused: int, unchecked: int) -> str:
    """Which files to choose again after a refused upload: those not read, then the refused."""
    again = f"the refused {plural(refused, 'one', 'ones')} once fixed"
    if not unchecked:
        return again
    ones = plural(unchecked, "one", "ones")
    return f"the {ones} not read as {plural(unchecked, 'it is', 'they are')}, {again}"


def file_verdict(verdict: dict[str, str]) -> str:
    """One file's verdict under its field of the upload form."""
    if verdict["kind"] == "unchecked":
        return f"{verdict['name']} was not read: choose it again."
    return f"{verdict['name'] or 'The file'}: {verdict['kind']}, {verdict['meaning']}."


def quota_line(quota: dict[str, Any], daily: int | None, total: int | None) -> str:
    """A team's remaining submissions today and in total, or its use where there is no limit."""
    if quota["today_left"] is None:
        today = f"{quota['today']} used, no daily limit"
    else:
        today = f"{quota['today_left']} of {daily} left"
    if quota["total_left"] is None:
        overall = f"{quota['total']} used, no limit"
    else:
        overall = f"{quota['total_left']} of {total} left"
    return f"{quota['team'].name}: today {today}; in total {overall}."


def used_up_line(
    quota: dict[str, Any], phase: str, daily: int | None, total: int | None, next_at: str
) -> str:
    """Why a team may not submit now: its total quota is used, or its daily one until
    ``next_at`` (the page's ``<time>`` element of ``quota["next_at"]``), as HTML with its
    values escaped."""
    if quota["total_left"] == 0:
        return format_html(
            "No submissions left: {} has used all {} {} allowed in {}.",
            quota["team"].name,
            total,
            plural(total or 0, "submission", "submissions"),
            phase,
        )
    return format_html(
        "No submissions left: {} has used its {} {} for today; the next one is allowed from {}.",
        quota["team"].name,
        daily,
        plural(daily or 0, "submission", "submissions"),
        next_at,
    )


def scores_notice(show_scores: bool, public_only: bool) -> str:
    """The notice over "my submissions" when its scores are hidden or only the public part's."""
    if not show_scores:
        return (
            "Results are hidden until the organisers reveal them; you can still follow each "
            "submission's status."
        )
    if public_only:
        return (
            "Scores on the public part of the test set only; the private part is revealed at "
            "the end."
        )
    return ""


def history_scope(part: str | None) -> str:
    """Which runs the history chart follows, after "Every scored run of your team"."""
    return ", on the public part of the test set" if part == "public" else ""


def compare_sides(
    only_a: list[dict[str, Any]], only_b: list[dict[str, Any]], limit: int
) -> list[dict[str, Any]]:
    """The two sides of a comparison, each with the dialogues it gets entirely right and the
    other does not: at most ``limit`` of them, how many there are, and whether the table
    shows only the first ``limit``."""
    return [
        {
            "side": side,
            "other": other,
            "rows": rows[:limit],
            "count": len(rows),
            "shown": f" (first {limit})" if len(rows) > limit else "",
        }
        for side, other, rows in (("A", "B", only_a), ("B", "A", only_b))
    ]
