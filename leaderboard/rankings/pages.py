"""What the leaderboard's pages say of a board, decided here and printed by the templates
(``rankings/tables.html`` and the templates it includes, ``rankings/_header.html``,
``rankings/shakeup.html``, ``rankings/embed.html``): the captions' wording, each row's cells
in the columns' order, the rows a table lists, the links. The templates only format values
(``rankings.templatetags.scores``) and wrap them in markup."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.urls import reverse
from django.utils.text import slugify

from leaderboard import numbers
from leaderboard.challenges.facts import Fact, shown
from leaderboard.rankings.board import (
    Cell,
    Column,
    ConditionBoard,
    Entry,
    Leaderboard,
    Move,
    OverviewRow,
    Row,
    Shakeup,
)
from leaderboard.rankings.charts import condition_symbols

#: what a missing condition's cell of the overview would have been: no value, no interval
_NO_CELL: Cell = (None, None, None)


@dataclass(frozen=True)
class Link:
    """A link and the text before it, for a line of links with their own separators."""

    before: str
    href: str
    text: str


@dataclass(frozen=True)
class Figure:
    """One chart of a table's section: its container's id (``chart-...``), title and caption
    (the caption's link to the table is the template's)."""

    key: str
    title: str
    caption: str
    #: the table of the same numbers, linked at the caption's end
    href: str
    table: str


@dataclass(frozen=True)
class Scatter:
    """The scatter of the first two metrics, and the tables whose numbers it draws."""

    title: str
    caption: str
    links: tuple[Link, ...]


@dataclass(frozen=True)
class Heading:
    """A number column's heading: the label, the smaller text under it, its tooltip."""

    label: str
    sub: str
    title: str = ""


@dataclass(frozen=True)
class Figures:
    """A number and, on the ranked column, the scored submissions behind its row."""

    cell: Cell
    scored: int | None = None


@dataclass(frozen=True)
class Line:
    """A row of a ranking table: the row, its declared facts as cells (every declared fact,
    "" for none) and as the narrow layout's inline notes (those it declared), and its numbers
    in the columns' order."""

    row: Row | OverviewRow
    facts: tuple[str, ...]
    inline_facts: tuple[tuple[str, str], ...]
    cells: tuple[Figures, ...]


@dataclass(frozen=True)
class ConditionCell:
    """A condition's cell of an overview row: the first column with its interval, the
    second's value as text, the rank group; ``present`` False when the row has no score
    there."""

    present: bool
    cell: Cell
    secondary: str
    group: str


@dataclass(frozen=True)
class OverviewLine(Line):
    conditions: tuple[ConditionCell, ...] = ()


@dataclass(frozen=True)
class More:
    """A table cut to its first ``shown`` rows of ``total``."""

    shown: int
    total: int


@dataclass(frozen=True)
class Overview:
    """The overview's section (boards of several conditions, or none)."""

    caption: str
    means: tuple[Heading, ...]
    conditions: tuple[Heading, ...]
    lines: tuple[OverviewLine, ...]
    more: More | None
    robustness: Figure
    scatter: Scatter | None
    #: the overview ranks nobody though a condition ranks someone (why), or nobody at all
    nobody: str
    empty: str


@dataclass(frozen=True)
class ConditionTable:
    """A condition's section."""

    condition: ConditionBoard
    #: the table's id, as the links to it name it
    key: str
    bars: tuple[Figure, ...]
    fact_charts: tuple[Figure, ...]
    scatter: Scatter | None
    chart_note: str
    caption: str
    columns: tuple[Heading, ...]
    lines: tuple[Line, ...]
    more: More | None
    detectable: str
    notes: tuple[str, ...]
    signatures: tuple[str, ...]
    empty: str


@dataclass(frozen=True)
class Option:
    value: str
    text: str
    selected: bool


@dataclass(frozen=True)
class FilterField:
    """A filter of the fact filters' form: a text box (no options) or a list."""

    key: str
    label: str
    value: str
    options: tuple[Option, ...]


@dataclass(frozen=True)
class Tables:
    """What ``rankings/tables.html`` prints of a board a reader may see."""

    board: Leaderboard
    facts: tuple[Fact, ...]
    filters: tuple[FilterField, ...]
    #: the filters applied, as the form's note names them ("" for none)
    filtered: str
    overview: Overview | None
    conditions: tuple[ConditionTable, ...]
    #: the ranked column, as the shake-up's table names it
    primary: Column
    #: a final board's shake-ups, each with its moves joined to the board's rows
    shakeups: tuple[ShakeupTable, ...]
    #: what a rank group is, as the heading of the column explains it
    group_title: str = (
        "Rank group: ranks not significantly different from their neighbours (adjacent paired "
        "tests over dialogues, not corrected for the number of comparisons)"
    )


