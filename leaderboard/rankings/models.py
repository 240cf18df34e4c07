"""The boards as their worker built them, the frozen private-leaderboard snapshots an organiser
publishes, and figures reported elsewhere."""

from __future__ import annotations

import datetime as dt
import json
import math
import zlib
from typing import Any

import orjson
from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.serializers.json import DjangoJSONEncoder
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
    #: JSON, its rows' shared facts listed once, compressed (``pack``); a board of 500 teams
    #: is about 740 kB of JSON, 130 kB here
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
        """A serialised board as ``data`` stores it: JSON, written by orjson when it writes
        what reads back (``unpack``) the same as the standard library's encoder's JSON
        (``_orjson``), else by that encoder."""
        shared = _shared(data)
        text = _orjson(shared)
        if text is None:
            text = json.dumps(shared, cls=DjangoJSONEncoder, separators=(",", ":")).encode()
        return zlib.compress(text, 1)

    @staticmethod
    def unpack(stored: bytes | memoryview) -> dict[str, Any]:
        """The serialised board ``data`` holds (whichever encoder wrote it, with its rows'
        facts listed once or, as stored before, in every row)."""
        return _unshared(dict(json.loads(zlib.decompress(stored))))


#: The facts of a board's row (``serialised``) that the stored form lists once for all the
#: rows sharing them (``_shared``): the row keeps the index of its facts under the key. Each
#: team's submission is in up to four tables (the overview and each condition), and the
#: scorer's signature is usually the same on every row.
SHARED: dict[str, tuple[str, ...]] = {
    "~entry": (
        "team_id",
        "team_name",
        "team_slug",
        "method_name",
        "method_url",
        "method_description",
        "is_baseline",
        "submitted_at",
    ),
    "~signature": ("signature",),
}
#: The stored form's key of the facts' lists (absent from boards stored before).
_TABLES = "~shared"
#: What a fact may be to be listed once: the JSON scalars, compared with their type (so that
#: True and 1 stay apart).
_SCALARS = frozenset((str, int, bool, type(None)))


def _row_lists(data: dict[str, Any]) -> list[list[Any]]:
    """The lists of rows of a serialised board: each condition's, then the overview."""
    found = [
        c["rows"]
        for c in data.get("conditions") or ()
        if isinstance(c, dict) and isinstance(c.get("rows"), list)
    ]
    if isinstance(data.get("overview"), list):
        found.append(data["overview"])
    return found


def _shared(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` (not changed) with each row's ``SHARED`` facts listed once under ``_TABLES``:
    a row keeps the index of its facts instead (a row missing one of a group's facts, or with
    a fact that is not a JSON scalar, keeps that group as it is). ``_unshared`` undoes it."""
    if not isinstance(data, dict) or _TABLES in data:
        return data
    indexes: dict[str, dict[tuple[Any, ...], int]] = {marker: {} for marker in SHARED}
    groups = [(marker, keys, set(keys), indexes[marker]) for marker, keys in SHARED.items()]

    def row(found: Any) -> Any:
        if type(found) is not dict:
            return found
        dropped: set[str] = set()
        markers = {}
        for marker, keys, named, seen in groups:
            try:
                values = tuple([found[key] for key in keys])
            except KeyError:
                continue
            kinds = tuple(map(type, values))
            if not _SCALARS.issuperset(kinds):
                continue
            markers[marker] = seen.setdefault((values, kinds), len(seen))
            dropped |= named
        out = {key: value for key, value in found.items() if key not in dropped}
        out.update(markers)
        return out

    lists = _row_lists(data)
    if not lists:
        return data
    shared = dict(data)
    if isinstance(data.get("overview"), list):
        shared["overview"] = [row(r) for r in data["overview"]]
    if isinstance(data.get("conditions"), list):
        shared["conditions"] = [
            {**c, "rows": [row(r) for r in c["rows"]]}
            if isinstance(c, dict) and isinstance(c.get("rows"), list)
            else c
            for c in data["conditions"]
        ]
    shared[_TABLES] = {
        marker: [list(values) for values, _ in seen] for marker, seen in indexes.items()
    }
    return shared


def _unshared(data: dict[str, Any]) -> dict[str, Any]:
    """The serialised board ``_shared`` stored as ``data`` (changed in place): each row with
    its facts again."""
    tables = data.pop(_TABLES, None)
    if tables is None:
        return data  # stored before: every row has its facts
    for rows in _row_lists(data):
        for found in rows:
            for marker, keys in SHARED.items():
                if isinstance(found, dict) and marker in found:
                    found.update(zip(keys, tables[marker][found.pop(marker)], strict=True))
    return data


#: Where orjson leaves a value to ``DjangoJSONEncoder`` (which writes dates and times its own
#: way), and refuses what that encoder refuses.
_ORJSON_OPTIONS = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS
_DJANGO = DjangoJSONEncoder()


def _orjson(data: Any) -> bytes | None:
    """``data`` as JSON by orjson (a tenth of the standard library's time at 500 teams), or
    None when orjson would not write what the standard library's encoder writes back: a float
    that is not finite (orjson writes null; the standard library NaN or Infinity, read back
    as such) or anything orjson refuses (keys other than strings, integers beyond 64 bits,
    numpy's numbers, strings with lone surrogates). Dates, times, Decimals and lazy strings
    are written by ``DjangoJSONEncoder``'s ``default``, as before."""
    if not _finite(data):
        return None
    try:
        return orjson.dumps(data, default=_DJANGO.default, option=_ORJSON_OPTIONS)
    except orjson.JSONEncodeError:
        return None


def _finite(value: Any) -> bool:
    """Whether no float in ``value`` (through its dicts, lists and tuples) is NaN or infinite.
    Other types are left to orjson, which refuses those it does not know."""
    kind = type(value)
    if kind is dict:
        value = value.values()
    elif kind is list or kind is tuple:
        pass
    elif isinstance(value, float):
        return math.isfinite(value)
    elif isinstance(value, dict):
        value = value.values()
    elif not isinstance(value, list | tuple):
        return True
    for item in value:
        kind = type(item)
        if kind is float:
            if not math.isfinite(item):
                return False
        elif kind is str or kind is int or kind is bool or item is None:
            continue
        elif not _finite(item):
            return False
    return True


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
