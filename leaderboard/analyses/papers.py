"""Paper tables: a board (the live public one or a published snapshot) as LaTeX or Markdown.

One line per system: by default (``view=system``) each entrant's (a team's, or each baseline
method's) overview submission, named "team (method)", on every condition; where the team's
best on a condition is another of its submissions, that cell is still this system's figures
(the board's first two metrics, without a rank group) marked with a double dagger, and the
notes say so. ``view=per-condition`` is the other reading, asked for explicitly: each
condition's column is the team's best there, and the notes name the method of each where a
team's differ. One group of columns per condition:
the primary metric with its interval, then the other chosen metrics. The best value of each
column is bold (every value equal to it at the two decimals shown); the entrant's rank group
on that condition is a superscript on the primary value; baselines carry a dagger; the
scorer signatures of the rows shown are listed under the table. The numbers are the board's,
written as the pages write them (two decimals), so the table can never show more than the
board it comes from.

With ``rank_intervals``, each condition's group of columns starts with the entrant's rank
there and its 95% interval over resamples of the dialogues (``1 [1-3]``; the board's rank
intervals, docs/scoring.md).

When the challenge declares system facts (``challenges.facts``), each is a column after the
line's name, headed by its label (a number's with its unit, "Parameters (billion)"), its value
as the pages show it: the system's, or in the per-condition view each different value of the
line's submissions, in the order of the conditions, separated by " / ". A challenge that
declares none has the table it always had.

The LaTeX needs ``\\usepackage{booktabs}`` in the paper's preamble.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from leaderboard.challenges.facts import Fact, shown
from leaderboard.numbers import score
from leaderboard.rankings.board import Column, ConditionBoard, Entry, Leaderboard, OverviewRow, Row
from leaderboard.rankings.facts import declared_facts

FORMATS = ("latex", "markdown")
#: How a request says whether a table shows rank intervals (``choice``).
CHOICES = {"yes": True, "no": False, "": False}
#: How a table's lines are read (``view``): one system each, or each condition's best.
VIEWS = ("system", "per-condition")


class TableError(ValueError):
    """The options name a condition or metric the board does not have; safe to show."""


@dataclass(frozen=True)
class Table:
    columns: tuple[Column, ...]
    conditions: tuple[ConditionBoard, ...]
    #: (entrant name, is baseline) per line, in the order of the first condition's ranks
    entrants: tuple[tuple[str, bool], ...]
    #: entrant name -> condition key -> its row there
    rows: dict[str, dict[str, Row]]
    signatures: tuple[str, ...]
    #: each condition starts with the rank and its interval
    rank_intervals: bool = False
    view: str = "system"
    #: (entrant name, condition key) of a system's cells where the team's best on that
    #: condition is another of its submissions (``view=system``)
    substituted: frozenset[tuple[str, str]] = frozenset()
    #: per entrant whose condition rows are different submissions (``view=per-condition``):
    #: "method: conditions; method: conditions"
    mixed: tuple[tuple[str, str], ...] = ()
    #: the challenge's declared system facts, a column each after the line's name
    facts: tuple[Fact, ...] = ()
    #: entrant name -> its value of each of ``facts`` as a cell shows it ("" when none)
    declared: dict[str, tuple[str, ...]] = dataclasses.field(default_factory=dict)


def choice(name: str, value: str) -> bool:
    """A yes/no option of a table (``rank_intervals``) as a request gives it."""
    text = value.strip().lower()
    if text not in CHOICES:
        raise TableError(f"{name} takes yes or no, not {value[:20]!r}.")
    return CHOICES[text]


def statement(has_split: bool, part: str, snapshot: int | None) -> str:
    """Which board a table or an export shows, in words, for its caption or header: the live
    board's public part of the split, the private part of snapshot N (the final ranking), or
    the whole reference (a phase without a split)."""
    if snapshot is None:
        where = "public part of the split" if has_split and part == "public" else "whole reference"
        return f"live board, {where}"
    where = "private part of the split" if has_split else "whole reference"
    return f"final ranking (snapshot {snapshot}), {where}"


def view(value: str) -> str:
    """A table's ``view`` as a request gives it ("" is the system view)."""
    text = value.strip().lower() or VIEWS[0]
    if text not in VIEWS:
        raise TableError(f"view takes {' or '.join(VIEWS)}, not {value[:20]!r}.")
    return text


def _name(row: Row) -> str:
    """An entrant's line label in the per-condition view: the team, and for a baseline its
    method (a team may enter several baselines, each ranked on its own)."""
    return f"{row.team_name} ({row.method_name})" if row.is_baseline else row.team_name