def plural(count: int, word: str) -> str:
    """``2 conditions``, ``1 condition``."""
    return f"{count} {word}{'' if count == 1 else 's'}"


def overview_caption(board: Leaderboard) -> str:
    """The overview's caption: how its rows are chosen and ranked, and what each column is."""
    first, second, primary = _columns(board)
    conditions = plural(len(board.conditions), "condition")
    if board.ladder:
        chosen = (
            f"each team's shown (Ladder) scores, by the mean over the {conditions}, "
            "under its most recently shown submission"
        )
    else:
        chosen = (
            "each team's best submission (each baseline method its own row) by the mean "
            f"{primary.label} over the {conditions}; a submission missing a condition ranks "
            "after complete ones"
        )
    text = (
        f"All conditions: {chosen}. Rank with its 95% interval in brackets (by the mean over "
        "resamples of the dialogues); beside the mean, the scored submissions behind the row. "
        f"Per condition: {first.label} with its 95% interval"
        f"{f', {second.label}' if second else ''} and the rank group on that condition's table "
        "(when it ranks this submission)."
    )
    if len(board.conditions) > 1:
        lower = first.direction == "lower"
        sign = (
            "negative: fewer errors; closer to zero or below"
            if lower
            else "negative: points lost; closer to zero or above"
        )
        text += (
            f" Change: {first.label} on {board.conditions[-1].label} minus {first.label} on "
            f"{board.conditions[0].label} ({sign} is more robust)."
        )
    return text


def condition_caption(board: Leaderboard, condition: ConditionBoard) -> str:
    """A condition's table caption: which row of each team it ranks, and how."""
    primary = _columns(board)[2]
    if board.ladder:
        chosen = (
            f"each team's {primary.label} as the Ladder shows it (it changes only when a new "
            "submission beats the shown one by more than the standard error of their paired "
            "difference; shown without an interval)"
        )
    else:
        chosen = "each team's best result (each baseline method its own row)"
    return (
        f"{condition.label}: {chosen}, ranked by {primary.label} ({primary.better}); hatched "
        "bars and the badge mark baselines. Rank with its 95% interval in brackets: where the "
        "entry ranks in 95% of resamples of the dialogues. Group: the ranks an entry is not "
        "significantly different from, chained through its neighbours (adjacent paired tests). "
        f"Beside {primary.label}: the scored submissions behind the row."
    )


def chart_note(rows: int, chart_limit: int, table_limit: int | None) -> str:
    """Why a condition's charts show fewer teams than its table ("" when they show all)."""
    if rows <= chart_limit:
        return ""
    if table_limit and rows > table_limit:
        listed = 'lists them all with "Show all"'
    else:
        listed = f"lists all {rows}"
    return f"The charts show the first {chart_limit} teams; the table {listed}."


def detectable(board: Leaderboard, condition: ConditionBoard, has_split: bool) -> str:
    """The condition's smallest resolvable difference, or why it has none ("" if neither)."""
    if condition.detectable is None:
        return condition.detectable_note
    part = f" ({board.part} part)" if has_split else ""
    return (
        f"Differences under {numbers.score(condition.detectable)} {_columns(board)[2].label} "
        f"points are not resolvable on this test set{part}: the smallest difference the paired "
        "test finds with 80% power (two-sided, \u03b1 = 0.05) for this number of dialogues and "
        "this board's per-dialogue variance."
    )


def condition_notes(board: Leaderboard, condition: ConditionBoard) -> tuple[str, ...]:
    """The help under a condition's table: why it has no rank groups, and that only the
    ranked column is tested."""
    notes = [condition.note] if condition.note else []
    if len(board.columns) > 1:
        notes.append(
            f"Rank groups, rank intervals and the detectable difference are for "
            f"{_columns(board)[2].label} only; the other columns are shown without tests."
        )
    return tuple(notes)


def signatures(rows: Sequence[Row]) -> tuple[str, ...]:
    """The distinct scorer signatures of a table's rows, in first-seen order."""
    return tuple(dict.fromkeys(r.signature for r in rows if r.signature))


