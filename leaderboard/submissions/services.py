"""Submission workflows (DESIGN.md "Data flow"): receive, score, reap, cancel, re-score.

``submit`` runs in the request thread; ``run_scoring`` and ``reap_expired_leases`` are what the
Celery tasks call (and what ``demo`` calls synchronously).
"""

from __future__ import annotations

import datetime as dt
import logging
import math
import time
from collections.abc import Mapping
from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.core.files.base import ContentFile
from django.core.files.uploadedfile import UploadedFile
from django.db import OperationalError, transaction
from django.utils import timezone

import scoring
from leaderboard.challenges.models import Condition, Phase, Reference
from leaderboard.challenges.services import parsed_reference
from leaderboard.storage import private_storage, random_name, sha256_of
from leaderboard.submissions.models import CHARGED, Result, Submission, SubmissionFile
from leaderboard.teams.models import Participation, Team

log = logging.getLogger(__name__)

FAILED_MESSAGE = (
    "Scoring did not complete after {attempts} attempt(s) because of a problem on our side. "
    "This submission does not count against your quota; please submit again."
)
INTERNAL_ERROR_MESSAGE = (
    "Scoring failed because of an internal error; the organisers have been notified. "
    "This submission does not count against your quota."
)


class SubmissionError(ValueError):
    """Base of the errors ``submit`` raises; ``str()`` is safe to show a participant."""


class SubmissionNotAllowed(SubmissionError):
    """The phase is closed or not ready, or the team may not submit to it."""


class QuotaExceeded(SubmissionError):
    """The team has used its daily or total quota for the phase."""


class SubmissionRejected(SubmissionError):
    """One or more files are invalid. ``messages`` maps condition key -> scorer message.

    ``submission`` is the ``invalid`` row recorded for the team's history (never charged).
    """

    def __init__(self, messages: Mapping[str, str], submission: Submission | None = None):
        self.messages = dict(messages)
        self.submission = submission
        super().__init__(_join(self.messages))


class TransientScoringError(Exception):
    """Scoring hit a temporary problem (database, storage); the task retries it."""


def _join(messages: Mapping[str, str]) -> str:
    return "\n".join(f"{key}: {message}" for key, message in messages.items())


# --- receive -------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Checked:
    condition: Condition
    data: bytes
    original_name: str


def submit(
    *,
    team: Team,
    phase: Phase,
    user: AbstractBaseUser | None,
    files: Mapping[str, UploadedFile],
    method_name: str,
    method_description: str = "",
    url: str = "",
    is_baseline: bool = False,
    enqueue: bool = True,
) -> Submission:
    """Validate, store, charge and enqueue one submission (DESIGN.md "Data flow", step 1).

    Raises ``SubmissionNotAllowed``, ``QuotaExceeded`` or ``SubmissionRejected``; only the last
    records a row (status ``invalid``, not charged). ``enqueue=False`` leaves the queued row for
    the caller to score synchronously with ``run_scoring`` (the ``demo`` command does).
    """
    if not phase.is_open():
        raise SubmissionNotAllowed(f"The phase {phase.name!r} is not open for submissions.")
    participation = Participation.objects.filter(team=team, challenge_id=phase.challenge_id).first()
    if participation is None or participation.status != Participation.Status.APPROVED:
        raise SubmissionNotAllowed(f"{team.name} is not an approved participant of this challenge.")
    conditions = list(phase.conditions.all())
    references = {
        r.condition_id: r for r in Reference.objects.filter(condition__in=conditions, active=True)
    }
    if not conditions or any(c.pk not in references for c in conditions):
        raise SubmissionNotAllowed("This phase is not ready: a condition has no reference yet.")
    # Fail fast before parsing large files; the binding check happens under the lock below.
    _check_quota(team, phase)

    checked, messages = _validate(phase, conditions, references, files)
    if messages:
        invalid = Submission.objects.create(
            team=team,
            phase=phase,
            submitter=user,
            method_name=method_name,
            method_description=method_description,
            url=url,
            is_baseline=is_baseline,
            status=Submission.Status.INVALID,
            charged=False,
            error=_join(messages),
        )
        raise SubmissionRejected(messages, invalid)

    stored = _store(checked)
    try:
        with transaction.atomic():
            # The Participation row is the team's quota lock for this challenge: concurrent
            # uploads of one team queue here, so the count below cannot be raced.
            Participation.objects.select_for_update().get(pk=participation.pk)
            _check_quota(team, phase)
            submission = Submission.objects.create(
                team=team,
                phase=phase,
                submitter=user,
                method_name=method_name,
                method_description=method_description,
                url=url,
                is_baseline=is_baseline,
                status=Submission.Status.QUEUED,
                charged=True,
            )
            SubmissionFile.objects.bulk_create(
                SubmissionFile(
                    submission=submission,
                    condition=item.condition,
                    file=name,
                    original_name=item.original_name[:255],
                    sha256=sha256_of(item.data),
                    size=len(item.data),
                )
                for item, name in zip(checked, stored, strict=True)
            )
            if enqueue:
                transaction.on_commit(lambda: enqueue_scoring(submission.pk))
    except BaseException:
        for name in stored:
            private_storage().delete(name)
        raise
    return submission