def _system(entry: Entry) -> str:
    """A system's line label: its team and its method."""
    return f"{entry.team_name} ({entry.method_name})" if entry.method_name else entry.team_name


def _stand_in(board: Leaderboard, entry: OverviewRow, key: str) -> Row | None:
    """``entry``'s own figures on condition ``key`` as a row, when the condition's board ranks
    another of the team's submissions: the board's first two metrics with their intervals
    (what the overview keeps of every condition), no rank group, no other metric."""
    cells = entry.cells.get(key)
    if cells is None:
        return None
    empty = (None, None, None)
    values = tuple(cells[i] if i < len(cells) else empty for i in range(len(board.columns)))
    fields = {f.name: getattr(entry, f.name) for f in dataclasses.fields(Entry)}
    return Row(**fields, signature="", submissions=None, group="", cells=values)


def select(
    board: Leaderboard,
    conditions: Sequence[str] = (),
    metrics: Sequence[str] = (),
    rank_intervals: bool = False,
    view: str = "system",
) -> Table:
    """The parts of ``board`` a table shows: ``conditions`` by key (default every one) and
    ``metrics`` by name (default the primary metric and the next column); the primary metric
    always comes first; lines by ``view`` (see the module's docstring)."""
    known = {c.key: c for c in board.conditions}
    unknown = [k for k in conditions if k not in known]
    if unknown:
        raise TableError(
            f"Unknown condition {unknown[0]!r}: this board has {', '.join(known) or 'none'}."
        )
    chosen = tuple(known[k] for k in dict.fromkeys(conditions)) or board.conditions
    by_name = {c.name: c for c in board.columns}
    unknown = [m for m in metrics if m not in by_name]
    if unknown:
        raise TableError(
            f"Unknown metric {unknown[0]!r}: this board has {', '.join(by_name) or 'none'}."
        )
    primary = next((c for c in board.columns if c.primary), None)
    names = list(dict.fromkeys(metrics)) or [c.name for c in board.columns[:2]]
    chosen_columns = [by_name[n] for n in names]
    if primary is not None:
        chosen_columns = [primary, *(c for c in chosen_columns if c is not primary)]
    rows: dict[str, dict[str, Row]] = {}
    entrants: dict[str, bool] = {}
    signatures: dict[str, None] = {}
    substituted: set[tuple[str, str]] = set()
    mixed: list[tuple[str, str]] = []
    if view == "system":
        ranked = {c.key: {r.submission_id: r for r in c.rows} for c in chosen}
        for entry in board.overview:
            name = _system(entry)
            entrants.setdefault(name, entry.is_baseline)
            line = rows.setdefault(name, {})
            for condition in chosen:
                found = ranked[condition.key].get(entry.submission_id)
                if found is None:
                    found = _stand_in(board, entry, condition.key)
                    if found is None:
                        continue
                    substituted.add((name, condition.key))
                line[condition.key] = found
                signatures.setdefault(found.signature, None)
    else:
        for condition in chosen:
            for row in condition.rows:
                name = _name(row)
                entrants.setdefault(name, row.is_baseline)
                rows.setdefault(name, {})[condition.key] = row
                signatures.setdefault(row.signature, None)
        labels = {c.key: c.label for c in chosen}
        for name, line in rows.items():
            methods: dict[str, list[str]] = {}
            for key, row in line.items():
                methods.setdefault(row.method_name or "unnamed", []).append(labels[key])
            if len(methods) > 1:
                mixed.append(
                    (name, "; ".join(f"{m} on {', '.join(ks)}" for m, ks in methods.items()))
                )
    facts = declared_facts(board)
    return Table(
        columns=tuple(chosen_columns),
        conditions=chosen,
        entrants=tuple(entrants.items()),
        rows=rows,
        signatures=tuple(s for s in signatures if s),
        rank_intervals=rank_intervals,
        view=view,
        substituted=frozenset(substituted),
        mixed=tuple(mixed),
        facts=facts,
        declared={name: _declared(facts, line.values()) for name, line in rows.items()},
    )


def _declared(facts: tuple[Fact, ...], rows: Iterable[Row]) -> tuple[str, ...]:
    """A line's value of each declared fact: each different value its rows' submissions
    declared, in the order of its rows, joined by " / " ("" when none declared one)."""
    return tuple(
        " / ".join(dict.fromkeys(v for r in rows for v in [shown(f, r.facts.get(f.key))] if v))
        for f in facts
    )


