"""Submissions, their stored files, and the Results the scorer writes for them."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from django.db import models
from django.db.models import F, Q
from django.db.models.functions import Greatest
from django.utils import timezone
from django.utils.deconstruct import deconstructible

from leaderboard.storage import private_storage, submission_upload_to

#: One character of a URI (RFC 3986) outside its delimiters: unreserved, a sub-delimiter, or
#: percent-encoded.
_URI_CHAR = r"(?:[\w.~!$&'()*+,;=-]|%[0-9A-Fa-f]{2})"
#: A URI with an authority, as RFC 3986 writes it (what the API's schema calls ``format: uri``).
_URI = re.compile(
    r"[A-Za-z][A-Za-z0-9+.-]*://"
    rf"(?:(?:{_URI_CHAR}|:)*@)?"  # user information
    rf"(?:\[[0-9A-Fa-f:.]+\]|{_URI_CHAR}*)(?::[0-9]*)?"  # host (an IPv6 literal, a name), port
    rf"(?:[/?](?:{_URI_CHAR}|[:@/?])*)?"  # path and query
    rf"(?:#(?:{_URI_CHAR}|[:@/?])*)?",  # fragment
    re.ASCII,
)


@deconstructible
class WebURLValidator(URLValidator):
    """Django's URL check, and the characters a URI may hold: Django's lets a quote or ``<``
    through in the path (``https://example.org/"><script>``), which the API's schema refuses
    (``format: uri``), so a stored URL would break what reads it back."""

    uri_message = (
        "This URL holds characters a URL cannot (a space, a quote, < or >, a letter outside "
        "ASCII, ...): percent-encode them (a space is %20, a quote %22)."
    )

    def __call__(self, value: Any) -> None:
        super().__call__(value)
        if not _URI.fullmatch(str(value)):
            # a code of its own: a form field puts its own message on "invalid"
            raise ValidationError(self.uri_message, code="not_uri")


#: A method's paper or code URL: a web page, so http(s) only (the upload, the edit, the API).
method_url = WebURLValidator(schemes=["http", "https"])


class Submission(models.Model):
    """One upload of a team to a phase: a prediction file per condition.

        Status is a small state machine. Every transition below is a conditional UPDATE that names
        the state it leaves and returns whether it changed a row, so a duplicate task delivery, a
        retry, or a reaper racing a worker can never move a row twice::

            queued  -> scoring    claim()     a worker takes it, lease until T, attempts + 1
            scoring -> scoring    claim()     the same, of a claim whose lease ran out (its
                                  worker died): any delivery takes it over at once
            scoring -> scoring    renew()     the claimant's heartbeat moves its lease on
            scoring -> scored     finish()    every condition's Result is written
            scoring -> invalid    refuse()    its first scoring found a file the scorer refuses
                                  (not charged any more; its files are removed)
            scoring -> failed     fail()      attempts exhausted; not charged any more
            scoring -> queued     release()   an expired lease (the reaper), or a fault of the
                                  site (``refund=True``: the attempt is given back)

    A claim's ``lease_until`` is its token: ``claim()`` and ``renew()`` return the value they
    wrote, and the claimant renews or releases only the row that still holds it, so a claim
    taken over by another worker is never moved by the one that lost it.
            queued  -> cancelled  cancel()    by the team before scoring starts; not charged
            scored  -> queued     requeue()   re-score requested by an organiser
            failed  -> queued     requeue(include_failed=True)  an organiser re-queues it (after
                                  a reference fix); it stays uncharged

    A submission is ``scored`` when at least one condition's Result was written; a condition the
    scorer refused (e.g. a reference version that lacks a dialogue) has no current Result and its
    message is in ``error`` (``finish(error=...)``); it is ``failed`` when no condition scored.

    ``invalid`` is a terminal record of a refused upload (kept so the team sees its history),
    never charged in the end and never scored: created in that state when the request itself
    refuses the upload (a file missing, too large, for no condition of the phase), or reached
    by ``refuse()`` when the worker, reading the files for the first time, finds one the scorer
    refuses (``verdicts`` then says which, and why in a word).
    """

    class Status(models.TextChoices):
        QUEUED = "queued", "queued"
        SCORING = "scoring", "scoring"
        SCORED = "scored", "scored"
        FAILED = "failed", "failed"
        CANCELLED = "cancelled", "cancelled"
        INVALID = "invalid", "invalid"

    #: Statuses that never count against a quota.
    UNCHARGED = (Status.INVALID, Status.FAILED, Status.CANCELLED)

    team = models.ForeignKey("teams.Team", on_delete=models.CASCADE, related_name="submissions")
    phase = models.ForeignKey(
        "challenges.Phase", on_delete=models.CASCADE, related_name="submissions"
    )
    submitter = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    method_name = models.CharField(max_length=200)
    method_description = models.TextField(blank=True)
    url = models.URLField(blank=True, validators=[method_url])
    #: when a member of the team last changed the method's name, description or URL after the
    #: upload (``services.metadata``; each change is in the audit log); None: as uploaded
    edited_at = models.DateTimeField(null=True, blank=True)
    is_baseline = models.BooleanField(default=False)
    selected_for_final = models.BooleanField(default=False)
    #: the team's choice of the run that represents it on the public board, where the phase
    #: lets it choose (``Phase.team_chooses_public_run``, ``services.selection.choose_public``):
    #: one per team and phase at most
    shown_on_public = models.BooleanField(default=False)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    attempts = models.PositiveIntegerField(default=0)
    lease_until = models.DateTimeField(null=True, blank=True)
    #: Shown to the team: scorer messages or a generic failure note, never a traceback.
    error = models.TextField(blank=True)
    charged = models.BooleanField(default=False)
    #: Of an ``invalid`` upload: condition key -> ``{"kind": what was wrong in a word, "name":
    #: the file's name}`` (the kinds of ``services.intake``); ``"valid"`` for a file that passed,
    #: ``"unchecked"`` for one the request refused the upload before reading.
    verdicts = models.JSONField(default=dict, blank=True)
    #: what the team declared about its system: declared fact key -> value
    #: (``challenges.facts``, checked at upload)
    facts = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    scored_at = models.DateTimeField(null=True, blank=True)
    #: when the last claim began scoring it (scoring time: ``scored_at - started_at``)
    started_at = models.DateTimeField(null=True, blank=True)
    #: the outcome (``scored``, ``scored-partial``, ``failed``: ``services.notify.outcome``)
    #: the team was last mailed about: a re-score that ends where the team is sends no mail.
    notified_status = models.CharField(max_length=16, blank=True, default="")
    #: The client's key for one upload (the API's ``Idempotency-Key`` header): an upload sent
    #: again with the same key, after a lost reply, is answered with this row, never stored
    #: twice. Empty: none given (the web form).
    idempotency_key = models.CharField(max_length=64, blank=True, default="")
    #: how many times an organiser has queued it again (``requeue``): each scoring writes its
    #: own Results (``Result.scoring``), so every scoring of the submission is kept
    scorings = models.PositiveIntegerField(default=0, editable=False)
    #: its Results on the active references, where a query prefetched them
    #: (``selectors.active_results``)
    active_results: list[Result]
    #: where a page polls its status until it is final, where its view set it ("" once final)
    status_url: str

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            models.Index(fields=["team", "phase", "created_at"], name="submission_quota_idx"),
            models.Index(fields=["status", "lease_until"], name="submission_lease_idx"),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["team", "phase", "idempotency_key"],
                condition=~Q(idempotency_key=""),
                name="submission_unique_idempotency_key",
            ),
            models.UniqueConstraint(
                fields=["team", "phase"],
                condition=Q(shown_on_public=True),
                name="submission_one_public_choice",
            ),
        ]

    def __str__(self) -> str:
        return f"#{self.pk} {self.team} / {self.method_name} ({self.status})"

    @staticmethod
    def resend_time() -> dt.datetime:
        """When the reaper may send a queued row's task again if no worker has claimed it (its
        message lost with the broker): ``lease_until`` of a queued row."""
        return timezone.now() + dt.timedelta(seconds=settings.SCORING_RESEND_AFTER_SECONDS)

    # --- transitions: each returns True when this call moved the row --------------------------
    @classmethod
    def claim(
        cls, pk: int, lease: dt.timedelta, *, max_attempts: int | None = None
    ) -> dt.datetime | None:
        """Take a queued row, or a scoring row whose lease ran out with attempts left
        (``max_attempts``; None: any), for ``lease``; returns the lease's end (the claim's
        token) or None when another claim holds it or the row is not waiting."""
        now = timezone.now()
        expired = Q(status=cls.Status.SCORING, lease_until__lt=now)
        if max_attempts is not None:
            expired &= Q(attempts__lt=max_attempts)
        until = now + lease
        moved = cls.objects.filter(Q(status=cls.Status.QUEUED) | expired, pk=pk).update(
            status=cls.Status.SCORING, attempts=F("attempts") + 1, lease_until=until, started_at=now
        )
        return until if moved else None

    @classmethod
    def renew(cls, pk: int, held: dt.datetime, lease: dt.timedelta) -> dt.datetime | None:
        """Move the lease of the claim that holds ``held`` on by ``lease`` from now; returns
        the new token, or None when the claim was lost (taken over, finished)."""
        until = timezone.now() + lease
        moved = cls.objects.filter(pk=pk, status=cls.Status.SCORING, lease_until=held).update(
            lease_until=until
        )
        return until if moved else None

    @classmethod
    def finish(cls, pk: int, error: str = "") -> bool:
        return bool(
            cls.objects.filter(pk=pk, status=cls.Status.SCORING).update(
                status=cls.Status.SCORED, lease_until=None, error=error, scored_at=timezone.now()
            )
        )

    @classmethod
    def refuse(cls, pk: int, error: str, verdicts: dict[str, dict[str, str]]) -> bool:
        return bool(
            cls.objects.filter(pk=pk, status=cls.Status.SCORING).update(
                status=cls.Status.INVALID,
                lease_until=None,
                error=error,
                verdicts=verdicts,
                charged=False,
            )
        )

    @classmethod
    def fail(cls, pk: int, message: str, *, expired_before: dt.datetime | None = None) -> bool:
        rows = cls.objects.filter(pk=pk, status=cls.Status.SCORING)
        if expired_before is not None:
            rows = rows.filter(lease_until__lt=expired_before)
        return bool(
            rows.update(status=cls.Status.FAILED, lease_until=None, error=message, charged=False)
        )

    @classmethod
    def release(
        cls,
        pk: int,
        *,
        expired_before: dt.datetime | None = None,
        held: dt.datetime | None = None,
        refund: bool = False,
        resend_at: dt.datetime | None = None,
    ) -> bool:
        """Back to ``queued``: a claim whose lease ended before ``expired_before``, or the one
        holding ``held``. ``refund`` gives its attempt back (a fault of the site is not an
        attempt); ``resend_at`` is when the reaper may send its task again (default
        ``resend_time()``; a worker's planned retry is due before the time it passes)."""
        rows = cls.objects.filter(pk=pk, status=cls.Status.SCORING)
        if expired_before is not None:
            rows = rows.filter(lease_until__lt=expired_before)
        if held is not None:
            rows = rows.filter(lease_until=held)
        changes: dict[str, Any] = {
            "status": cls.Status.QUEUED,
            "lease_until": resend_at or cls.resend_time(),
        }
        if refund:
            changes["attempts"] = Greatest(F("attempts") - 1, 0)
        return bool(rows.update(**changes))

    @classmethod
    def cancel_queued(cls, pk: int) -> bool:
        return bool(
            cls.objects.filter(pk=pk, status=cls.Status.QUEUED).update(
                status=cls.Status.CANCELLED, charged=False
            )
        )

    @classmethod
    def requeue(cls, pk: int, *, include_failed: bool = False) -> bool:
        statuses = [cls.Status.SCORED, cls.Status.FAILED] if include_failed else [cls.Status.SCORED]
        return bool(
            cls.objects.filter(pk=pk, status__in=statuses).update(
                status=cls.Status.QUEUED,
                attempts=0,
                error="",
                lease_until=cls.resend_time(),
                scorings=F("scorings") + 1,
            )
        )


class SubmissionFile(models.Model):
    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="files")
    condition = models.ForeignKey(
        "challenges.Condition", on_delete=models.CASCADE, related_name="submission_files"
    )
    #: stored under a random name; ``original_name`` is only shown back to the team.
    file = models.FileField(storage=private_storage, upload_to=submission_upload_to)
    original_name = models.CharField(max_length=255)
    sha256 = models.CharField(max_length=64)
    size = models.PositiveBigIntegerField()
    #: the condition's active reference when the file was uploaded: a file its first scoring
    #: finds refused against this version is the team's error (the upload is ``invalid``),
    #: against another one (an organiser replaced it meanwhile) the condition fails alone
    uploaded_for = models.ForeignKey(
        "challenges.Reference", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["submission", "condition"], name="submissionfile_unique"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.submission_id}/{self.condition_id}: {self.original_name}"