def scatter(board: Leaderboard) -> Scatter:
    """The scatter's title and caption: per condition on a board of several, else beside the
    one condition's bars."""
    first, second, _ = _columns(board)
    assert second is not None
    several = len(board.conditions) > 1
    markers = ""
    if several:
        named = ", ".join(f"{symbol} {label}" for label, symbol in condition_symbols(board))
        markers = f" Markers: {named}."
    caption = (
        f"Each marker is a team's best result{' on a condition' if several else ''}, in the "
        f"team's colour ({first.label} {first.better}, {second.label} {second.better}); bars "
        f"are 95% intervals.{markers} Open markers: baselines. The same numbers: "
    )
    if several:
        links = tuple(
            Link("" if n == 0 else ", ", f"#table-{c.key}", c.label)
            for n, c in enumerate(board.conditions)
        )
    else:
        only = board.conditions[0]
        links = (Link("", f"#table-{only.key}", f"the {only.label} table"),)
    title = f"{first.label} against {second.label}{', per condition' if several else ''}"
    return Scatter(title, caption, links)


def overview_empty(board: Leaderboard, built: bool) -> tuple[str, str]:
    """(why the overview ranks nobody though a condition ranks someone, that nobody is
    scored yet): at most one of them, neither while the board is being built."""
    if board.overview:
        return "", ""
    if any(c.rows for c in board.conditions):
        missing = "".join(f" ({c.label} has none)" for c in board.conditions if not c.rows)
        return (
            "The overview ranks nobody: no submission has a score on every condition"
            f"{missing}. Each condition's own table below ranks what it has.",
            "",
        )
    if not built:
        return "", ""
    return "", (
        "No scored submissions yet — the first team to submit will appear here within seconds "
        "of scoring."
    )


def fact_values(row: Entry, facts: Sequence[Fact]) -> tuple[str, ...]:
    """A row's value of each declared fact as a cell shows it ("" where it declared none)."""
    found = row.facts or {}
    return tuple(shown(f, found.get(f.key)) for f in facts)


def filter_fields(facts: Sequence[Fact], asked: Mapping[str, str]) -> tuple[FilterField, ...]:
    """The fact filters' form: a text box per text fact, a list per flag or choice (its
    first option "any"), each showing the value asked for."""
    fields = []
    for fact in facts:
        if not fact.filterable:
            continue
        value = asked.get(fact.key, "")
        options: tuple[Option, ...] = ()
        if fact.kind != "text":
            values = ("yes", "no") if fact.kind == "flag" else fact.choices
            options = (Option("", "any", False), *(Option(v, v, v == value) for v in values))
        fields.append(FilterField(fact.key, fact.label, value, options))
    return tuple(fields)


def filtered_note(asked: Mapping[str, str]) -> str:
    """The filters applied as the form's note names them: ``a = x and b = y``."""
    return " and ".join(f"{key} = {value}" for key, value in asked.items())


