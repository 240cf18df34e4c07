"""Which submissions the private leaderboard ranks: every team's final selections
(``submissions.services.select_final``), or, for a team that selected none, its best ones on
the public part: by the mean of the primary metric over the conditions, then the mean of the
tie-breaking metric, each in its direction, then the earlier submission. A submission missing a
condition comes after those that cover every condition."""

from __future__ import annotations

from typing import Any

from leaderboard.challenges.models import Phase
from leaderboard.rankings.board import prefix
from leaderboard.submissions.models import Result, Submission


def _public_means(phase: Phase) -> dict[int, tuple[float | None, float | None]]:
    """Submission id -> (mean public primary, mean public tie-breaker) over the conditions."""
    p = prefix(phase, "public")
    n = phase.conditions.count()
    values: dict[int, list[tuple[float | None, float | None]]] = {}
    rows = Result.objects.filter(
        submission__phase=phase,
        submission__status=Submission.Status.SCORED,
        reference__active=True,
        current=True,
    ).values_list("submission_id", f"{p}primary", f"{p}tiebreak")
    for pk, primary, tiebreak in rows:
        values.setdefault(pk, []).append((primary, tiebreak))

    def mean(items: list[float | None]) -> float | None:
        if len(items) != n or any(v is None for v in items):
            return None
        return sum(v for v in items if v is not None) / n

    return {pk: (mean([a for a, _ in v]), mean([b for _, b in v])) for pk, v in values.items()}


def final_submission_ids(phase: Phase) -> frozenset[int]:
    """Every team's final selections, or its best public submissions if it selected none."""
    scored = list(
        Submission.objects.filter(phase=phase, status=Submission.Status.SCORED).values_list(
            "pk", "team_id", "selected_for_final", "created_at"
        )
    )
    chosen = {team for _, team, selected, _ in scored if selected}
    ids = {pk for pk, _, selected, _ in scored if selected}
    challenge = phase.challenge
    direction = {m.name: m.direction for m in challenge.scoring_task().metrics}
    signs = [
        -1.0 if direction[m] == "higher" else 1.0 for m in (challenge.primary, challenge.tiebreak)
    ]
    means = _public_means(phase)
    by_team: dict[int, list[tuple[Any, ...]]] = {}
    for pk, team, _, created in scored:
        if team in chosen:
            continue
        keys = [
            (value is None, sign * (value or 0.0))
            for value, sign in zip(means.get(pk, (None, None)), signs, strict=True)
        ]
        by_team.setdefault(team, []).append((*keys, created, pk))
    for entries in by_team.values():
        entries.sort()
        ids.update(entry[-1] for entry in entries[: phase.max_final_selections])
    return frozenset(ids)