class Result(models.Model):
    """What ``scoring`` returned for one file against one reference version and signature.

    The same shape for every task: every metric with its interval on the whole reference
    (``metrics``, ``intervals``) and on each part of the phase's split (``part_metrics``);
    typed columns for the primary metric with its interval and the tie-breaking metric, on the
    whole reference and per part, for queries that sort or compare on them (the admin, the
    impact of a new reference version, a final board's public scores);
    the task's breakdown (``breakdown``: format, counts, details, warnings); and the
    per-dialogue statistics (``scoring.DialogueRatios``: ``dialogues``, ``ratios`` and, for
    the primary metric alone, ``primary_ratios``; see ``submissions.ratios``), from which the
    split, the rank groups and the paired tests are computed without re-scoring.
    """

    # Results are evidence: nothing deletes one by deleting what it hangs from (a submission,
    # a condition, and through them a team, a phase or a challenge); only an operator's
    # recorded erasure removes them (the ``erase`` command).
    submission = models.ForeignKey(Submission, on_delete=models.PROTECT, related_name="results")
    condition = models.ForeignKey(
        "challenges.Condition", on_delete=models.PROTECT, related_name="results"
    )
    reference = models.ForeignKey(
        "challenges.Reference", on_delete=models.PROTECT, related_name="results"
    )
    signature = models.CharField(max_length=255)
    #: metric name -> value (null when undefined); intervals: metric name -> [low, high]
    metrics = models.JSONField(default=dict)
    intervals = models.JSONField(default=dict)
    #: {"public": {"metrics": {..}, "intervals": {..}}, "private": {...}}
    part_metrics = models.JSONField(default=dict)
    # Typed, nullable columns of the primary and tie-breaking metrics (NULL: undefined).
    primary = models.FloatField(null=True)
    primary_low = models.FloatField(null=True)
    primary_high = models.FloatField(null=True)
    tiebreak = models.FloatField(null=True)
    public_primary = models.FloatField(null=True)
    public_primary_low = models.FloatField(null=True)
    public_primary_high = models.FloatField(null=True)
    public_tiebreak = models.FloatField(null=True)
    private_primary = models.FloatField(null=True)
    private_primary_low = models.FloatField(null=True)
    private_primary_high = models.FloatField(null=True)
    private_tiebreak = models.FloatField(null=True)
    #: {"format", "counts", "details", "warnings"} as the scorer reported them
    breakdown = models.JSONField(default=dict)
    #: the per-dialogue statistics (``ratios``): {"ids": [..], "turns": [..]} here, every
    #: metric's numerators and denominators as arrays in ``ratios``, the primary metric's
    #: again in ``primary_ratios`` (all a board reads)
    dialogues = models.JSONField(default=dict)
    ratios = models.BinaryField(default=b"")
    primary_ratios = models.BinaryField(default=b"")
    #: the newest row of its (submission, condition); older ones (another reference version,
    #: scorer signature or an earlier scoring) are kept for the record but never ranked.
    current = models.BooleanField(default=True)
    #: the submission's scoring it was written by (``Submission.scorings`` then): every
    #: re-score writes new rows, even against the same reference and signature
    scoring = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now)
    #: the values a page's table shows of it, where its view set them (a team's submissions:
    #: "75.00 / 16.67")
    shown: str

    class Meta:
        ordering = ["condition", "-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["submission", "condition", "reference", "signature", "scoring"],
                name="result_unique_scoring",
            ),
        ]
        indexes = [models.Index(fields=["condition", "reference"], name="result_rank_idx")]

    def __str__(self) -> str:
        return f"{self.submission_id}/{self.condition_id}: {self.primary}"

    def part(self, part: str | None) -> tuple[dict[str, Any], dict[str, Any]]:
        """(metrics, intervals) on ``part`` of the split (``public``/``private``), or on the
        whole reference for None."""
        if part is None:
            return self.metrics or {}, self.intervals or {}
        found = (self.part_metrics or {}).get(part) or {}
        return found.get("metrics") or {}, found.get("intervals") or {}


