"""Exports: the leaderboard as readers may see it (JSON, CSV), and the organisers' archive.

The reader JSON also holds, for the public board and for the published snapshot alike, the
board's tested robustness (``analyses.robustness``) and, for whoever may see it, its
cross-team error analysis (``analyses.crossteam``).

The reader export is built from the same boards and snapshots as the page, behind the same
``challenges.visibility`` rule, so it can never show more than the page. Each of its rows
holds its entry's facts (team, method, submission), whatever the format its board is stored
in (``rankings.serialised.expanded``), and what its submission declared about its system
(its ``facts``, the board's declared system facts: ``challenges.facts``), a CSV column each.
The archive (for the
overview paper) holds every Result row of the phase — current or not, every metric, its
signature and reference — and, per condition, the per-dialogue counts of the primary metric
and the per-turn verdicts of every current Result."""

from __future__ import annotations

import csv
import dataclasses
import io
from typing import Any

from leaderboard.analyses.crossteam import analyse, may_see
from leaderboard.analyses.papers import statement
from leaderboard.analyses.robustness import changes
from leaderboard.challenges import audit
from leaderboard.challenges.facts import Fact
from leaderboard.challenges.facts import shown as fact_cell
from leaderboard.challenges.models import Phase
from leaderboard.challenges.visibility import access
from leaderboard.rankings.board import Leaderboard, team_label
from leaderboard.rankings.boards import Stored, stored
from leaderboard.rankings.compute import reported_rows
from leaderboard.rankings.facts import stored_facts
from leaderboard.rankings.finals import final_submission_ids
from leaderboard.rankings.models import Snapshot
from leaderboard.rankings.serialised import expanded, from_data, serialise
from leaderboard.rankings.snapshots import latest, shown_data
from leaderboard.spreadsheets import spreadsheet_safe as _safe
from leaderboard.submissions import ratios
from leaderboard.submissions.models import Result


def _phase_info(phase: Phase) -> dict[str, Any]:
    return {
        "challenge": phase.challenge.slug,
        "phase": phase.slug,
        "name": phase.name,
        "state": phase.state,
        "results_visibility": phase.results_visibility,
        "split": phase.has_split,
    }


def _analyses(phase: Phase, user: Any, board: Leaderboard) -> dict[str, Any]:
    """A board's tested robustness and, for whoever may see it, its cross-team errors."""
    first, entries = changes(phase, board)
    return {
        "robustness": {"first": first, "entries": [dataclasses.asdict(e) for e in entries]},
        "errors": dataclasses.asdict(analyse(phase, board)) if may_see(phase, user) else None,
    }


def reader_export(
    phase: Phase, user: Any, found: Stored | None = None, *, snapshot: Snapshot | None = None
) -> dict[str, Any]:
    """What the leaderboard page shows ``user``: the stored public board (if visible;
    ``found`` when the caller has read it), the latest published snapshot (after the reveal;
    ``snapshot``, one of the phase's, in its place) and the shown reported figures, each board
    with its analyses. A snapshot is only ever in it for whoever may see the snapshots."""
    rights = access(phase, user)
    if snapshot is not None and snapshot.phase_id != phase.pk:
        raise ValueError(f"{snapshot} is not a snapshot of {phase}")
    if not rights.snapshots:
        snapshot = None
    elif snapshot is None:
        snapshot = latest(phase)
    final = None
    if snapshot is not None:
        data = shown_data(snapshot)
        final = {
            "shows": statement(phase.has_split, "private", snapshot.number),
            "snapshot": snapshot.number,
            "published_at": snapshot.published_at.isoformat(),
            **expanded(data),
            # the snapshot's own: its entries and labels, its part of the split
            **_analyses(phase, user, from_data(data)),
        }
    if not rights.board:
        found = None
    elif found is None:
        found = stored(phase)
    board = found.board if found is not None else None
    public = _analyses(phase, user, board) if board is not None else {}
    return {
        **_phase_info(phase),
        "public": (
            {**expanded(serialise(board)), "shows": statement(phase.has_split, board.part, None)}
            if board is not None
            else None
        ),
        # when the public board was built, and whether a newer one is on its way
        "built_at": found.built_at.isoformat() if found and found.built_at else None,
        "updating": found.behind if found is not None else False,
        "final": final,
        "reported": reported_rows(phase) if rights.board else [],
        # the public board's tested robustness and its cross-team error analysis
        "robustness": public.get("robustness"),
        "errors": public.get("errors"),
    }