def _validate(
    phase: Phase,
    conditions: list[Condition],
    references: Mapping[int, Reference],
    files: Mapping[str, UploadedFile],
) -> tuple[list[_Checked], dict[str, str]]:
    by_key = {c.key: c for c in conditions}
    messages: dict[str, str] = {}
    for key in files:
        if key not in by_key:
            messages[key] = f"this phase has no condition {key!r}."
    if not files:
        messages["files"] = "upload at least one prediction file."
    elif not phase.allow_partial:
        for condition in conditions:
            if condition.key not in files:
                messages[condition.key] = "a prediction file is required for this condition."
    options = phase.challenge.scoring_settings()
    checked: list[_Checked] = []
    for condition in conditions:
        upload = files.get(condition.key)
        if upload is None:
            continue
        name = upload.name or f"{condition.key}.json"
        if upload.size is not None and upload.size > settings.MAX_UPLOAD_BYTES:
            messages[condition.key] = (
                f"{name}: the file is larger than {settings.MAX_UPLOAD_BYTES // 1_000_000} MB."
            )
            continue
        upload.seek(0)
        data = b"".join(upload.chunks())
        reference = parsed_reference(references[condition.pk])
        try:
            scoring.load_prediction(data, reference, name, missing=options.missing)
        except scoring.ScoringError as exc:
            messages[condition.key] = str(exc)
            continue
        checked.append(_Checked(condition, data, name))
    return checked, messages


def _store(checked: list[_Checked]) -> list[str]:
    storage = private_storage()
    stored: list[str] = []
    try:
        for item in checked:
            stored.append(storage.save(random_name("submissions"), ContentFile(item.data)))
    except BaseException:
        for name in stored:
            storage.delete(name)
        raise
    return stored


def quota_usage(team: Team, phase: Phase, now: dt.datetime | None = None) -> tuple[int, int]:
    """(charged submissions today, charged submissions in total) of ``team`` in ``phase``."""
    now = now or timezone.now()
    start_of_day = timezone.localtime(now).replace(hour=0, minute=0, second=0, microsecond=0)
    charged = Submission.objects.filter(CHARGED, team=team, phase=phase)
    return charged.filter(created_at__gte=start_of_day).count(), charged.count()


def _check_quota(team: Team, phase: Phase) -> None:
    today, total = quota_usage(team, phase)
    if phase.daily_quota is not None and today >= phase.daily_quota:
        raise QuotaExceeded(
            f"{team.name} has used its {phase.daily_quota} submission(s) for today in "
            f"{phase.name}; the quota resets at midnight ({settings.TIME_ZONE}). "
            "Invalid, failed and cancelled submissions are not counted."
        )
    if phase.total_quota is not None and total >= phase.total_quota:
        raise QuotaExceeded(
            f"{team.name} has used all {phase.total_quota} submission(s) allowed in {phase.name}."
        )