def tables(
    board: Leaderboard,
    *,
    facts: Sequence[Fact] = (),
    asked: Mapping[str, str] | None = None,
    table_limit: int | None = None,
    chart_limit: int,
    built: bool = True,
    has_split: bool = False,
) -> Tables:
    """Everything ``rankings/tables.html`` prints of ``board``: each table's first
    ``table_limit`` rows (every row for None), the charts' notes for ``chart_limit``, the
    empty tables' notes only once the board is ``built``."""
    asked = asked or {}
    first, second, primary = _columns(board)
    several = len(board.conditions) > 1
    overview = None
    if len(board.conditions) != 1:  # one condition: its own table is the overview
        nobody, empty = overview_empty(board, built)
        overview = Overview(
            caption=overview_caption(board),
            means=tuple(
                Heading(f"Mean {c.label}", "scored submissions" if c.primary else "")
                for c in board.columns[:2]
            ),
            conditions=tuple(
                Heading(c.label, f"{first.label} [95% CI]{_also(second)}") for c in board.conditions
            ),
            lines=tuple(
                _overview_line(board, r, facts) for r in _first(board.overview, table_limit)
            ),
            more=_more(len(board.overview), table_limit),
            robustness=Figure(
                "robustness",
                f"Robustness: {first.label} per condition",
                f"One line per team (its overview submission) from {_label(board, 0)} "
                f"to {_label(board, -1)}; the legend gives each team's change, the most "
                "robust first. Dotted lines and diamonds: baselines. The same numbers: ",
                "#overview-table",
                "the overview table",
            ),
            scatter=scatter(board) if second and several else None,
            nobody=nobody,
            empty=empty,
        )
    conditions = tuple(
        ConditionTable(
            condition=c,
            key=f"table-{c.key}",
            bars=tuple(
                Figure(
                    f"{slugify(col.name)}-{c.key}",
                    f"{c.label}: {col.label} with 95% intervals",
                    f"{col.better[:1].upper()}{col.better[1:]}; hatched bars: baselines. "
                    "The same numbers: ",
                    f"#table-{c.key}",
                    f"the {c.label} table",
                )
                for col in board.columns[:2]
            ),
            fact_charts=tuple(
                Figure(
                    f"fact-{f.key}-{c.key}",
                    f"{c.label}: {primary.label} against {f.heading}",
                    f"One marker per row that declared {f.label}, with the 95% interval of "
                    f"{primary.label}; of the whole board, whatever the filter. The same "
                    "numbers: ",
                    f"#table-{c.key}",
                    f"the {c.label} table",
                )
                for f in facts
                if f.kind == "number"
            ),
            scatter=scatter(board) if second and len(board.conditions) == 1 else None,
            chart_note=chart_note(len(c.rows), chart_limit, table_limit),
            caption=condition_caption(board, c),
            columns=tuple(
                Heading(
                    col.label,
                    f"[95% CI]{', scored submissions' if col.primary else ''}",
                    "lower is better" if col.direction == "lower" else "",
                )
                for col in board.columns
            ),
            lines=tuple(_line(board, r, facts) for r in _first(c.rows, table_limit)),
            more=_more(len(c.rows), table_limit),
            detectable=detectable(board, c, has_split),
            notes=condition_notes(board, c),
            signatures=signatures(c.rows),
            empty=f"No results for {c.label} yet." if built else "",
        )
        for c in board.conditions
    )
    return Tables(
        board,
        tuple(facts),
        filter_fields(facts, asked),
        filtered_note(asked),
        overview,
        conditions,
        primary,
        shakeup_tables(board),
    )


def _columns(board: Leaderboard) -> tuple[Column, Column | None, Column]:
    """(the first column, the second or None, the ranked one) of a board; a board with no
    column (no result yet) has an unnamed one, as the empty pages print nothing of it."""
    columns = board.columns or (Column("", "", "higher", True),)
    primary = next((c for c in columns if c.primary), columns[0])
    return columns[0], columns[1] if len(columns) > 1 else None, primary


def _label(board: Leaderboard, index: int) -> str:
    return board.conditions[index].label if board.conditions else ""


def _also(column: Column | None) -> str:
    return f", {column.label}" if column else ""


def _first(rows: Sequence[Any], limit: int | None) -> Sequence[Any]:
    return rows if limit is None else rows[:limit]


def _more(total: int, limit: int | None) -> More | None:
    return More(limit, total) if limit and total > limit else None


