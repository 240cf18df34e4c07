"""Exports: the leaderboard as readers may see it (JSON, CSV), and the organisers' archive.

The reader export is built from the same boards and snapshots as the page, behind the same
``challenges.visibility`` rule, so it can never show more than the page. The archive (for the
overview paper) holds every Result row of the phase — current or not, every metric, its
signature and reference — and the per-dialogue correctness matrix of each condition."""

from __future__ import annotations

import csv
import io
from typing import Any

from leaderboard.challenges.models import Phase
from leaderboard.challenges.visibility import access
from leaderboard.rankings.services import leaderboard, reported_rows, team_label
from leaderboard.rankings.snapshots import latest, serialise
from leaderboard.submissions.models import Result

METRIC_COLUMNS = ("jga", "jga_low", "jga_high", "ser", "ser_low", "ser_high")


def _phase_info(phase: Phase) -> dict[str, Any]:
    return {
        "challenge": phase.challenge.slug,
        "phase": phase.slug,
        "name": phase.name,
        "state": phase.state,
        "results_visibility": phase.results_visibility,
        "split": phase.has_split,
    }


def reader_export(phase: Phase, user: Any) -> dict[str, Any]:
    """What the leaderboard page shows ``user``: the live public board (if visible), the
    latest published snapshot (after the reveal) and the shown reported figures."""
    rights = access(phase, user)
    snapshot = latest(phase) if rights.snapshots else None
    final = None
    if snapshot is not None:
        final = {
            "snapshot": snapshot.number,
            "published_at": snapshot.published_at.isoformat(),
            **snapshot.data,
        }
    return {
        **_phase_info(phase),
        "public": serialise(leaderboard(phase, "public")) if rights.board else None,
        "final": final,
        "reported": reported_rows(phase) if rights.board else [],
    }


def reader_csv(data: dict[str, Any]) -> str:
    """One line per ranked entry: board (public/final), condition (or overview), then fields."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(
        ["board", "condition", "rank", "group", "team", "method", "submission_id", "baseline",
         *METRIC_COLUMNS, "signature", "metrics"]
    )  # fmt: skip
    for name in ("public", "final"):
        board = data.get(name)
        if not board:
            continue
        for row in board["overview"]:
            writer.writerow(
                [name, "overview", row["rank"], "", _safe(row["team_name"]),
                 _safe(row["method_name"]), row["submission_id"], row["is_baseline"],
                 _num(row["jga"]), "", "", _num(row["ser"]), "", "", ""]
            )  # fmt: skip
        names = [c["name"] for c in board.get("columns") or []]
        for condition in board["conditions"]:
            for row in condition["rows"]:
                writer.writerow(
                    [name, condition["key"], row["rank"], row["group"], _safe(row["team_name"]),
                     _safe(row["method_name"]), row["submission_id"], row["is_baseline"],
                     *(_num(row[c]) for c in METRIC_COLUMNS), row["signature"],
                     _metrics(names, row.get("cells") or [])]
                )  # fmt: skip
    for row in data.get("reported") or []:
        writer.writerow(
            ["reported (not scored here)", row["condition"], "", "", "", _safe(row["label"]), "",
             "", _num(row["jga"]), "", "", _num(row["ser"]), "", "", _safe(row["source"])]
        )  # fmt: skip
    return out.getvalue()


def _metrics(names: list[str], cells: list[Any]) -> str:
    """Every column of the board (any task) as ``name=value`` pairs, e.g. ``joint=66.6667``."""
    return ";".join(f"{n}={_num(c[0])}" for n, c in zip(names, cells, strict=False))


def _num(value: Any) -> str:
    return "" if value is None else f"{value:.4f}"


def _safe(text: Any) -> str:
    text = str(text)
    # Spreadsheets run cells starting with these as formulas (CSV injection): quote them.
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def archive(phase: Phase) -> dict[str, Any]:
    """Every Result of the phase with all its metrics, and the correctness matrices."""
    from leaderboard.rankings.finals import final_submission_ids

    finals = final_submission_ids(phase)
    results = (
        Result.objects.filter(submission__phase=phase)
        .select_related("submission__team", "condition", "reference")
        .order_by("condition__order", "submission_id", "created_at")
    )
    rows: list[dict[str, Any]] = []
    matrices: dict[str, dict[str, Any]] = {}
    prefixes = ("", "public_", "private_")
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
                "n_ref": r.n_ref,
                "sub": r.sub,
                "del": r.dele,
                "ins": r.ins,
                "slot_f1": r.slot_f1,
                **{f"{p}{c}": getattr(r, f"{p}{c}") for p in prefixes for c in METRIC_COLUMNS},
                # every metric of the task (any task), whole reference and parts of the split
                "metrics": r.metrics,
                "intervals": r.intervals,
                "part_metrics": r.part_metrics,
            }
        )
        if not (r.current and r.reference.active):
            continue
        dialogues = (r.breakdown or {}).get("per_dialogue") or []
        matrix = matrices.setdefault(
            r.condition.key,
            {
                "reference_sha256": r.reference.sha256,
                "dialogues": [d["id"] for d in dialogues],
                "turns": [d["turns"] for d in dialogues],
                "correct": {},
            },
        )
        matrix["correct"][str(r.submission_id)] = [d["correct"] for d in dialogues]
    return {
        **_phase_info(phase),
        "split_fraction": phase.split_fraction,
        "split_seed": phase.split_seed,
        "results": rows,
        "correctness": matrices,
        "snapshots": [
            {"number": s.number, "published_at": s.published_at.isoformat(), **s.data}
            for s in phase.snapshots.order_by("number")
        ],
        "reported": reported_rows(phase, organiser=True),
    }
