"""The boards as their worker built them, the frozen private-leaderboard snapshots an organiser
publishes, and figures reported elsewhere."""

from __future__ import annotations

import datetime as dt
import zlib
from typing import Any

import orjson
from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.utils import timezone


class Board(models.Model):
    """A phase's board as the board's worker task last built it (``rankings.boards``): pages,
    the API and the exports only read it. One row per phase and kind; only that task writes
    it, claiming the row with a conditional UPDATE (``lease_until``, ``builder``) as a worker
    claims a submission."""

    class Kind(models.TextChoices):
        PUBLIC = "public", "public"
        PRIVATE = "private", "private"

    phase = models.ForeignKey("challenges.Phase", on_delete=models.CASCADE, related_name="boards")
    kind = models.CharField(max_length=16, choices=Kind.choices)
    #: the phase's ``board_version`` the stored board was built from; null: never built
    version = models.PositiveBigIntegerField(null=True)
    #: the built board: its serialised form (``rankings.serialised``, with its charts) as
    #: JSON, compressed (``pack``); a board of 500 teams is about 780 kB of JSON, 120 kB here
    data = models.BinaryField(null=True)
    built_at = models.DateTimeField(null=True)
    #: how long its build took
    build_seconds = models.FloatField(null=True)
    #: the worker that builds the board now holds it until then; null: nobody builds it
    lease_until = models.DateTimeField(null=True)
    builder = models.CharField(max_length=32, blank=True, default="")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["phase", "kind"], name="board_unique_kind"),
        ]

    def __str__(self) -> str:
        return f"{self.phase_id} {self.kind} board v{self.version}"

    @classmethod
    def renew(cls, pk: int, token: str, lease: dt.timedelta) -> str | None:
        """Move the lease of the builder holding ``token`` on by ``lease`` from now (a
        conditional UPDATE); returns the token, or None when another builder took the board
        over (``leaderboard.leases.Heartbeat`` calls it)."""
        until = timezone.now() + lease
        moved = cls.objects.filter(pk=pk, builder=token).update(lease_until=until)
        return token if moved else None

    @staticmethod
    def pack(data: dict[str, Any]) -> bytes:
        """A serialised board as ``data`` stores it: JSON (``orjson``; the serialised form
        holds only JSON's types, and no NaN, ``rankings.serialised``), compressed."""
        return zlib.compress(orjson.dumps(data), 1)

    @staticmethod
    def unpack(stored: bytes | memoryview) -> dict[str, Any]:
        """The serialised board ``data`` holds."""
        return dict(orjson.loads(zlib.decompress(stored)))


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
    """Published figures not scored here (e.g. a paper's JGA and SER), shown only when
    ``shown``, always unranked and labelled "not scored here"."""

    phase = models.ForeignKey(
        "challenges.Phase", on_delete=models.CASCADE, related_name="reported_results"
    )
    condition = models.ForeignKey(
        "challenges.Condition", on_delete=models.CASCADE, related_name="reported_results"
    )
    label = models.CharField(max_length=200, help_text="system name, e.g. D3ST-XXL")
    #: metric name (of the challenge's task) -> the reported value, on 0-100
    metrics = models.JSONField(
        default=dict,
        help_text='the reported figures by metric name, e.g. {"jga": 45.1, "ser": 21.3}',
    )
    source = models.CharField(max_length=500, help_text="citation or URL of the figure")
    shown = models.BooleanField(default=False, help_text="show on the leaderboard (unranked)")

    class Meta:
        ordering = ["phase", "condition", "label"]

    def __str__(self) -> str:
        return f"{self.label} ({self.condition}) — reported"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if self.condition_id is not None and self.condition.phase_id != self.phase_id:
            raise ValidationError("a reported figure's condition must be one of its phase's")
        super().save(*args, **kwargs)

    def clean(self) -> None:
        """The condition is one of the phase's; every figure names a metric of the
        challenge's task and is a number in 0-100."""
        if self.phase_id is None:
            return
        if self.condition_id is not None and self.condition.phase_id != self.phase_id:
            raise ValidationError(
                {"condition": f"{self.condition.label} is not a condition of {self.phase}; "
                 "choose one of the phase's conditions."}
            )  # fmt: skip
        if not isinstance(self.metrics, dict) or not self.metrics:
            raise ValidationError({"metrics": 'Give at least one figure, e.g. {"jga": 45.1}.'})
        names = {m.name for m in self.phase.challenge.scoring_task().metrics}
        for name, value in self.metrics.items():
            if name not in names:
                raise ValidationError(
                    {"metrics": f"{name!r} is not a metric of this challenge; use one of: "
                     + ", ".join(sorted(names))}
                )  # fmt: skip
            if (
                isinstance(value, bool)
                or not isinstance(value, int | float)
                or not 0 <= value <= 100
            ):
                raise ValidationError({"metrics": f"{name}: give a number from 0 to 100."})
