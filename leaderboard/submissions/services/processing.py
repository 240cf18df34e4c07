"""Scoring a submission, reaping expired leases, and the team's and organisers' actions on a
submission (docs/architecture.md). The Celery tasks call these."""

from __future__ import annotations

import datetime as dt
import logging
import time
from collections.abc import Callable
from typing import Any, cast

from django.conf import settings
from django.contrib.auth.models import User
from django.db import InterfaceError, OperationalError, connection, transaction
from django.utils import timezone
from kombu.exceptions import OperationalError as KombuOperationalError
from redis.exceptions import RedisError

from leaderboard.background import NOTIFY_TEAM, RESCORE_SUBMISSION, SCORE_SUBMISSION
from leaderboard.celery import send
from leaderboard.challenges import audit
from leaderboard.challenges.models import Challenge, Condition, Phase
from leaderboard.challenges.references import loaded_reference
from leaderboard.leases import Heartbeat
from leaderboard.storage import StorageUnavailable
from leaderboard.submissions import ratios
from leaderboard.submissions.metrics import part_columns, result_columns
from leaderboard.submissions.models import Result, Submission, SubmissionFile
from leaderboard.submissions.services.intake import (
    FAILED_MESSAGE,
    INTERNAL_ERROR_MESSAGE,
    VALID,
    SubmissionNotAllowed,
    TransientScoringError,
    delete_stored,
    join_messages,
    shown_message,
)
from scoring import ScoringError, Source
from scoring.errors import kind as error_kind

log = logging.getLogger(__name__)


# --- score ---------------------------------------------------------------------------------


def run_scoring(submission_id: int, *, retry_in: float = 0.0, give_up: bool = False) -> str:
    """Claim a queued submission (or one whose lease ran out), read, check and score every
    file while a heartbeat renews the claim, store the Results, mark it scored; or, on its
    first scoring, refuse the upload for a file the scorer refuses.

    Returns ``"scored"``, ``"invalid"`` (refused, uncharged), ``"failed"`` or ``"skipped"``
    (gone, or another live claim has it).
    A fault of the site (database, broker, cache, storage) is not an attempt: the claim is
    given back with its attempt and ``TransientScoringError`` raised for the caller to retry
    in ``retry_in`` seconds; with ``give_up`` (the faults have lasted longer than
    ``SCORING_RETRY_FOR_SECONDS``) the run is failed instead, uncharged, with a message that
    does not ask the team to submit again. Only the scorer refusing every file, an internal
    error or the time limit fail a run; a process killed while scoring costs an attempt.
    """
    lease = dt.timedelta(seconds=settings.SCORING_LEASE_SECONDS)
    try:
        held = Submission.claim(submission_id, lease, max_attempts=settings.SCORING_MAX_ATTEMPTS)
    except SITE_FAULTS as exc:
        _drop_connection()
        raise TransientScoringError(str(exc)) from exc
    if held is None:
        return "skipped"
    heartbeat = Heartbeat(
        lambda until: Submission.renew(submission_id, until, lease),
        held,
        lease,
        f"submission {submission_id}",
    )
    try:
        with heartbeat:
            outcome = _score_claimed(submission_id)
    except SITE_FAULTS as exc:
        log.warning("a fault of the site while scoring submission %s: %r", submission_id, exc)
        if give_up:
            log.error("gave up scoring submission %s after faults of the site", submission_id)
            _retried(lambda: _failed(submission_id, GAVE_UP_MESSAGE), submission_id)
            return "failed"
        resend_at = timezone.now() + dt.timedelta(
            seconds=retry_in + settings.SCORING_RESEND_AFTER_SECONDS
        )
        _retried(
            lambda: Submission.release(
                submission_id, held=heartbeat.held, refund=True, resend_at=resend_at
            ),
            submission_id,
            until=heartbeat.held,
        )
        raise TransientScoringError(str(exc)) from exc
    except ScoringError as exc:
        # Files the first scoring read: an organiser replaced the reference since.
        return _failed(submission_id, str(exc))
    except Submission.DoesNotExist:
        return "skipped"
    except Exception:
        log.exception("scoring submission %s failed", submission_id)
        return _failed(submission_id, INTERNAL_ERROR_MESSAGE)
    if outcome != "skipped":
        send(NOTIFY_TEAM, submission_id)
    return outcome


#: Errors of a database connection that may work again (dropped, restarted, unreachable).
DATABASE_FAULTS = (OperationalError, InterfaceError)
#: Faults of the site while scoring, none of them the submission's: the database, the cache
#: or broker (Redis, kombu) and storage (``OSError``: a full or unreachable disk, a store
#: refusing requests).
SITE_FAULTS = (*DATABASE_FAULTS, RedisError, KombuOperationalError, OSError)