class Withdrawal(models.Model):
    """An organiser took a run (``submission``), or a team's every run (no ``submission``),
    off a phase's boards: it leaves every board, export, analysis and snapshot made after it,
    and everything of it is kept (its files, its Results, its charge). Undone by deleting the
    row (``services.withdrawal``); both are in the audit log, with the reason.

    ``public``: the reason shows on the phase's board under the team's name as the board
    shows it; otherwise the run or team just leaves the board. Its team always sees it."""

    phase = models.ForeignKey(
        "challenges.Phase", on_delete=models.CASCADE, related_name="withdrawals"
    )
    team = models.ForeignKey("teams.Team", on_delete=models.CASCADE, related_name="withdrawals")
    submission = models.OneToOneField(
        Submission, on_delete=models.CASCADE, null=True, blank=True, related_name="withdrawal"
    )
    reason = models.TextField()
    public = models.BooleanField(default=False)
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-at", "-pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["phase", "team"],
                condition=Q(submission__isnull=True),
                name="withdrawal_one_per_team",
            ),
        ]

    def __str__(self) -> str:
        what = f"submission {self.submission_id}" if self.submission_id else "every run"
        return f"{self.team}: {what} withdrawn from {self.phase}"


def withdrawn(phase: Any) -> Q:
    """The rows of ``Result`` (through ``submission``) an organiser withdrew from ``phase``:
    a withdrawn run, or any run of a disqualified team."""
    rows = Withdrawal.objects.filter(phase=phase)
    return Q(submission_id__in=rows.filter(submission__isnull=False).values("submission_id")) | Q(
        submission__team_id__in=rows.filter(submission__isnull=True).values("team_id")
    )


# Used by services and the admin to filter rows that count against a quota.
CHARGED = Q(charged=True) & ~Q(status__in=Submission.UNCHARGED)
