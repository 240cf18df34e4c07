"""A team's choices for the boards. Final selections: a team marks up to
``phase.max_final_selections`` scored submissions as the ones its private leaderboard entry is
chosen from (``rankings.finals``). The public run: where the phase allows it, a team marks one
scored run as the one its public board rows show instead of its best (``rankings.compute``)."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from leaderboard.challenges import audit
from leaderboard.challenges.models import Phase
from leaderboard.submissions.models import Submission
from leaderboard.teams.models import Participation


class SelectionError(ValueError):
    """A final selection that cannot be made; the message is safe to show the user."""


def _lock_choices(submission: Submission) -> None:
    """Serialise the team's choices in the phase (final selections, the public run) on its
    participation row, as its quota is, inside the caller's transaction."""
    Participation.objects.select_for_update().filter(
        team_id=submission.team_id, challenge_id=submission.phase.challenge_id
    ).first()


def select_final(submission: Submission, user: User, selected: bool) -> None:
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
        _lock_choices(submission)
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


def choose_public(submission: Submission, user: User, chosen: bool) -> None:
    """Make ``submission`` the run that represents its team on the public board (``chosen``),
    replacing the team's earlier choice, or take the choice back (the board then shows the
    team's best run again). Where the phase lets teams choose (``Phase.public_run_chosen``);
    the board ranks the choice while it counts (``rankings.compute``)."""
    phase = submission.phase
    if not submission.team.memberships.filter(user=user).exists():
        raise SelectionError("Only a member of the team can choose the run shown for it.")
    if not phase.public_run_chosen:
        raise SelectionError(
            f"{phase.name} does not let teams choose their public run: the public board shows "
            "each team's best run."
        )
    if phase.revealed:
        raise SelectionError("The private leaderboard is published; the public runs are fixed.")
    if chosen and submission.is_baseline:
        raise SelectionError("A baseline has its own row on the board; choose one of your runs.")
    if chosen and submission.status != Submission.Status.SCORED:
        raise SelectionError("Only a scored run can be shown on the public board.")
    with transaction.atomic():
        _lock_choices(submission)
        mine = Submission.objects.filter(team_id=submission.team_id, phase=phase)
        before = mine.filter(shown_on_public=True).values_list("pk", flat=True).first()
        after = submission.pk if chosen else (None if before == submission.pk else before)
        if before == after:  # already so: nothing changes, nothing is recorded
            submission.shown_on_public = chosen
            return
        mine.filter(shown_on_public=True).update(shown_on_public=False)
        if chosen:
            mine.filter(pk=submission.pk).update(shown_on_public=True)
        Phase.changed(phase.pk)
        audit.record(
            phase.challenge_id, "public-run", actor=user, phase=phase,
            subject=f"{submission.team.name}: submission {submission.pk}",
            before={"shown": before}, after={"shown": after},
        )  # fmt: skip
    submission.shown_on_public = chosen