def _value(board: Leaderboard, row: Row, column: Column) -> tuple[float | None, ...]:
    at = [c.name for c in board.columns].index(column.name)
    return tuple(row.cells[at]) if at < len(row.cells) else (None, None, None)


def _best(board: Leaderboard, table: Table, condition: ConditionBoard, column: Column) -> str:
    """The best value of a column as written (two decimals), "" when it has none."""
    values = [
        v
        for rows in table.rows.values()
        if condition.key in rows
        for v in [_value(board, rows[condition.key], column)[0]]
        if v is not None
    ]
    if not values:
        return ""
    return score(max(values) if column.direction == "higher" else min(values))


def render(
    board: Leaderboard,
    fmt: str,
    *,
    conditions: Sequence[str] = (),
    metrics: Sequence[str] = (),
    caption: str = "",
    rank_intervals: bool = False,
    view: str = "system",
) -> str:
    """The table of ``board`` in ``fmt`` (``latex`` or ``markdown``)."""
    if fmt not in FORMATS:
        raise TableError(f"Unknown table format {fmt!r}: use {' or '.join(FORMATS)}.")
    table = select(board, conditions, metrics, rank_intervals, view)
    if fmt == "latex":
        return _latex(board, table, caption)
    return _markdown(board, table, caption)


def _cells(board: Leaderboard, table: Table, name: str, fmt: str) -> list[str]:
    """One line's cells after its name, in the format's markup."""
    latex = fmt == "latex"
    out: list[str] = []
    for condition in table.conditions:
        row = table.rows[name].get(condition.key)
        stand_in = (name, condition.key) in table.substituted
        if table.rank_intervals:
            out.append(_rank(None if stand_in else row, latex))
        for column in table.columns:
            if row is None:
                out.append("--" if latex else "—")
                continue
            value, low, high = _value(board, row, column)
            text = score(value)
            if value is None:
                out.append("--" if latex else "—")
                continue
            if text == _best(board, table, condition, column):
                text = f"\\textbf{{{text}}}" if latex else f"**{text}**"
            if column.primary and row.group:
                # one spelling of a rank group everywhere: 1, an en dash, 3 (``1--3`` in LaTeX)
                group = row.group.replace("\u2013", "-")
                text += (
                    f"\\textsuperscript{{{group.replace('-', '--')}}}"
                    if latex
                    else f"<sup>{group.replace('-', chr(0x2013))}</sup>"
                )
            if column.primary and low is not None and high is not None:
                interval = f"[{score(low)}, {score(high)}]"
                text += f" {{\\scriptsize {interval}}}" if latex else f" {interval}"
            if column.primary and stand_in:
                text += "$^\\ddagger$" if latex else " \u2021"
            out.append(text)
    return out


def _rank(row: Row | None, latex: bool) -> str:
    """An entrant's rank with its interval, ``1 [1-3]`` (an en dash in Markdown)."""
    if row is None:
        return "--" if latex else "—"
    if row.rank_low is None or row.rank_high is None:
        return str(row.rank)
    span = (
        str(row.rank_low)
        if row.rank_low == row.rank_high
        else f"{row.rank_low}{'--' if latex else chr(0x2013)}{row.rank_high}"
    )
    return f"{row.rank} {{\\scriptsize [{span}]}}" if latex else f"{row.rank} [{span}]"


def _arrow(column: Column, latex: bool) -> str:
    if latex:
        return "$\\uparrow$" if column.direction == "higher" else "$\\downarrow$"
    return "↑" if column.direction == "higher" else "↓"


def _notes(table: Table) -> list[str]:
    if table.view == "system":
        notes = [
            "One line per system: each team's overview submission (its best across the "
            "conditions), named by its method, on every condition."
        ]
        if table.substituted:
            notes.append(
                "\u2021 the team's best on this condition is another of its submissions (the "
                "per-condition view shows it); the figures are this system's, without a "
                "rank group."
            )
    else:
        notes = [
            "Per condition: each team's best submission on that condition, which may be "
            "different systems of one team."
        ]
        notes += [f"{name}: {methods}." for name, methods in table.mixed]
    notes.append(
        "Primary metric with its bootstrap interval; superscripts are rank groups "
        "(entries the paired test cannot tell apart); best value per column in bold."
    )
    if table.rank_intervals:
        notes.append(
            "Rank with its 95% interval over resamples of the dialogues (where the entry ranks "
            "in 95% of them)."
        )
    if any(baseline for _, baseline in table.entrants):
        notes.append("\u2020 baseline.")
    if table.signatures:
        notes.append("Scorer: " + "; ".join(table.signatures) + ".")
    return notes