def enqueue_scoring(submission_id: int) -> None:
    """Send the scoring task; call it from ``transaction.on_commit`` only."""
    from leaderboard.submissions.tasks import score_submission

    # The queue is read at call time so tests (and operators) can route to a dedicated queue.
    score_submission.apply_async(args=[submission_id], queue=settings.CELERY_TASK_DEFAULT_QUEUE)


# --- score ---------------------------------------------------------------------------------


def run_scoring(submission_id: int) -> str:
    """Claim a queued submission, score every file, store the Results, mark it scored.

    Returns ``"scored"``, ``"failed"`` or ``"skipped"`` (gone, or not queued: another delivery
    or worker has it). Raises ``TransientScoringError`` after giving the claim back when a
    retry may succeed; the caller schedules the retry.
    """
    lease = dt.timedelta(seconds=settings.SCORING_LEASE_SECONDS)
    if not Submission.claim(submission_id, lease):
        return "skipped"
    if settings.TEST_SCORE_DELAY:
        time.sleep(settings.TEST_SCORE_DELAY)  # test-only: lets a test kill us mid-scoring
    try:
        _score_claimed(submission_id)
    except (OperationalError, OSError) as exc:
        log.warning("transient error scoring submission %s: %r", submission_id, exc)
        attempts = (
            Submission.objects.filter(pk=submission_id).values_list("attempts", flat=True).first()
        )
        if attempts is None:
            return "skipped"
        if attempts >= settings.SCORING_MAX_ATTEMPTS:
            Submission.fail(submission_id, FAILED_MESSAGE.format(attempts=attempts))
            return "failed"
        Submission.release(submission_id)
        raise TransientScoringError(str(exc)) from exc
    except scoring.ScoringError as exc:
        # The file was valid at upload; this happens when an organiser replaced the reference.
        Submission.fail(submission_id, str(exc))
        return "failed"
    except Submission.DoesNotExist:
        return "skipped"
    except Exception:
        log.exception("scoring submission %s failed", submission_id)
        Submission.fail(submission_id, INTERNAL_ERROR_MESSAGE)
        return "failed"
    return "scored"


def _score_claimed(submission_id: int) -> None:
    submission = Submission.objects.select_related("phase__challenge").get(pk=submission_id)
    options = submission.phase.challenge.scoring_settings()
    rows = []
    for item in submission.files.select_related("condition"):
        reference = item.condition.references.filter(active=True).first()
        if reference is None:
            raise scoring.ScoringError(
                f"{item.condition.label}: the organisers removed this condition's reference."
            )
        gold = parsed_reference(reference)
        with item.file.open("rb") as handle:
            data = handle.read()
        prediction = scoring.load_prediction(
            data, gold, item.original_name, missing=options.missing
        )
        rows.append((item.condition_id, reference.pk, scoring.score(gold, prediction, options)))
    with transaction.atomic():
        for condition_id, reference_id, result in rows:
            Result.objects.update_or_create(
                submission_id=submission_id,
                condition_id=condition_id,
                reference_id=reference_id,
                signature=result.signature,
                defaults=_result_columns(result),
            )
        # If the lease expired and the row was re-queued meanwhile, the identical Results
        # above are harmless and the next claim finishes the row.
        Submission.finish(submission_id)
        phase_id = submission.phase_id
        transaction.on_commit(lambda: _invalidate(phase_id))


def _number(value: float) -> float | None:
    return None if value is None or math.isnan(value) else float(value)


