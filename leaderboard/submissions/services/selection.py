"""Final selections: a team marks up to ``phase.max_final_selections`` scored submissions as
the ones its private leaderboard entry is chosen from (``rankings.finals``)."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from leaderboard.challenges import audit
from leaderboard.challenges.models import Phase
from leaderboard.submissions.models import Submission
from leaderboard.teams.models import Participation


class SelectionError(ValueError):
    """A final selection that cannot be made; the message is safe to show the user."""


def select_final(submission: Submission, user: AbstractBaseUser, selected: bool) -> None:
    """Mark (or unmark) ``submission`` as one of its team's final selections."""
    phase = submission.phase
    if not submission.team.memberships.filter(user=user).exists():
        raise SelectionError("Only a member of the team can choose its final submissions.")
    if phase.revealed:
        raise SelectionError("The private leaderboard is published; selections are closed.")
    if timezone.now() >= phase.closes_at:
        # What the private board ranks is fixed when the phase closes, before any reveal.
        raise SelectionError(
            f"{phase.name} closed on {phase.closes_at:%Y-%m-%d %H:%M} UTC: final selections "
            "froze at the close."
        )
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
        changed = (
            Submission.objects.filter(pk=submission.pk)
            .exclude(selected_for_final=selected)
            .update(selected_for_final=selected)
        )
        if not changed:  # already so: nothing changes, nothing is recorded
            submission.selected_for_final = selected
            return
        Phase.changed(phase.pk)
        audit.record(
            phase.challenge_id, "final-selection", actor=user, phase=phase,
            subject=f"{submission.team.name}: submission {submission.pk}",
            after={"selected": selected},
        )  # fmt: skip
    submission.selected_for_final = selected
