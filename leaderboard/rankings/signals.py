"""Mark a phase's leaderboards changed whenever a row they are built from is saved or deleted
(the admin's edits included). State transitions written as conditional UPDATEs send no
signal; the services that make them call ``Phase.changed`` themselves."""

from __future__ import annotations

from typing import Any

from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from leaderboard.challenges.models import Challenge, Condition, Phase, Reference
from leaderboard.rankings.models import ReportedResult
from leaderboard.submissions.models import Result, Submission
from leaderboard.teams.models import Team


@receiver([post_save, post_delete], sender=Result)
def result_changed(sender: Any, instance: Result, **kwargs: Any) -> None:
    phase_id = (
        Submission.objects.filter(pk=instance.submission_id)
        .values_list("phase_id", flat=True)
        .first()
    )
    if phase_id is not None:
        Phase.changed(phase_id)


@receiver([post_save, post_delete], sender=Submission)
def submission_changed(sender: Any, instance: Submission, **kwargs: Any) -> None:
    Phase.changed(instance.phase_id)


@receiver(post_save, sender=Challenge)
def challenge_changed(sender: Any, instance: Challenge, **kwargs: Any) -> None:
    """The title, the task's settings and the ranked metric show on every board."""
    Phase.changed(*instance.phases.values_list("pk", flat=True))


@receiver(post_save, sender=Phase)
def phase_changed(sender: Any, instance: Phase, **kwargs: Any) -> None:
    Phase.changed(instance.pk)


@receiver([post_save, post_delete], sender=Condition)
def condition_changed(sender: Any, instance: Condition, **kwargs: Any) -> None:
    Phase.changed(instance.phase_id)


@receiver([post_save, post_delete], sender=Reference)
def reference_changed(sender: Any, instance: Reference, **kwargs: Any) -> None:
    Phase.changed(instance.condition.phase_id)


@receiver([post_save, post_delete], sender=ReportedResult)
def reported_changed(sender: Any, instance: ReportedResult, **kwargs: Any) -> None:
    Phase.changed(instance.phase_id)


@receiver(post_save, sender=Team)
def team_changed(sender: Any, instance: Team, **kwargs: Any) -> None:
    """A team's name or anonymity shows on the boards of every phase it submitted to."""
    Phase.changed(*Submission.objects.filter(team=instance).values_list("phase_id", flat=True))