def _result_columns(result: scoring.Score) -> dict[str, object]:
    return {
        "jga": _number(result.jga),
        "ser": _number(result.ser),
        "jga_low": _number(result.jga_ci[0]),
        "jga_high": _number(result.jga_ci[1]),
        "ser_low": _number(result.ser_ci[0]),
        "ser_high": _number(result.ser_ci[1]),
        "n_ref": result.n_ref,
        "sub": result.sub,
        "dele": result.dele,
        "ins": result.ins,
        "slot_f1": _number(result.slot_f1),
        "breakdown": _json_safe(result.as_dict(per_dialogue=True)),
        "created_at": timezone.now(),
    }


def _json_safe(value: object) -> object:
    """NaN is not JSON: Postgres' jsonb refuses it. Store it as null."""
    if isinstance(value, float):
        return None if math.isnan(value) else value
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_safe(v) for v in value]
    return value


def _invalidate(phase_id: int) -> None:
    from leaderboard.rankings.services import invalidate

    invalidate(phase_id)


def reap_expired_leases(now: dt.datetime | None = None) -> list[int]:
    """Give back submissions whose scoring lease expired, and re-send lost queue messages.

    A worker killed mid-scoring leaves its row in ``scoring``: it is re-queued (or failed, when
    its attempts are used up). A ``queued`` row whose message never reached a worker (the broker
    was down when it was sent) would wait for ever: for a queued row ``lease_until`` is the time
    to send its task again, stamped on the first pass and renewed on each re-send; a duplicate
    message is harmless because only one delivery can claim the row. Returns the ids sent.
    """
    now = now or timezone.now()
    requeued: list[int] = []
    expired = Submission.objects.filter(
        status=Submission.Status.SCORING, lease_until__lt=now
    ).values_list("pk", "attempts")
    for pk, attempts in expired:
        if attempts >= settings.SCORING_MAX_ATTEMPTS:
            Submission.objects.filter(
                pk=pk, status=Submission.Status.SCORING, lease_until__lt=now
            ).update(
                status=Submission.Status.FAILED,
                lease_until=None,
                charged=False,
                error=FAILED_MESSAGE.format(attempts=attempts),
            )
        elif Submission.release(pk, expired_before=now):
            requeued.append(pk)
            transaction.on_commit(lambda pk=pk: enqueue_scoring(pk))
    resend_at = now + dt.timedelta(seconds=settings.SCORING_RESEND_AFTER_SECONDS)
    waiting = Submission.objects.filter(status=Submission.Status.QUEUED)
    waiting.filter(lease_until__isnull=True).exclude(pk__in=requeued).update(lease_until=resend_at)
    for pk in waiting.filter(lease_until__lt=now).values_list("pk", flat=True):
        if Submission.objects.filter(
            pk=pk, status=Submission.Status.QUEUED, lease_until__lt=now
        ).update(lease_until=resend_at):
            requeued.append(pk)
            transaction.on_commit(lambda pk=pk: enqueue_scoring(pk))
    return requeued


# --- team and organiser actions -------------------------------------------------------------


def cancel(submission: Submission, user: AbstractBaseUser) -> None:
    """Cancel a submission that has not started scoring; it stops counting against the quota."""
    if not submission.team.memberships.filter(user=user).exists():
        raise SubmissionNotAllowed("Only a member of the team can cancel its submission.")
    if not Submission.cancel_queued(submission.pk):
        raise SubmissionNotAllowed("Only a queued submission can be cancelled.")
    phase_id = submission.phase_id
    transaction.on_commit(lambda: _invalidate(phase_id))  # its count drops from the board
    submission.refresh_from_db()


def rescore(submission: Submission) -> bool:
    """Organiser action: score a scored submission again (new reference or scorer version)."""
    if not Submission.requeue(submission.pk):
        return False
    transaction.on_commit(lambda: enqueue_scoring(submission.pk))
    return True


__all__ = [
    "QuotaExceeded",
    "SubmissionError",
    "SubmissionNotAllowed",
    "SubmissionRejected",
    "TransientScoringError",
    "cancel",
    "enqueue_scoring",
    "quota_usage",
    "reap_expired_leases",
    "rescore",
    "run_scoring",
    "submit",
]
