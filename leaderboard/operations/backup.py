"""Back up one challenge to a zip file and restore it, rows and private files together.

The archive holds ``manifest.json`` (format, version, slug, and the rows of every model in
dependency order) and ``files/<stored name>`` for each reference file (the gold and the task's
extra files, such as a schema) and each prediction file. Results travel whole: every metric,
interval, part of the split, breakdown and per-dialogue statistic (the byte columns of
``submissions.ratios`` in base64), so a restored board needs no re-scoring; a backup of
version 2, whose Results kept their per-dialogue numerators and denominators as JSON lists in
``dialogues["columns"]``, is restored into the byte columns. Users are referenced by
username: a restore reuses an existing account of that name or creates it (with the stored
password hash, never staff or superuser rights). Teams are matched by slug the same way,
since a team may take part in several challenges.

Primary keys are kept when they are free in the target database (always so in an empty one,
so submission ids, permalinks and snapshots come back unchanged) and re-allocated otherwise;
foreign keys follow either way. Boards are not backed up: they are derived, and the board's
worker builds them from the restored rows once the restore commits. Written here rather
than with ``dumpdata``/``loaddata``: those cannot select one challenge's rows, remap keys, or
carry the files.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import json
import shutil
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.core.files.base import ContentFile
from django.core.management.color import no_style
from django.db import connection, models, transaction

from leaderboard.challenges.audit import AuditEntry
from leaderboard.challenges.models import Challenge, Condition, Phase, Reference, ReferenceFile
from leaderboard.rankings.models import ReportedResult, Snapshot
from leaderboard.storage import private_storage
from leaderboard.submissions import ratios
from leaderboard.submissions.models import Result, Submission, SubmissionFile
from leaderboard.teams import names
from leaderboard.teams.models import (
    Membership,
    Participation,
    Team,
    new_alias,
    new_invite_code,
)
from scoring.taskapi import DialogueRatios

FORMAT = "trackboard-challenge-backup"
VERSION = 3
#: the versions ``restore_challenge`` reads (2: per-dialogue statistics as JSON lists)
READABLE = (2, 3)
#: Rows restored in this order: every foreign key points to a model earlier in the list.
MODELS: list[type[models.Model]] = [
    Challenge,
    Phase,
    Condition,
    Reference,
    ReferenceFile,
    Team,
    Membership,
    Participation,
    Submission,
    SubmissionFile,
    Result,
    Snapshot,
    ReportedResult,
    AuditEntry,
]
USER_FIELDS = ("username", "email", "first_name", "last_name", "password", "is_active")


class BackupError(ValueError):
    """The archive cannot be written or restored; the message says why."""


def _json_default(value: object) -> str:
    # Full precision: DjangoJSONEncoder would cut datetimes to milliseconds, and a restored
    # submission time that moved would re-break ties between equal scores.
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    raise TypeError(f"cannot write {type(value).__name__} to a backup")


def _label(model: type[models.Model]) -> str:
    return model._meta.label_lower


def _row(obj: models.Model) -> dict[str, Any]:
    row: dict[str, Any] = {}
    for f in obj._meta.concrete_fields:
        value = getattr(obj, f.attname)
        if isinstance(f, models.FileField):
            value = value.name if value else ""
        elif isinstance(f, models.BinaryField):
            # JSON has no bytes; the field reads base64 back (``BinaryField.to_python``)
            value = base64.b64encode(bytes(value or b"")).decode("ascii")
        row[f.attname] = value
    return row


def _querysets(challenge: Challenge) -> dict[type[models.Model], models.QuerySet[Any]]:
    submissions = Submission.objects.filter(phase__challenge=challenge)
    teams = Team.objects.filter(
        models.Q(participations__challenge=challenge) | models.Q(submissions__in=submissions)
    ).distinct()
    return {
        Challenge: Challenge.objects.filter(pk=challenge.pk),
        Phase: Phase.objects.filter(challenge=challenge),
        Condition: Condition.objects.filter(phase__challenge=challenge),
        Reference: Reference.objects.filter(condition__phase__challenge=challenge),
        ReferenceFile: ReferenceFile.objects.filter(
            reference__condition__phase__challenge=challenge
        ),
        Team: teams,
        Membership: Membership.objects.filter(team__in=teams),
        Participation: Participation.objects.filter(challenge=challenge),
        Submission: submissions,
        SubmissionFile: SubmissionFile.objects.filter(submission__in=submissions),
        Result: Result.objects.filter(submission__in=submissions),
        Snapshot: Snapshot.objects.filter(phase__challenge=challenge),
        ReportedResult: ReportedResult.objects.filter(phase__challenge=challenge),
        AuditEntry: AuditEntry.objects.filter(challenge=challenge),
    }


def backup_challenge(slug: str, out: Path) -> dict[str, int]:
    """Write challenge ``slug`` to the zip file ``out``; returns the row count per model."""
    challenge = Challenge.objects.filter(slug=slug).first()
    if challenge is None:
        raise BackupError(f"no challenge {slug!r}")
    User = get_user_model()
    tables: dict[str, list[dict[str, Any]]] = {}
    user_ids: set[int] = set(challenge.organisers.values_list("pk", flat=True))
    outermost = not connection.in_atomic_block
    with transaction.atomic():
        if outermost and connection.vendor == "postgresql":
            # One snapshot for every query below: a submission scored meanwhile must not
            # appear with Results but without its row, or the other way round.
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        for model, queryset in _querysets(challenge).items():
            rows = [_row(obj) for obj in queryset.order_by("pk")]
            tables[_label(model)] = rows
            for f in model._meta.concrete_fields:
                if f.is_relation and f.related_model is User:
                    user_ids.update(r[f.attname] for r in rows if r[f.attname] is not None)
        users = [
            {name: getattr(u, name) for name in ("pk", *USER_FIELDS)}
            for u in User.objects.filter(pk__in=user_ids).order_by("pk")
        ]
        organisers = sorted(challenge.organisers.values_list("username", flat=True))
    manifest = {
        "format": FORMAT,
        "version": VERSION,
        "slug": slug,
        "users": users,
        "organisers": organisers,
        "tables": tables,
    }
    files = _file_names(tables)
    storage = private_storage()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("manifest.json", json.dumps(manifest, default=_json_default, indent=1))
        for name in files:
            # Streamed: prediction files may be tens of megabytes each.
            with storage.open(name, "rb") as source, archive.open(f"files/{name}", "w") as sink:
                shutil.copyfileobj(source, sink, 1024 * 1024)
    counts = {label: len(rows) for label, rows in tables.items()}
    counts["files"] = len(files)
    return counts


#: the models whose rows name a private file (``file``) with its ``sha256``
FILE_MODELS: list[type[models.Model]] = [Reference, ReferenceFile, SubmissionFile]


def _file_names(tables: dict[str, list[dict[str, Any]]]) -> list[str]:
    return [r["file"] for model in FILE_MODELS for r in tables[_label(model)] if r["file"]]


@dataclass
class _Restore:
    """Maps of old primary key -> new primary key, per model."""

    keys: dict[type[models.Model], dict[Any, Any]] = field(default_factory=dict)

    def remap(self, model: type[models.Model], row: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in model._meta.concrete_fields:
            if f.attname not in row:
                continue
            value = row[f.attname]
            if f.is_relation and value is not None:
                target = f.related_model
                assert target is not None  # a concrete relation names its model
                if target not in self.keys or value not in self.keys[target]:
                    raise BackupError(f"{_label(model)} row {row.get('id')} points to a missing "
                                      f"{target._meta.label_lower} {value}")  # fmt: skip
                value = self.keys[target][value]
            elif not f.is_relation:
                value = f.to_python(value)
            out[f.attname] = value
        return out


def _reset_sequences(model_list: Iterable[type[models.Model]]) -> None:
    statements = connection.ops.sequence_reset_sql(no_style(), list(model_list))
    if statements:
        with connection.cursor() as cursor:
            for sql in statements:
                cursor.execute(sql)


def _insert(model: type[models.Model], rows: list[dict[str, Any]], state: _Restore) -> None:
    """Insert ``rows`` keeping each primary key when it is free; record old -> new keys."""
    mapping = state.keys.setdefault(model, {})
    if not rows:
        return
    taken = set(
        model._default_manager.filter(pk__in=[r["id"] for r in rows]).values_list("pk", flat=True)
    )
    kept = [r for r in rows if r["id"] not in taken]
    moved = [r for r in rows if r["id"] in taken]
    # bulk_create: no save() (snapshots refuse a second save of a set primary key); the
    # restore marks the phases' boards changed itself.
    model._default_manager.bulk_create([model(**state.remap(model, r)) for r in kept])
    mapping.update({r["id"]: r["id"] for r in kept})
    _reset_sequences([model])
    if moved:
        objs = []
        for r in moved:
            values = state.remap(model, r)
            values.pop("id")
            objs.append(model(**values))
        model._default_manager.bulk_create(objs)
        mapping.update({r["id"]: obj.pk for r, obj in zip(moved, objs, strict=True)})


def read_archive(path: Path) -> tuple[dict[str, Any], zipfile.ZipFile]:
    try:
        archive = zipfile.ZipFile(path)
        manifest = json.loads(archive.read("manifest.json"))
    except (OSError, KeyError, ValueError, zipfile.BadZipFile) as exc:
        raise BackupError(f"{path} is not a Trackboard challenge backup: {exc}") from None
    if manifest.get("format") != FORMAT or manifest.get("version") not in READABLE:
        raise BackupError(
            f"{path} is not a Trackboard challenge backup of version "
            + " or ".join(map(str, READABLE))
        )
    return manifest, archive


def restore_challenge(path: Path) -> dict[str, int]:
    """Restore the backup at ``path``; refuses when its challenge slug already exists."""
    manifest, archive = read_archive(path)
    with archive:
        return _restore(manifest, archive)


def _restore(manifest: dict[str, Any], archive: zipfile.ZipFile) -> dict[str, int]:
    slug = manifest["slug"]
    if Challenge.objects.filter(slug=slug).exists():
        raise BackupError(f"a challenge {slug!r} already exists; nothing was restored")
    tables: dict[str, list[dict[str, Any]]] = manifest["tables"]
    if manifest["version"] == 2:
        _stored_ratios(tables)

    # Files first, outside the transaction (storage I/O stays out of atomic blocks); each is
    # checked against the sha256 its row recorded. Stored names are random, so a name already
    # present gets a fresh one and the row follows.
    storage = private_storage()
    renamed: dict[str, str] = {}
    saved: list[str] = []
    sums = {r["file"]: r["sha256"] for model in FILE_MODELS for r in tables[_label(model)]}
    try:
        for name in _file_names(tables):
            try:
                data = archive.read(f"files/{name}")
            except KeyError:
                raise BackupError(f"the backup lacks the file {name}") from None
            if hashlib.sha256(data).hexdigest() != sums[name]:
                raise BackupError(f"{name} in the backup does not match its sha256")
            stored = storage.save(name, ContentFile(data))
            saved.append(stored)
            renamed[name] = stored
        counts = _restore_rows(manifest, tables, renamed)
    except BaseException:
        for name in saved:
            storage.delete(name)
        raise
    counts["files"] = len(saved)
    return counts


def _restore_rows(
    manifest: dict[str, Any], tables: dict[str, list[dict[str, Any]]], renamed: dict[str, str]
) -> dict[str, int]:
    User = get_user_model()
    state = _Restore()
    counts: dict[str, int] = {}
    with transaction.atomic():
        users = state.keys.setdefault(User, {})
        for spec in manifest["users"]:
            user = User.objects.filter(username=spec["username"]).first()
            if user is None:
                user = User(**{name: spec[name] for name in USER_FIELDS})
                if user.email and User.objects.filter(email__iexact=user.email).exists():
                    user.email = ""  # one account per address here: it stays with its owner
                user.save()
            users[spec["pk"]] = user.pk
        counts["users"] = len(users)

        for model in MODELS:
            # (a backup written before the audit log has no table of it)
            rows = [dict(r) for r in tables.get(_label(model), [])]
            for r in rows:
                if r.get("file"):
                    r["file"] = renamed[r["file"]]
            if model is Team:
                rows = _match_teams(rows, state)
            elif model is Membership:
                rows = _new_memberships(rows, state)
            _insert(model, rows, state)
            counts[_label(model)] = len(tables.get(_label(model), []))

        challenge = Challenge.objects.get(slug=manifest["slug"])
        challenge.organisers.set(User.objects.filter(username__in=manifest["organisers"]))
        # boards are built by their worker from the restored rows (they are not backed up)
        Phase.changed(*challenge.phases.values_list("pk", flat=True))
    return counts


def _stored_ratios(tables: dict[str, list[dict[str, Any]]]) -> None:
    """The Results of a version-2 backup with their per-dialogue statistics moved from
    ``dialogues["columns"]`` to the byte columns (``submissions.ratios``), in place."""
    primary = {
        row["id"]: Challenge(task=row["task"], primary_metric=row["primary_metric"]).primary
        for row in tables[_label(Challenge)]
    }
    phases = {row["id"]: row["challenge_id"] for row in tables[_label(Phase)]}
    conditions = {row["id"]: phases[row["phase_id"]] for row in tables[_label(Condition)]}
    for row in tables[_label(Result)]:
        found = row.get("dialogues") or {}
        if "columns" not in found:
            continue
        columns = {m: (num, den) for m, (num, den) in found["columns"].items()}
        ids, turns = tuple(found.get("ids") or ()), tuple(found.get("turns") or ())
        metric = primary[conditions[row["condition_id"]]]
        row.update(ratios.columns(DialogueRatios(ids, columns, turns), metric))


def _match_teams(rows: list[dict[str, Any]], state: _Restore) -> list[dict[str, Any]]:
    """Teams already present (same slug) are reused; the others are returned for insertion."""
    mapping = state.keys.setdefault(Team, {})
    fresh = []
    for r in rows:
        existing = Team.objects.filter(slug=r["slug"]).first()
        if existing is not None:
            mapping[r["id"]] = existing.pk
            continue
        if Team.objects.filter(name=r["name"]).exists():
            raise BackupError(f"another team is already called {r['name']!r}")
        if Team.objects.filter(invite_code=r["invite_code"]).exists():
            r["invite_code"] = new_invite_code()
        # a backup made before teams had aliases, or an alias taken here: a new one
        if not r.get("alias") or Team.objects.filter(alias=r["alias"]).exists():
            r["alias"] = new_alias()
        r["name_key"] = names.key(r["name"])  # rows are inserted without save()
        fresh.append(r)
    return fresh


def _new_memberships(rows: list[dict[str, Any]], state: _Restore) -> list[dict[str, Any]]:
    """Memberships the target database does not hold yet (a reused team keeps its own)."""
    mapping = state.keys.setdefault(Membership, {})
    fresh = []
    for r in rows:
        team = state.keys[Team].get(r["team_id"])
        user = state.keys[get_user_model()].get(r["user_id"])
        existing = (
            Membership.objects.filter(team_id=team, user_id=user).first()
            if team is not None and user is not None
            else None  # an unknown team or person has no membership here
        )
        if existing is not None:
            mapping[r["id"]] = existing.pk
        else:
            fresh.append(r)
    return fresh
