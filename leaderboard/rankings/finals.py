"""Final selections: the submissions of each team that the private leaderboard ranks.

A team marks up to ``phase.max_final_selections`` scored submissions as final while the phase
is not yet revealed. A team that selects none is represented by its best ones on the public
part (the public board's overview order: mean primary metric over the conditions, the other
metric, then the earlier submission)."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from leaderboard.challenges.models import Phase
from leaderboard.submissions.models import Result, Submission
from leaderboard.teams.models import Participation


class SelectionError(ValueError):
    """A final selection that cannot be made; the message is safe to show the user."""


def select_final(submission: Submission, user: Any, selected: bool) -> None:
    """Mark (or unmark) ``submission`` as one of its team's final selections."""
    phase = submission.phase
    if not submission.team.memberships.filter(user=user).exists():
        raise SelectionError("Only a member of the team can choose its final submissions.")
    if phase.revealed:
        raise SelectionError("The private leaderboard is published; selections are closed.")
    if selected and submission.status != Submission.Status.SCORED:
        raise SelectionError("Only a scored submission can be a final selection.")
    with transaction.atomic():
        # The participation row serialises the team's selections (as it does its quota).
        Participation.objects.select_for_update().filter(
            team_id=submission.team_id, challenge_id=phase.challenge_id
        ).first()
        if selected:
            chosen = Submission.objects.filter(
                team_id=submission.team_id, phase=phase, selected_for_final=True
            ).exclude(pk=submission.pk)
            if chosen.count() >= phase.max_final_selections:
                raise SelectionError(
                    f"Your team may select at most {phase.max_final_selections} final "
                    "submission(s); unselect one first."
                )
        Submission.objects.filter(pk=submission.pk).update(selected_for_final=selected)
        phase_id = phase.pk
        transaction.on_commit(lambda: _invalidate(phase_id))
    submission.selected_for_final = selected


def _invalidate(phase_id: int) -> None:
    from leaderboard.rankings.services import invalidate

    invalidate(phase_id)


def _public_means(phase: Phase) -> dict[int, tuple[float | None, float | None]]:
    """Submission id -> (mean public JGA, mean public SER) over every condition."""
    from leaderboard.rankings.services import prefix

    p = prefix(phase, "public")
    n = phase.conditions.count()
    values: dict[int, list[tuple[float | None, float | None]]] = {}
    rows = Result.objects.filter(
        submission__phase=phase,
        submission__status=Submission.Status.SCORED,
        reference__active=True,
        current=True,
    ).values_list("submission_id", f"{p}jga", f"{p}ser")
    for pk, jga, ser in rows:
        values.setdefault(pk, []).append((jga, ser))

    def mean(items: list[float | None]) -> float | None:
        if len(items) != n or any(v is None for v in items):
            return None
        return sum(v for v in items if v is not None) / n

    return {pk: (mean([j for j, _ in v]), mean([s for _, s in v])) for pk, v in values.items()}


def final_submission_ids(phase: Phase) -> frozenset[int]:
    """Every team's final selections, or its best public submissions if it selected none."""
    scored = list(
        Submission.objects.filter(phase=phase, status=Submission.Status.SCORED).values_list(
            "pk", "team_id", "selected_for_final", "created_at"
        )
    )
    chosen = {team for _, team, selected, _ in scored if selected}
    ids = {pk for pk, _, selected, _ in scored if selected}
    means = _public_means(phase)
    primary = phase.challenge.primary_metric
    by_team: dict[int, list[tuple[Any, ...]]] = {}
    for pk, team, _, created in scored:
        if team in chosen:
            continue
        jga, ser = means.get(pk, (None, None))
        jga_key = (jga is None, -(jga or 0.0))
        ser_key = (ser is None, ser or 0.0)
        key = (ser_key, jga_key) if primary == "ser" else (jga_key, ser_key)
        by_team.setdefault(team, []).append((*key, created, pk))
    for entries in by_team.values():
        entries.sort()
        ids.update(entry[-1] for entry in entries[: phase.max_final_selections])
    return frozenset(ids)