#: Shown when faults of the site kept a submission from being scored for over an hour.
GAVE_UP_MESSAGE = (
    "Scoring could not complete because of a problem on our side that lasted too long. "
    "This submission does not count against your quota; the organisers have been told and "
    "can score it again once the problem is fixed."
)


def _retried(
    step: Callable[[], object], submission_id: int, until: dt.datetime | None = None
) -> object:
    """Run ``step`` (giving back or failing a claim) until it gets through, each try on a new
    connection (a dropped one stays broken), with growing pauses, until the lease held runs
    out (``until``; None: a minute): the retry, seconds away, must find the row queued, not
    wait for its lease. Past that, the lease runs out and the row is taken over."""
    end = (until or timezone.now() + dt.timedelta(seconds=60)) - dt.timedelta(seconds=1)
    pause = 0.0
    while True:
        time.sleep(pause)
        _drop_connection()
        try:
            return step()
        except SITE_FAULTS:
            log.warning("could not give back the claim of submission %s yet", submission_id)
        if timezone.now() + dt.timedelta(seconds=pause) >= end:
            return None
        pause = min(max(pause * 2, 0.2), 5.0)


def _drop_connection() -> None:
    """Close this thread's database connection when it is broken, so the next query opens a
    new one (outside a transaction; inside one, the caller's rollback comes first)."""
    if not connection.in_atomic_block:
        connection.close()


def _failed(submission_id: int, message: str, expired_before: dt.datetime | None = None) -> str:
    """Mark a scoring submission failed (uncharged) and, once committed, mail its team.

    What is ranked is what counts: a run whose scoring failed, a re-score included, has no
    current Result, so it leaves every board, the API's and the run's page show no scores
    for it, and it is charged to no quota. Its earlier Results stay, for the record; an
    organiser's re-score that succeeds makes it count again (``docs/organisers.md``)."""
    with transaction.atomic():
        failed = Submission.fail(submission_id, message, expired_before=expired_before)
        if failed:
            Result.objects.filter(submission_id=submission_id, current=True).update(current=False)
            _changed(submission_id)
            send(NOTIFY_TEAM, submission_id)
    return "failed"


def _changed(submission_id: int) -> None:
    """The submission's phase shows something new (a status, a count, a score)."""
    Phase.changed(*Submission.objects.filter(pk=submission_id).values_list("phase_id", flat=True))


def _score_claimed(submission_id: int) -> str:
    """Read, check and score every file of the claimed submission, each file read and decoded
    once. Returns ``"scored"``, or ``"invalid"`` when this is the upload's first scoring and
    the scorer refuses a file against the reference version it was uploaded for: the upload is
    refused as a whole (``Submission.refuse``: not charged, every file's verdict kept, its files
    removed), as the request refused it before workers read the files. On a later scoring (an
    organiser's re-score) or against another version (an organiser replaced the reference
    since the upload) a condition the scorer refuses fails alone: its older Results stop being
    current and its message is kept in ``error``; the others are scored. Raises
    ``ScoringError`` when no condition could be scored."""
    submission = Submission.objects.select_related("phase__challenge").get(pk=submission_id)
    phase = submission.phase
    task = phase.challenge.scoring_task()
    options = phase.challenge.task_options()
    resampling = phase.challenge.resampling()
    first = submission.scorings == 0 and submission.scored_at is None
    items = list(
        submission.files.select_related("condition").order_by("condition__order", "condition__key")
    )
    rows = []
    refused: dict[int, str] = {}
    verdicts: dict[str, dict[str, str]] = {}
    messages: dict[str, str] = {}
    for item in items:
        key, name = item.condition.key, item.original_name
        reference = item.condition.references.filter(active=True).first()
        if reference is None:
            refused[item.condition_id] = (
                f"{item.condition.label}: the organisers removed this condition's reference."
            )
            continue
        gold = loaded_reference(reference)
        try:
            prediction = task.load_prediction(Source(_read(item), name), gold, options)
        except ScoringError as exc:
            if first and item.uploaded_for_id == reference.pk:
                verdicts[key] = {"kind": error_kind(exc), "name": name}
                messages[key] = shown_message(str(exc))
            else:
                refused[item.condition_id] = f"{item.condition.label}: {exc}"
            continue
        verdicts[key] = {"kind": VALID, "name": name}
        if messages:
            continue  # the upload is refused: what is left is only checked
        try:
            result = task.score(gold, prediction, options, resampling)
        except ScoringError as exc:
            refused[item.condition_id] = f"{item.condition.label}: {exc}"
            continue
        rows.append((item.condition_id, reference.pk, result))
    if messages:
        return _refuse(submission_id, items, verdicts, messages)
    error = "\n".join(refused.values())
    if not rows:
        raise ScoringError(error)
    with transaction.atomic():
        # The split as it is now: a change of it (``recompute_parts``) holds this lock.
        phase = Phase.objects.select_for_update().select_related("challenge").get(pk=phase.pk)
        for condition_id, reference_id, result in rows:
            # A new row per scoring (``Submission.scorings``): a re-score against the same
            # reference and signature keeps the earlier row; a second delivery of the same
            # scoring finds its own row.
            row, _ = Result.objects.update_or_create(
                submission_id=submission_id,
                condition_id=condition_id,
                reference_id=reference_id,
                signature=result.signature,
                scoring=submission.scorings,
                defaults={**result_columns(result, phase), "current": True},
            )
            # Older rows (another reference version, signature or scoring) stay, not current.
            Result.objects.filter(submission_id=submission_id, condition_id=condition_id).exclude(
                pk=row.pk
            ).update(current=False)
        # A refused condition ranks nowhere: its rows were computed against another version.
        Result.objects.filter(submission_id=submission_id, condition_id__in=refused).update(
            current=False
        )
        # If the lease expired and the row was re-queued meanwhile, the identical Results
        # above are harmless and the next claim finishes the row.
        Submission.finish(submission_id, error=error)
        Phase.changed(phase.pk)
    return "scored"