def _inline(facts: Sequence[Fact], values: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    return tuple((f.label, v) for f, v in zip(facts, values, strict=True) if v)


def _line(board: Leaderboard, row: Row, facts: Sequence[Fact]) -> Line:
    values = fact_values(row, facts)
    return Line(
        row,
        values,
        _inline(facts, values),
        tuple(
            Figures(cell, row.submissions if col.primary else None)
            for col, cell in zip(board.columns, row.cells, strict=False)
        ),
    )


def _overview_line(board: Leaderboard, row: OverviewRow, facts: Sequence[Fact]) -> OverviewLine:
    values = fact_values(row, facts)
    second = _columns(board)[1]
    cells = []
    for c in board.conditions:
        pair = row.cells.get(c.key)
        secondary = ""
        if pair and second is not None:
            secondary = f"{second.label} {numbers.score(pair[1][0] if len(pair) > 1 else None)}"
        cells.append(
            ConditionCell(
                bool(pair), pair[0] if pair else _NO_CELL, secondary, row.groups.get(c.key) or ""
            )
        )
    return OverviewLine(
        row,
        values,
        _inline(facts, values),
        tuple(
            Figures((mean, None, None), row.submissions if col.primary else None)
            for col, mean in zip(board.columns, row.means, strict=False)
        ),
        tuple(cells),
    )


@dataclass(frozen=True)
class MoveLine:
    """One entry's move in a shake-up's table: the move, the board's row it is, and how the
    places it gained are marked (``gained``, ``lost`` or "")."""

    move: Move
    row: Row | OverviewRow
    mark: str


@dataclass(frozen=True)
class ShakeupTable:
    shakeup: Shakeup
    mean_places: str
    lines: tuple[MoveLine, ...]


def shakeup_tables(board: Leaderboard) -> tuple[ShakeupTable, ...]:
    """Each shake-up of a final board with its moves joined to the board's rows (the
    overview's for the overview's shake-up, else its condition's), in the final order."""
    found = []
    for s in board.shakeups:
        if s.key == "overview":
            rows: Sequence[Row | OverviewRow] = board.overview
        else:
            rows = [r for c in board.conditions if c.key == s.key for r in c.rows]
        by_id = {r.submission_id: r for r in rows}
        lines = tuple(
            MoveLine(m, by_id[m.submission_id], _mark(m.rank_change))
            for m in s.moves
            if m.submission_id in by_id
        )
        places = numbers.MISSING if s.mean_rank_change is None else f"{s.mean_rank_change:.2f}"
        found.append(ShakeupTable(s, places, lines))
    return tuple(found)


def _mark(change: int | None) -> str:
    if change is None or change == 0:
        return ""
    return "gained" if change > 0 else "lost"


@dataclass(frozen=True)
class Header:
    """The leaderboard page's header's wording and links (``rankings/_header.html``)."""

    split: str
    ranked: str
    ladder: bool
    #: the ranked metric's label, as the Ladder's sentence names it
    primary: str
    own: tuple[Link, ...]
    downloads: tuple[Link, ...]


def header(
    phase: Any,
    *,
    primary: Any,
    tiebreak: Any,
    several_conditions: bool,
    signed_in: bool,
    visible: bool,
    organiser: bool,
) -> Header:
    """What the header says of ``phase`` and links to, for a reader with these rights: no
    download for whoever may not see the results (a hidden phase before the reveal)."""
    split = ""
    if phase.has_split:
        split = (
            f"Ranked on the public part of the test set ({round(phase.split_fraction * 100)}% "
            "of its dialogues); the private part decides the final ranking, published when the "
            "organisers reveal it."
        )
    ranked = (
        f"Each team's best submission{' per condition' if several_conditions else ''}; ranked "
        f"by {primary.label} ({primary.direction} is better), then {tiebreak.label} "
        f"({tiebreak.direction} is better) on ties; 95% bootstrap intervals over dialogues in "
        "brackets."
    )
    args = (phase.challenge.slug, phase.slug)
    own: list[Link] = []
    if signed_in:
        own.append(Link("", reverse("submissions:mine", args=args), "My submissions"))
        if phase.state == "open":
            own.append(Link(" · ", reverse("submissions:submit", args=args), "Submit"))
    downloads: list[Link] = []
    if visible:
        downloads += [
            Link("Download: ", reverse("rankings:export-csv", args=args), "CSV"),
            Link(" · ", reverse("rankings:export-json", args=args), "JSON"),
            Link(" · table for papers: ", reverse("rankings:table", args=(*args, "tex")), "LaTeX"),
            Link(", ", reverse("rankings:table", args=(*args, "md")), "Markdown"),
            Link(" · ", reverse("rankings:pairwise", args=args), "compare two entries"),
        ]
        if several_conditions:
            downloads.append(
                Link(" · ", reverse("rankings:robustness", args=args), "robustness, tested")
            )
        if organiser or not phase.has_split:
            downloads.append(
                Link(" · ", reverse("rankings:errors", args=args), "errors across teams")
            )
        if phase.revealed:
            downloads.append(
                Link(" · ", reverse("rankings:snapshots", args=args), "published final rankings")
            )
        if organiser:
            downloads.append(
                Link(
                    " · ",
                    reverse("challenges:organise", args=(phase.challenge.slug,)),
                    "Organiser dashboard",
                )
            )
    return Header(split, ranked, phase.uses_ladder, primary.label, tuple(own), tuple(downloads))


@dataclass(frozen=True)
class Reported:
    """A figure reported elsewhere, as its row of the "not scored here" table shows it: the
    board's columns' values in their order (a dash where it reported none)."""

    condition: str
    label: str
    values: tuple[str, ...]
    source: str


def reported(board: Leaderboard) -> tuple[Reported, ...]:
    """The board's figures reported elsewhere, each under the board's columns."""
    return tuple(
        Reported(
            r.get("condition_label") or r.get("condition") or "",
            r.get("label") or "",
            tuple(numbers.score((r.get("metrics") or {}).get(c.name)) for c in board.columns),
            r.get("source") or "",
        )
        for r in board.reported
    )


@dataclass(frozen=True)
class FinalLine:
    """An overview row of a published final ranking, with its first column per condition
    (None where it has no score)."""

    row: OverviewRow
    conditions: tuple[float | None, ...]


@dataclass(frozen=True)
class FinalSummary:
    """The live page's summary of the latest published final ranking."""

    board: Leaderboard
    #: the headings of its number columns: the means of the first two, then each condition's
    headings: tuple[str, ...]
    lines: tuple[FinalLine, ...]
    #: the overview's shake-up when it has a correlation (None: no shake-up to summarise)
    shakeup: Shakeup | None
    #: the columns a row spans (for the "no final selections" row)
    width: int


def final_summary(board: Leaderboard) -> FinalSummary:
    """What the live page says of a published final ranking ``board``."""
    means = board.columns[:2]
    first = board.columns[0].label if board.columns else ""
    found = board.shakeups[0] if board.shakeups else None
    return FinalSummary(
        board,
        tuple(f"Mean {c.label}" for c in means)
        + tuple(f"{first} {c.label}" for c in board.conditions),
        tuple(
            FinalLine(
                r,
                tuple((r.per_condition.get(c.key) or (None,))[0] for c in board.conditions),
            )
            for r in board.overview
        ),
        found if found is not None and found.tau is not None else None,
        len(means) + 3,
    )


@dataclass(frozen=True)
class EmbedTable:
    """A condition of the embeddable board: its first rows, each with the ranked column's
    cell, and how many it has."""

    condition: ConditionBoard
    lines: tuple[tuple[Row, Cell], ...]
    more: More | None


def embed_tables(board: Leaderboard, limit: int) -> tuple[EmbedTable, ...]:
    """Each condition's first ``limit`` rows with the cell of the ranked column."""
    at = next((i for i, c in enumerate(board.columns) if c.primary), 0)
    return tuple(
        EmbedTable(
            c,
            tuple((r, r.cells[at] if at < len(r.cells) else _NO_CELL) for r in c.rows[:limit]),
            _more(len(c.rows), limit),
        )
        for c in board.conditions
    )


def nothing_published(phase: Any) -> str:
    """What the published rankings' page says before any is published (to this reader)."""
    after = ", after the phase closes" if phase.state in ("upcoming", "open") else ""
    return (
        f"Nothing is published yet. The final rankings of {phase.name} appear here once the "
        f"organisers reveal them{after}."
    )


def private_part(phase: Any, before: str) -> str:
    """``before`` and "ranked on the private part of the test set" on a phase with a split,
    else nothing: a final ranking without a split ranks on the whole test set."""
    return f"{before}ranked on the private part of the test set" if phase.has_split else ""


def snapshot_links(phase: Any, number: int, *, several: bool, errors: bool) -> tuple[Link, ...]:
    """The paper tables and analyses of published snapshot ``number``: robustness on a board
    of several conditions, the errors across teams for whoever may see them (``errors``)."""
    args = (phase.challenge.slug, phase.slug)
    query = f"?board=final&snapshot={number}"
    links = [
        Link("Table for papers: ", reverse("rankings:table", args=(*args, "tex")) + query, "LaTeX"),
        Link(", ", reverse("rankings:table", args=(*args, "md")) + query, "Markdown"),
        Link(" · ", reverse("rankings:pairwise", args=args) + query, "compare two entries"),
    ]
    if several:
        links.append(
            Link(" · ", reverse("rankings:robustness", args=args) + query, "robustness, tested")
        )
    if errors:
        links.append(
            Link(" · ", reverse("rankings:errors", args=args) + query, "errors across teams")
        )
    return tuple(links)


@dataclass(frozen=True)
class Withdrawn:
    """A run or team the organisers withdrew with a public reason: the team, which of its
    runs (``, run “name”`` or `` (every run)``) and the reason."""

    team: str
    run: str
    reason: str


def withdrawn(board: Leaderboard | None) -> tuple[Withdrawn, ...]:
    """The board's withdrawn runs and teams (``Leaderboard.withdrawn``) as the page lists them."""
    if board is None:
        return ()
    return tuple(
        Withdrawn(
            n["team"],
            f", run \u201c{n['method']}\u201d" if n.get("method") else " (every run)",
            n["reason"],
        )
        for n in board.withdrawn
    )
