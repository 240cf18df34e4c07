"""Drop a phase's cached leaderboard whenever something it is computed from changes."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from leaderboard.challenges.models import Reference
from leaderboard.rankings.models import ReportedResult
from leaderboard.rankings.services import invalidate
from leaderboard.submissions.models import Result, Submission


def _later(phase_id: int) -> None:
    # After commit: a reader between our write and the commit would re-cache stale rows.
    transaction.on_commit(lambda: invalidate(phase_id))


@receiver([post_save, post_delete], sender=Result)
def result_changed(sender: Any, instance: Result, **kwargs: Any) -> None:
    phase_id = (
        Submission.objects.filter(pk=instance.submission_id)
        .values_list("phase_id", flat=True)
        .first()
    )
    if phase_id is not None:
        _later(phase_id)


@receiver([post_save, post_delete], sender=Submission)
def submission_changed(sender: Any, instance: Submission, **kwargs: Any) -> None:
    _later(instance.phase_id)


@receiver([post_save, post_delete], sender=Reference)
def reference_changed(sender: Any, instance: Reference, **kwargs: Any) -> None:
    _later(instance.condition.phase_id)


@receiver([post_save, post_delete], sender=ReportedResult)
def reported_changed(sender: Any, instance: ReportedResult, **kwargs: Any) -> None:
    _later(instance.phase_id)