def _refuse(
    submission_id: int,
    items: list[SubmissionFile],
    verdicts: dict[str, dict[str, str]],
    messages: dict[str, str],
) -> str:
    """Refuse the upload its first scoring found a file of that the scorer refuses: nothing
    of it is kept but the row, its message and its verdicts, and it is not charged."""
    stored = cast(list[str], [item.file.name for item in items])  # stored files: each is named
    with transaction.atomic():
        if not Submission.refuse(submission_id, join_messages(messages), verdicts):
            return "skipped"  # the claim was lost meanwhile: the claim that has it decides
        # No board changes: a board ranks Results, and a refused upload has none.
        SubmissionFile.objects.filter(submission_id=submission_id).delete()
        transaction.on_commit(lambda: delete_stored(stored), robust=True)
    return "invalid"


def _read(item: SubmissionFile) -> bytes:
    """A stored prediction file's bytes; storage that does not give them back (an object
    store's error included, whatever its type) is a fault of the site."""
    try:
        with item.file.open("rb") as handle:
            return bytes(handle.read())
    except OSError:
        raise
    except Exception as exc:
        raise StorageUnavailable(f"private storage could not read {item.file.name}") from exc


def recompute_parts(phase: Phase) -> int:
    """After a change of the phase's split: compute every stored Result's public and private
    figures again from its per-dialogue statistics (no re-scoring), in the caller's
    transaction. Returns the rows rewritten."""
    with transaction.atomic():
        phase = Phase.objects.select_for_update().select_related("challenge").get(pk=phase.pk)
        rows = Result.objects.filter(submission__phase=phase).exclude(ratios=b"")
        n = 0
        for pk, dialogues, data in rows.values_list("pk", "dialogues", "ratios").iterator():
            found = ratios.loaded(dialogues, data)
            if found is None:
                continue
            n += Result.objects.filter(pk=pk).update(**part_columns(phase, found))
        Phase.changed(phase.pk)
    return n


def reap_expired_leases(now: dt.datetime | None = None) -> list[int]:
    """Give back submissions whose scoring lease expired, and re-send lost queue messages.

    A worker killed mid-scoring leaves its row in ``scoring``: it is re-queued (or failed, when
    its attempts are used up). A ``queued`` row whose message never reached a worker (the broker
    was down when it was sent) would wait for ever: for a queued row ``lease_until`` is the time
    to send its task again, stamped when it is queued (``Submission.resend_time``; on the first
    pass for a row without one) and renewed on each re-send; a duplicate
    message is harmless because only one delivery can claim the row. Returns the ids sent.
    """
    now = now or timezone.now()
    resend_at = now + dt.timedelta(seconds=settings.SCORING_RESEND_AFTER_SECONDS)
    requeued: list[int] = []
    expired = Submission.objects.filter(
        status=Submission.Status.SCORING, lease_until__lt=now
    ).values_list("pk", "attempts")
    for pk, attempts in expired:
        if attempts >= settings.SCORING_MAX_ATTEMPTS:
            # A terminal failure like any other: uncharged, on the boards, the team mailed.
            _failed(pk, FAILED_MESSAGE.format(attempts=attempts), expired_before=now)
        elif Submission.release(pk, expired_before=now, resend_at=resend_at):
            requeued.append(pk)
            send(SCORE_SUBMISSION, pk)
    waiting = Submission.objects.filter(status=Submission.Status.QUEUED)
    # Rows queued before the stamp was set at upload (or by hand): their deadline starts now.
    waiting.filter(lease_until__isnull=True).exclude(pk__in=requeued).update(lease_until=resend_at)
    for pk in waiting.filter(lease_until__lt=now).values_list("pk", flat=True):
        if Submission.objects.filter(
            pk=pk, status=Submission.Status.QUEUED, lease_until__lt=now
        ).update(lease_until=resend_at):
            requeued.append(pk)
            send(SCORE_SUBMISSION, pk)
    return requeued


