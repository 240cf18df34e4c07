"""A final board's shake-up (``rankings.shakeup``) as readers get it: each ranking's figures
and each entry's move, named as the board names the entry (an anonymous team by its label).

Only a published snapshot's board has one for readers (the private board it comes from is
the organisers' until the reveal), and only on a phase with a split: otherwise the board
says why there is none (``note``)."""

from __future__ import annotations

from typing import Any

from leaderboard.rankings.board import Leaderboard, OverviewRow, Row


def _rows(board: Leaderboard, key: str) -> dict[int, Row | OverviewRow]:
    if key == "overview":
        return {r.submission_id: r for r in board.overview}
    return {r.submission_id: r for c in board.conditions if c.key == key for r in c.rows}


def described(board: Leaderboard) -> dict[str, Any]:
    """``{"metric", "note", "rankings": [...]}``: per ranking (the overview's first, then each
    condition's), Kendall's tau and Spearman's rho with their intervals, the mean shift and
    the mean number of places moved, and each entry's move."""
    rankings = []
    for found in board.shakeups:
        rows = _rows(board, found.key)
        entries = []
        for move in found.moves:
            row = rows.get(move.submission_id)
            if row is None:
                continue
            entries.append(
                {
                    "submission_id": move.submission_id,
                    "team": {"slug": row.team_slug, "name": row.team_name},
                    "method_name": row.method_name,
                    "is_baseline": row.is_baseline,
                    "private_rank": move.private_rank,
                    "public_rank": move.public_rank,
                    "rank_change": move.rank_change,
                    "public": move.public,
                    "private": move.private,
                    "shift": move.shift,
                }
            )
        rankings.append(
            {
                "key": found.key,
                "label": found.label,
                "kendall_tau": found.tau,
                "kendall_tau_ci": [found.tau_low, found.tau_high],
                "spearman_rho": found.rho,
                "spearman_rho_ci": [found.rho_low, found.rho_high],
                "mean_shift": found.mean_shift,
                "mean_rank_change": found.mean_rank_change,
                "entries": entries,
            }
        )
    return {"metric": board.primary_metric, "note": board.shakeup_note, "rankings": rankings}