def latex_escape(text: str) -> str:
    """``text`` as LaTeX prints it literally."""
    special = {
        "\\": "\\textbackslash{}",
        "&": "\\&",
        "%": "\\%",
        "$": "\\$",
        "#": "\\#",
        "_": "\\_",
        "{": "\\{",
        "}": "\\}",
        "~": "\\textasciitilde{}",
        "^": "\\textasciicircum{}",
        "|": "\\textbar{}",
        "<": "\\textless{}",
        ">": "\\textgreater{}",
    }
    return "".join(special.get(ch, ch) for ch in text)


def _fact_cells(table: Table, name: str, latex: bool) -> list[str]:
    """A line's declared facts, escaped for the format ("--" or "—" where it declared none)."""
    escape = latex_escape if latex else _md_escape
    missing = "--" if latex else "—"
    return [escape(v) if v else missing for v in table.declared.get(name, ())]


def _latex(board: Leaderboard, table: Table, caption: str) -> str:
    width = len(table.columns) + int(table.rank_intervals)
    first = 1 + len(table.facts)  # the name's column, then one per declared fact
    spec = "l" * first + "r" * (width * len(table.conditions))
    lines = [
        "% Needs \\usepackage{booktabs} in the preamble.",
        "\\begin{table}[t]",
        "\\centering",
        "\\small",
        f"\\begin{{tabular}}{{{spec}}}",
        "\\toprule",
    ]
    heads = [f"\\multicolumn{{{width}}}{{c}}{{{latex_escape(c.label)}}}" for c in table.conditions]
    lines.append(" & " * first + " & ".join(heads) + " \\\\")
    rules = [
        f"\\cmidrule(lr){{{first + 1 + i * width}-{first + (i + 1) * width}}}"
        for i in range(len(table.conditions))
    ]
    lines.append(" ".join(rules))
    metric_heads = [
        head
        for _ in table.conditions
        for head in (
            *(["Rank"] if table.rank_intervals else []),
            *(f"{latex_escape(c.label)} {_arrow(c, True)}" for c in table.columns),
        )
    ]
    fact_heads = [latex_escape(f.heading) for f in table.facts]
    lines.append("Team & " + " & ".join([*fact_heads, *metric_heads]) + " \\\\")
    lines.append("\\midrule")
    for name, baseline in table.entrants:
        label = latex_escape(name) + ("$^\\dagger$" if baseline else "")
        cells = [label, *_fact_cells(table, name, True), *_cells(board, table, name, "latex")]
        lines.append(" & ".join(cells) + " \\\\")
    lines.append("\\bottomrule")
    lines.append("\\end{tabular}")
    lines.append("\\par\\smallskip")
    lines.append(
        "{\\footnotesize "
        + " ".join(
            latex_escape(n).replace("\u2020", "$^\\dagger$").replace("\u2021", "$^\\ddagger$")
            for n in _notes(table)
        )
        + "}"
    )
    if caption:
        lines.append(f"\\caption{{{latex_escape(caption)}}}")
    lines.append("\\end{table}")
    return "\n".join(lines) + "\n"


def _md_escape(text: str) -> str:
    """``text`` as Markdown prints it literally: its markup characters escaped, and HTML
    (which Markdown passes through) written as entities, so ``<b>pipe</b>`` stays text."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("*", "\\*").replace("_", "\\_")


def _markdown(board: Leaderboard, table: Table, caption: str) -> str:
    heads = [
        head
        for c in table.conditions
        for head in (
            *([f"{_md_escape(c.label)}: Rank"] if table.rank_intervals else []),
            *(
                f"{_md_escape(c.label)}: {_md_escape(m.label)} {_arrow(m, False)}"
                for m in table.columns
            ),
        )
    ]
    lines = []
    if caption:
        lines += [_md_escape(caption), ""]
    fact_heads = [_md_escape(f.heading) for f in table.facts]
    lines.append("| Team | " + " | ".join([*fact_heads, *heads]) + " |")
    lines.append("| --- |" + " --- |" * len(fact_heads) + " ---: |" * len(heads))
    for name, baseline in table.entrants:
        label = _md_escape(name) + (" \u2020" if baseline else "")
        cells = [label, *_fact_cells(table, name, False), *_cells(board, table, name, "markdown")]
        lines.append("| " + " | ".join(cells) + " |")
    for note in _notes(table):
        lines += ["", _md_escape(note)]
    return "\n".join(lines) + "\n"