# --- team and organiser actions -------------------------------------------------------------


def cancel(submission: Submission, user: User) -> None:
    """Cancel a submission that has not started scoring; it stops counting against the quota."""
    if not submission.team.memberships.filter(user=user).exists():
        raise SubmissionNotAllowed("Only a member of the team can cancel its submission.")
    with transaction.atomic():
        if not Submission.cancel_queued(submission.pk):
            raise SubmissionNotAllowed("Only a queued submission can be cancelled.")
        Phase.changed(submission.phase_id)  # its count drops from the board
    submission.refresh_from_db()


def rescore(
    submission: Submission,
    *,
    enqueue: bool = True,
    include_failed: bool = False,
    actor: Any = None,
) -> bool:
    """Organiser action: score a scored submission again (new reference or scorer version),
    and with ``include_failed`` a failed one too (it stays uncharged).

    The new Results are new rows (their reference or signature differs); the old ones stay,
    no longer ``current``. ``enqueue=False`` leaves the queued row for the caller to score
    with ``run_scoring``."""
    with transaction.atomic():
        if not Submission.requeue(submission.pk, include_failed=include_failed):
            return False
        Phase.changed(submission.phase_id)
        if actor is not None:  # one submission, asked for by name (rescore_all records its own)
            phase = Phase.objects.get(pk=submission.phase_id)
            audit.record(
                phase.challenge_id, "rescored", actor=actor, phase=phase,
                subject=f"submission {submission.pk}", after={"submissions": [submission.pk]},
            )  # fmt: skip
        pk = submission.pk
        if enqueue:
            send(RESCORE_SUBMISSION, pk)
    return True


def rescore_all(
    *,
    phase: Phase | None = None,
    condition: Condition | None = None,
    challenge: Challenge | None = None,
    enqueue: bool = True,
    include_failed: bool = False,
    actor: Any = None,
    actor_name: str = "",
) -> list[int]:
    """Re-queue every scored (with ``include_failed``, also every failed) submission of a
    challenge, a phase, or (those with a file for) a condition; returns their ids. Called
    after a reference version is activated (failed ones included), by the ``rescore`` command
    and by the admin and dashboard actions."""
    statuses = [Submission.Status.SCORED]
    if include_failed:
        statuses.append(Submission.Status.FAILED)
    rows = Submission.objects.filter(status__in=statuses)
    if challenge is not None:
        rows = rows.filter(phase__challenge=challenge)
    if phase is not None:
        rows = rows.filter(phase=phase)
    if condition is not None:
        rows = rows.filter(files__condition=condition)
    # One transaction, the audit entry in it: the re-queued rows and their record go together
    # (each submission's own step is a savepoint; the tasks are sent once it commits).
    with transaction.atomic():
        ids = [
            s.pk
            for s in rows.distinct()
            if rescore(s, enqueue=enqueue, include_failed=include_failed)
        ]
        where = _scope(phase=phase, condition=condition, challenge=challenge)
        if ids and where is not None:
            audit.record(
                where[0], "rescored", actor=actor, actor_name=actor_name, phase=where[1],
                subject=where[2], after={"submissions": ids, "include_failed": include_failed},
            )  # fmt: skip
    return ids


def _scope(*, phase: Any, condition: Any, challenge: Any) -> tuple[int, int | None, str] | None:
    """(challenge id, phase id, words) of a re-score's scope, for its audit entry."""
    if condition is not None:
        found = Condition.objects.select_related("phase").get(
            pk=getattr(condition, "pk", condition)
        )
        return found.phase.challenge_id, found.phase_id, f"{found.phase.name} / {found.key}"
    if phase is not None:
        found_phase = Phase.objects.get(pk=getattr(phase, "pk", phase))
        return found_phase.challenge_id, found_phase.pk, found_phase.name
    if challenge is not None:
        return getattr(challenge, "pk", challenge), None, "every phase"
    return None
