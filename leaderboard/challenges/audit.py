"""The audit log: what organisers and operators did to a challenge, who, when, and what it
changed (before and after, where a value changed).

One row per action, written by the service that performs it, in the action's own
transaction (``record``): an action that is rolled back leaves no entry, and an entry never
describes something that did not happen. The challenge's organisers read it on their
dashboard and through the organiser API; it is part of the phase's archive.

A small model of our own rather than a history library: the history libraries record row
versions of chosen models (django-simple-history keeps a shadow table per model,
django-pghistory does it with Postgres triggers, which the embedded SQLite mode lacks;
django-auditlog logs model saves by signals). Most of what must be traced here is not a row
save seen by a signal: a reveal, a file download, a re-score of a hundred submissions or a
state change made by a conditional UPDATE. Each of those is one action, named, with the
figures an organiser needs, which only the service performing it knows."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import Any

from django.conf import settings
from django.db import models
from django.utils import timezone


class AuditEntry(models.Model):
    """One organiser's or operator's action on a challenge (``record`` writes it)."""

    #: the challenge the action concerns; None for the site as a whole (an account, a group),
    #: and for the entries of a challenge since deleted (they stay, for the operators)
    challenge = models.ForeignKey(
        "challenges.Challenge",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="audit_entries",
    )
    #: the phase the action concerns; None for the challenge as a whole
    phase = models.ForeignKey(
        "challenges.Phase",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="audit_entries",
    )
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    #: who, as written when it happened (kept if the account goes): a username, or
    #: "operator (<command>)" for a management command
    actor_name = models.CharField(max_length=200)
    at = models.DateTimeField(default=timezone.now)
    #: what was done, a short name (``ACTIONS``)
    action = models.SlugField(max_length=64)
    #: what it was done to, in words ("Team Beta", "submission 42", "tts-verbatim: v ab12...")
    subject = models.CharField(max_length=300, blank=True)
    before = models.JSONField(default=dict, blank=True)
    after = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-at", "-pk"]
        indexes = [models.Index(fields=["challenge", "at"], name="audit_challenge_at")]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.actor_name} {self.action} {self.subject}"

    def describe(self) -> dict[str, Any]:
        """The entry as the organiser API and the archive give it."""
        return {
            "at": self.at.isoformat(),
            "actor": self.actor_name,
            "action": self.action,
            "label": ACTIONS.get(self.action, self.action),
            "phase": self.phase.slug if self.phase_id and self.phase else None,
            "subject": self.subject,
            "before": self.before,
            "after": self.after,
        }


#: every action the log records, with how the dashboard names it
ACTIONS = {
    "challenge-created": "challenge created",
    "challenge-changed": "challenge settings changed",
    "phase-changed": "phase settings changed",
    "post-challenge-opened": "post-challenge phase opened",
    "organiser-added": "organiser added",
    "organiser-removed": "organiser removed",
    "reference-added": "reference version uploaded",
    "reference-activated": "reference version activated",
    "rescored": "submissions queued for re-scoring",
    "registration": "registration approved or refused",
    "final-selection": "final selection changed",
    "public-run": "run shown on the public board chosen by the team",
    "method-edited": "method name, description or URL edited by the team",
    "anonymity": "team anonymity changed",
    "revealed": "private leaderboard revealed",
    "files-downloaded": "submitted files downloaded",
    "admin-added": "added in the admin",
    "admin-changed": "changed in the admin",
    "admin-deleted": "deleted in the admin",
    "withdrawn": "run withdrawn or team disqualified",
    "reinstated": "withdrawal undone",
    "erased": "data erased by an operator",
    "announcement-posted": "announcement posted",
    "announcement-deleted": "announcement deleted",
    "account-deleted": "account deleted by its owner",
}


def _as_json(value: Any) -> Any:
    if isinstance(value, dt.datetime | dt.date):
        return value.isoformat()
    if isinstance(value, models.Model):
        return str(value)
    return value


def record(
    challenge: Any,
    action: str,
    *,
    actor: Any = None,
    actor_name: str = "",
    phase: Any = None,
    subject: str = "",
    before: dict[str, Any] | None = None,
    after: dict[str, Any] | None = None,
) -> AuditEntry:
    """Write one entry; call it inside the transaction of the action it records. ``actor``
    is the user who acted (None: an operator's command, named by ``actor_name``)."""
    if action not in ACTIONS:
        raise ValueError(f"unknown audit action {action!r}")
    user = actor if actor is not None and getattr(actor, "is_authenticated", False) else None
    name = actor_name or (user.get_username() if user is not None else "operator")
    return AuditEntry.objects.create(
        challenge_id=getattr(challenge, "pk", challenge),
        phase_id=getattr(phase, "pk", phase),
        actor=user,
        actor_name=name[:200],
        action=action,
        subject=subject[:300],
        before={k: _as_json(v) for k, v in (before or {}).items()},
        after={k: _as_json(v) for k, v in (after or {}).items()},
    )


def changes(old: Any, new: Any, names: Iterable[str]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(before, after) of the fields in ``names`` whose values differ between two versions
    of a row."""
    before: dict[str, Any] = {}
    after: dict[str, Any] = {}
    for name in names:
        a, b = getattr(old, name, None), getattr(new, name, None)
        if a != b:
            before[name], after[name] = _as_json(a), _as_json(b)
    return before, after


def entries(challenge: Any, phase: Any = None, limit: int | None = None) -> list[AuditEntry]:
    """The challenge's entries, newest first; with ``phase``, those of that phase and of the
    challenge as a whole."""
    rows = AuditEntry.objects.filter(challenge=challenge).select_related("phase")
    if phase is not None:
        rows = rows.filter(models.Q(phase=phase) | models.Q(phase__isnull=True))
    return list(rows[:limit] if limit else rows)
