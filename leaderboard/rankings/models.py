"""Rankings are queries over ``submissions.Result``; the tables here are what an organiser
publishes: frozen private-leaderboard snapshots, and figures reported elsewhere."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.utils import timezone


class ImmutableError(RuntimeError):
    """A published snapshot cannot be changed."""


class Snapshot(models.Model):
    """A published private leaderboard of a phase, frozen: later re-scores never change it.

    ``data`` is the serialised board (``rankings.snapshots.serialise``); ``number`` counts the
    phase's snapshots from 1 and is part of the permalink."""

    phase = models.ForeignKey(
        "challenges.Phase", on_delete=models.CASCADE, related_name="snapshots"
    )
    number = models.PositiveIntegerField()
    data = models.JSONField()
    published_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    published_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["phase", "-number"]
        constraints = [
            models.UniqueConstraint(fields=["phase", "number"], name="snapshot_unique_number"),
        ]

    def __str__(self) -> str:
        return f"{self.phase} snapshot {self.number}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if self.pk is not None:
            raise ImmutableError("a published snapshot is immutable; publish a new one")
        super().save(*args, **kwargs)


class ReportedResult(models.Model):
    """A published figure not scored here (e.g. a paper's JGA), shown only when ``shown``,
    always unranked and labelled "not scored here"."""

    phase = models.ForeignKey(
        "challenges.Phase", on_delete=models.CASCADE, related_name="reported_results"
    )
    condition = models.ForeignKey(
        "challenges.Condition", on_delete=models.CASCADE, related_name="reported_results"
    )
    label = models.CharField(max_length=200, help_text="system name, e.g. D3ST-XXL")
    jga = models.FloatField(null=True, blank=True)
    ser = models.FloatField(null=True, blank=True)
    source = models.CharField(max_length=500, help_text="citation or URL of the figure")
    shown = models.BooleanField(default=False, help_text="show on the leaderboard (unranked)")

    class Meta:
        ordering = ["phase", "condition", "label"]

    def __str__(self) -> str:
        return f"{self.label} ({self.condition}) — reported"