#: Columns of a ranked line after its metrics: its rank interval, the scored submissions
#: behind it, and on a final board its move from the public part (``rankings.shakeup``).
ROW_COLUMNS = (
    "rank_low", "rank_high", "submissions",
    "public_rank", "rank_change", "public_score", "score_shift",
)  # fmt: skip
#: Columns of a line of a board's statistics: its name, value and interval.
STATISTIC_COLUMNS = ("statistic", "statistic_value", "statistic_low", "statistic_high")


def reader_csv(data: dict[str, Any]) -> str:
    """One line per ranked entry: board (public/final) and what it shows (``shows``: the live
    board's public part of the split, the private part of snapshot N, or the whole reference;
    ``papers.statement``), condition (or overview), then the
    entry, each declared system fact (by key; empty where the submission declared none), and
    every metric of the boards with its interval (empty where it has none), its
    rank interval, the scored submissions behind it and, on the final board, its move from
    the public part (public rank, places gained, public-part score of the primary metric and
    the shift to the private part); then one line per statistic of each board (``statistic``:
    ``detectable_difference`` per condition; on the final board, per ranking,
    ``kendall_tau``, ``spearman_rho`` with their intervals, ``mean_shift`` and
    ``mean_rank_change``); then one line per shown reported figure. Metrics are the boards'
    columns in order, then any other metric a reported figure gives, by name."""
    boards = [(name, data[name]) for name in ("public", "final") if data.get(name)]
    reported = data.get("reported") or []
    names: list[str] = []
    facts: dict[str, Fact] = {}
    for _, board in boards:
        names += [c["name"] for c in board["columns"] if c["name"] not in names]
        for fact in _declared(board):
            facts.setdefault(fact.key, fact)
    for row in reported:
        names += [n for n in sorted(row["metrics"]) if n not in names]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    metric_header = [f"{n}{suffix}" for n in names for suffix in ("", "_low", "_high")]
    writer.writerow(
        ["board", "shows", "condition", "rank", "group", "team", "method", "submission_id",
         "baseline", *(_safe(key) for key in facts), *metric_header, *ROW_COLUMNS,
         *STATISTIC_COLUMNS, "signature", "source"]
    )  # fmt: skip
    no_facts = [""] * len(facts)
    empty_row = [""] * len(ROW_COLUMNS)
    empty_statistic = [""] * len(STATISTIC_COLUMNS)
    shows_of = {name: board.get("shows", "") for name, board in boards}

    def values_only(values: dict[str, Any]) -> list[str]:
        # a value without an interval (overview means, reported figures)
        return [_num(values.get(n)) if i == 0 else "" for n in names for i in range(3)]

    def declared(row: dict[str, Any]) -> list[str]:
        given = row.get("facts") or {}  # none before format 4
        return [_safe(fact_cell(fact, given.get(key))) for key, fact in facts.items()]

    def extra(row: dict[str, Any], moves: dict[int, dict[str, Any]]) -> list[str]:
        move = moves.get(row["submission_id"]) or {}
        public, private = move.get("public"), move.get("private")
        rank_change = None
        if move.get("public_rank") is not None:
            rank_change = move["public_rank"] - move["private_rank"]
        shift = None if public is None or private is None else private - public
        return [_whole(row.get("rank_low")), _whole(row.get("rank_high")),
                _whole(row.get("submissions")), _whole(move.get("public_rank")),
                _whole(rank_change), _num(public), _num(shift)]  # fmt: skip

    def statistic(name: str, key: str, label: str, value: Any, low: Any = None,
                  high: Any = None) -> list[Any]:  # fmt: skip
        return [name, shows_of[name], key, "", "", "", "", "", "", *no_facts,
                *([""] * len(metric_header)), *empty_row, label, _num(value), _num(low),
                _num(high), "", ""]  # fmt: skip

    for name, board in boards:
        shows = shows_of[name]
        shown = [c["name"] for c in board["columns"]]
        shakeups = {s["key"]: s for s in board.get("shakeups") or ()}
        moves = {
            key: {m["submission_id"]: m for m in found["moves"]} for key, found in shakeups.items()
        }
        for row in board["overview"]:
            means = dict(zip(shown[:2], row["means"], strict=False))
            writer.writerow(
                [name, shows, "overview", row["rank"], "", _safe(row["team_name"]),
                 _safe(row["method_name"]), row["submission_id"], row["is_baseline"],
                 *declared(row), *values_only(means), *extra(row, moves.get("overview", {})),
                 *empty_statistic, "", ""]
            )  # fmt: skip
        for condition in board["conditions"]:
            for row in condition["rows"]:
                cells = dict(zip(shown, row["cells"], strict=True))
                writer.writerow(
                    [name, shows, _safe(condition["key"]), row["rank"], row["group"],
                     _safe(row["team_name"]), _safe(row["method_name"]), row["submission_id"],
                     row["is_baseline"], *declared(row),
                     *(_num(v) for n in names for v in cells.get(n, (None, None, None))),
                     *extra(row, moves.get(condition["key"], {})), *empty_statistic,
                     row["signature"], ""]
                )  # fmt: skip
        for condition in board["conditions"]:
            if condition.get("detectable") is not None:
                writer.writerow(
                    statistic(
                        name, condition["key"], "detectable_difference", condition["detectable"]
                    )
                )
        for key, found in shakeups.items():
            writer.writerow(
                statistic(
                    name, key, "kendall_tau", found["tau"], found["tau_low"], found["tau_high"]
                )
            )
            writer.writerow(
                statistic(
                    name, key, "spearman_rho", found["rho"], found["rho_low"], found["rho_high"]
                )
            )
            writer.writerow(statistic(name, key, "mean_shift", found["mean_shift"]))
            writer.writerow(statistic(name, key, "mean_rank_change", found["mean_rank_change"]))
    for row in reported:
        writer.writerow(
            ["reported (not scored here)", "", _safe(row["condition"]), "", "", "",
             _safe(row["label"]), "", "", *no_facts, *values_only(row["metrics"]), *empty_row,
             *empty_statistic, "", _safe(row["source"])]
        )  # fmt: skip
    return out.getvalue()


def _declared(board: dict[str, Any]) -> tuple[Fact, ...]:
    """The declared system facts of a board's serialised form (none before format 4)."""
    return stored_facts(board.get("facts") or ())


def _whole(value: Any) -> str:
    return "" if value is None else str(value)


def _num(value: Any) -> str:
    return "" if value is None else f"{value:.4f}"


def archive(phase: Phase) -> dict[str, Any]:
    """Every Result of the phase with all its metrics, and per condition the per-dialogue
    numerators and denominators of the primary metric and the per-turn verdicts of every
    current Result on the active reference, keyed by submission id."""
    finals = final_submission_ids(phase)
    challenge = phase.challenge
    primary = challenge.primary
    results = (
        Result.objects.filter(submission__phase=phase)
        .select_related("submission__team", "condition", "reference")
        .defer("primary_ratios")
        .order_by("condition__order", "condition__key", "submission_id", "created_at")
    )
    rows: list[dict[str, Any]] = []
    matrices: dict[str, dict[str, Any]] = {}
    for r in results:
        team = r.submission.team
        rows.append(
            {
                "submission_id": r.submission_id,
                "team": team.name,
                "team_shown_as": team_label(team)[0],
                "method": r.submission.method_name,
                "baseline": r.submission.is_baseline,
                "status": r.submission.status,
                "final_selection": r.submission_id in finals,
                "selected_for_final": r.submission.selected_for_final,
                "condition": r.condition.key,
                "reference_sha256": r.reference.sha256,
                "reference_active": r.reference.active,
                "current": r.current,
                "signature": r.signature,
                "created_at": r.created_at.isoformat(),
                # every metric of the task, whole reference and parts of the split
                "metrics": r.metrics,
                "intervals": r.intervals,
                "part_metrics": r.part_metrics,
                "breakdown": r.breakdown,
            }
        )
        if not (r.current and r.reference.active):
            continue
        # from every metric's statistics: right for the primary metric even before the
        # re-scoring that follows a change of it
        column = ratios.decode(r.ratios).get(primary)
        if column is None:
            continue
        matrix = matrices.setdefault(
            r.condition.key,
            {
                "reference_sha256": r.reference.sha256,
                "metric": primary,
                "dialogues": r.dialogues["ids"],
                # per submission: one number per dialogue, in the order of ``dialogues``
                "numerators": {},
                "denominators": {},
                # per submission: one string per dialogue, a 1 or 0 per turn
                "turns": {},
            },
        )
        key = str(r.submission_id)
        matrix["numerators"][key] = column[0].tolist()
        matrix["denominators"][key] = column[1].tolist()
        matrix["turns"][key] = r.dialogues.get("turns") or []
    return {
        **_phase_info(phase),
        "task": challenge.task,
        "metrics": challenge.metric_specs(),
        "primary_metric": primary,
        # the metric the per-turn verdicts are on: the task's own joint metric
        "turn_metric": challenge.scoring_task().primary,
        "split_fraction": phase.split_fraction,
        "split_seed": phase.split_seed,
        "results": rows,
        "correctness": matrices,
        "snapshots": [
            {"number": s.number, "published_at": s.published_at.isoformat(), **expanded(s.data)}
            for s in phase.snapshots.order_by("number")
        ],
        "reported": reported_rows(phase, organiser=True),
        # what organisers and operators did to the phase and to its challenge as a whole
        "audit": [e.describe() for e in audit.entries(challenge, phase)],
    }
