"""Receiving a submission, in the request thread: check what can be checked without reading
the files (the conditions, the sizes), store them privately, charge the quota under a lock,
enqueue (docs/architecture.md). The files are read, decoded and checked once, by the worker
that scores them (``processing``): a file the scorer refuses makes the upload ``invalid``
there, uncharged.

Commit first, then side effects, and never undo a commit: the stored files are removed only
when the row that names them was not committed, and sending the scoring task after the commit
may fail without failing the upload (the reaper sends it again)."""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, cast

from django.conf import settings
from django.contrib.auth.models import User
from django.core.files.uploadedfile import UploadedFile
from django.db import DatabaseError, connection, transaction
from django.utils import timezone

from leaderboard.background import SCORE_SUBMISSION
from leaderboard.celery import send
from leaderboard.challenges.facts import check_facts
from leaderboard.challenges.models import Condition, Phase, Reference
from leaderboard.env import parse_rate
from leaderboard.storage import private_storage, sha256_of, store_whole
from leaderboard.submissions.models import CHARGED, Submission, SubmissionFile, Withdrawal
from leaderboard.teams.models import Participation, Team
from leaderboard.teams.services import UNCONFIRMED, address_confirmed
from leaderboard.throttles import RejectedUploadIPThrottle

log = logging.getLogger(__name__)

#: A run whose scoring process stopped on every attempt (killed, out of memory).
FAILED_MESSAGE = (
    "Scoring did not complete after {attempts} attempt(s): the process scoring it stopped "
    "each time. This submission does not count against your quota; the organisers have been "
    "told and can score it again."
)
INTERNAL_ERROR_MESSAGE = (
    "Scoring failed because of an internal error; the organisers have been notified. "
    "This submission does not count against your quota."
)


class SubmissionError(ValueError):
    """Base of the errors ``submit`` raises; ``str()`` is safe to show a participant."""


class SubmissionNotAllowed(SubmissionError):
    """The phase is closed or not ready, or the team may not submit to it."""


class AddressNotConfirmed(SubmissionNotAllowed):
    """The submitting user has not confirmed their e-mail address yet."""


class QuotaExceeded(SubmissionError):
    """The team has used its daily or total quota for the phase."""


#: What can be wrong with one file of an upload (``SubmissionRejected.kinds``,
#: ``Submission.verdicts``): the scorer's ``incomplete``, ``mismatched`` and ``unreadable``
#: (``scoring.errors.kind``), and these.
MISSING, TOO_LARGE, UNKNOWN = "missing", "too large", "unknown condition"
#: The verdict of a file that passed every check, and of one not read because the request
#: refused its upload for another file.
VALID, UNCHECKED = "valid", "unchecked"


class SubmissionRejected(SubmissionError):
    """The request refused the upload before reading its files: a file missing, too large, or
    for no condition of the phase. ``messages`` maps condition key -> message, ``kinds`` the
    same keys -> what was wrong in a word (``MISSING``, ``TOO_LARGE``, ``UNKNOWN``), and
    ``valid`` the condition keys whose file of this upload was not refused -> that file's name
    (not read: ``UNCHECKED``).

    ``submission`` is the ``invalid`` row recorded for the team's history (never charged).
    """

    def __init__(
        self,
        messages: Mapping[str, str],
        submission: Submission | None = None,
        kinds: Mapping[str, str] | None = None,
        valid: Mapping[str, str] | None = None,
    ):
        self.messages = dict(messages)
        self.kinds = dict(kinds or {})
        self.valid = dict(valid or {})
        self.submission = submission
        super().__init__(join_messages(self.messages))


class FactsRefused(SubmissionError):
    """What the upload says about its system (``challenges.facts``) is refused: a required
    field missing, or a value of the wrong kind. ``messages`` maps the field's key -> its
    message (which names the field by label and key). Refused before anything is stored,
    recorded or charged."""

    def __init__(self, messages: Mapping[str, str]) -> None:
        self.messages = dict(messages)
        super().__init__(
            "What the upload says about its system was refused; nothing was stored or "
            "charged.\n" + "\n".join(self.messages.values())
        )


def checked_facts(phase: Phase, given: Mapping[str, Any]) -> dict[str, Any]:
    """The values to store of what an upload says about its system, checked against the
    challenge's declarations (``challenges.facts.check_facts``); raises ``FactsRefused``.
    The one check of the web form, the API (and so the command-line client) and ``submit``."""
    values, problems = check_facts(phase.challenge.facts(), given)
    if problems:
        raise FactsRefused(problems)
    return values


class TooManyRejected(SubmissionError):
    """The team, or the client address, sent more refused uploads than the window allows;
    ``retry_after`` is the number of seconds until it may upload again. Raised before anything
    is stored, recorded or charged."""

    def __init__(self, message: str, retry_after: int) -> None:
        self.retry_after = retry_after
        super().__init__(message)


class TransientScoringError(Exception):
    """Scoring hit a temporary problem (database, storage); the task retries it."""


def join_messages(messages: Mapping[str, str]) -> str:
    return "\n".join(f"{key}: {message}" for key, message in messages.items())


def shown_message(text: str) -> str:
    """A scorer message as it is stored and shown: storable (:func:`storable_text`) and cut at
    ``MAX_ERROR_CHARS``, so no hostile file can make a row or a page large."""
    text = storable_text(text)
    limit = settings.MAX_ERROR_CHARS
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


# --- receive -------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Checked:
    condition: Condition
    upload: UploadedFile
    original_name: str


def submit(
    *,
    team: Team,
    phase: Phase,
    user: User | None,
    files: Mapping[str, UploadedFile],
    method_name: str,
    method_description: str = "",
    url: str = "",
    is_baseline: bool = False,
    enqueue: bool = True,
    idempotency_key: str = "",
    facts: Mapping[str, Any] | None = None,
    client_address: str | None = None,
) -> Submission:
    """Check, store, charge and enqueue one submission; its files are read by its worker.

    ``facts``: what the upload says about its system (declared key -> value, as sent), checked
    by ``checked_facts`` before anything else is read.

    ``client_address``: where the upload came from (``addresses.client_address`` of the
    request), for the per-address limit on uploads the request refuses (web form and API
    alike); None (a command, a baseline) counts nothing.

    Raises ``AddressNotConfirmed`` (a ``SubmissionNotAllowed``: ``user`` has not confirmed their
    address), ``SubmissionNotAllowed``, ``FactsRefused``, ``QuotaExceeded``,
    ``TooManyRejected`` (the team's or the address's refused uploads) or
    ``SubmissionRejected``; only the last records a row (status ``invalid``, not charged) and
    counts against the address. A file the scorer refuses is found by the worker
    (``processing``), which makes the row ``invalid`` and gives its charge back.
    ``enqueue=False`` leaves the queued row for the caller to score synchronously with
    ``run_scoring`` (the ``demo`` command does).

    With an ``idempotency_key`` (the client's key for this upload), an upload the team already
    sent with that key returns the stored submission (``replayed``): a retry after a lost
    reply is neither stored nor charged twice.
    """
    if idempotency_key:
        earlier = replayed(team, phase, idempotency_key)
        if earlier is not None:
            return earlier
    address_limit = RejectedUploadIPThrottle()
    if client_address is not None:
        _check_address(address_limit, client_address)
    if user is not None and not address_confirmed(user):
        raise AddressNotConfirmed(UNCONFIRMED)
    if not phase.is_open():
        raise SubmissionNotAllowed(f"The phase {phase.name!r} is not open for submissions.")
    declared = checked_facts(phase, facts or {})
    participation = Participation.objects.filter(team=team, challenge_id=phase.challenge_id).first()
    if participation is None or participation.status != Participation.Status.APPROVED:
        raise SubmissionNotAllowed(f"{team.name} is not an approved participant of this challenge.")
    barred = Withdrawal.objects.filter(phase=phase, team=team, submission__isnull=True).first()
    if barred is not None:
        raise SubmissionNotAllowed(
            f"The organisers disqualified {team.name} from {phase.name}: {barred.reason}"
        )
    conditions = list(phase.conditions.all())
    references = {
        r.condition_id: r
        for r in Reference.objects.filter(condition__in=conditions, active=True).prefetch_related(
            "files"
        )
    }
    if not conditions or any(c.pk not in references for c in conditions):
        raise SubmissionNotAllowed("This phase is not ready: a condition has no reference yet.")
    # Fail fast before storing large files; the binding check happens under the lock below.
    _check_quota(team, phase)
    _check_rejections(team)
    _check_references_readable(references.values())

    checked, messages, kinds = _validate(phase, conditions, files)
    # What the team sent, whether the upload is recorded as invalid or queued.
    identity = {
        "team": team,
        "phase": phase,
        "submitter": user,
        "method_name": method_name,
        "method_description": method_description,
        "url": url,
        "is_baseline": is_baseline,
        "facts": declared,
    }
    if messages:
        valid = {item.condition.key: item.original_name for item in checked}
        names = {key: storable_text(upload.name or "") for key, upload in files.items()}
        verdicts = {
            **{key: {"kind": UNCHECKED, "name": name} for key, name in valid.items()},
            **{key: {"kind": kind, "name": names.get(key, "")} for key, kind in kinds.items()},
        }
        invalid = Submission.objects.create(
            **identity,
            status=Submission.Status.INVALID,
            charged=False,
            error=join_messages(messages),
            verdicts=verdicts,
        )
        if client_address is not None:
            address_limit.record_failure(client_address)
        raise SubmissionRejected(messages, invalid, kinds, valid)

    kept = _store(checked)
    stored = [item.name for item in kept]
    try:
        with transaction.atomic():
            # The Participation row is the team's quota lock for this challenge: concurrent
            # uploads of one team queue here, so the count below cannot be raced.
            Participation.objects.select_for_update().get(pk=participation.pk)
            earlier = replayed(team, phase, idempotency_key) if idempotency_key else None
            if earlier is not None:  # the same upload, committed while this one was checked
                delete_stored(stored)
                return earlier
            _check_quota(team, phase)
            submission = Submission.objects.create(
                **identity,
                status=Submission.Status.QUEUED,
                charged=True,
                lease_until=Submission.resend_time(),
                idempotency_key=idempotency_key,
            )
            SubmissionFile.objects.bulk_create(
                SubmissionFile(
                    submission=submission,
                    condition=item.condition,
                    file=file.name,
                    original_name=item.original_name[:255],
                    sha256=file.sha256,
                    size=file.size,
                    uploaded_for=references[item.condition.pk],
                )
                for item, file in zip(checked, kept, strict=True)
            )
            # The board shows the team's count of submissions.
            Phase.changed(phase.pk)
            if enqueue:
                send(SCORE_SUBMISSION, submission.pk)
    except DatabaseError:
        # The connection may have dropped at COMMIT, after the server committed: then the row
        # and its files are the team's upload and must stay.
        known, committed = _committed_with(stored)
        if committed is None:
            if known:
                delete_stored(stored)
            raise
        if enqueue:
            send(SCORE_SUBMISSION, committed.pk)
        return committed
    except BaseException:
        delete_stored(stored)
        raise
    log.info(
        "submission %s of team %s to phase %s stored and queued", submission.pk, team.pk, phase.pk
    )
    return submission


def replayed(team: Team, phase: Phase, idempotency_key: str) -> Submission | None:
    """The submission the team stored with this key, if any."""
    return Submission.objects.filter(
        team=team, phase=phase, idempotency_key=idempotency_key
    ).first()


def _committed_with(stored: list[str]) -> tuple[bool, Submission | None]:
    """(whether it is known, the committed submission naming these stored files), asked on a
    new connection. When even that fails nothing is known and the files are kept: an orphan
    file is harmless, a committed upload without its files is lost."""
    if connection.in_atomic_block:
        return True, None  # the caller's transaction holds the row: it is rolled back
    for _ in range(3):
        connection.close()
        try:
            return True, Submission.objects.filter(files__file=stored[0]).first()
        except DatabaseError:
            log.warning("could not yet tell whether an upload was committed")
    log.error("could not tell whether an upload was committed; its files are kept")
    return False, None


def delete_stored(stored: list[str]) -> None:
    """Remove the stored files of an upload not committed, or refused by its worker."""
    for name in stored:
        try:
            private_storage().delete(name)
        except OSError:
            log.exception("could not remove the stored file %s of an upload", name)


def _validate(
    phase: Phase, conditions: list[Condition], files: Mapping[str, UploadedFile]
) -> tuple[list[_Checked], dict[str, str], dict[str, str]]:
    """The files of the upload in memory, and for each one refused without reading it (missing,
    too large, for no condition) its message and what was wrong (``SubmissionRejected``)."""
    by_key = {c.key: c for c in conditions}
    messages: dict[str, str] = {}
    kinds: dict[str, str] = {}
    for key in files:
        if key not in by_key:
            messages[key] = f"this phase has no condition {key!r}."
            kinds[key] = UNKNOWN
    if not files:
        messages["files"] = "upload at least one prediction file."
        kinds["files"] = MISSING
    elif not phase.allow_partial:
        for condition in conditions:
            if condition.key not in files:
                messages[condition.key] = "a prediction file is required for this condition."
                kinds[condition.key] = MISSING
    checked: list[_Checked] = []
    for condition in conditions:
        upload = files.get(condition.key)
        if upload is None:
            continue
        name = storable_text(upload.name or f"{condition.key}.json")
        if upload.size is not None and upload.size > settings.MAX_UPLOAD_BYTES:
            messages[condition.key] = (
                f"{name}: the file is {upload.size:,} bytes; the largest accepted is "
                f"{settings.MAX_UPLOAD_BYTES:,} bytes. Compressed files are not accepted."
            )
            kinds[condition.key] = TOO_LARGE
            continue
        checked.append(_Checked(condition, upload, name))
    return checked, messages, kinds


def _check_references_readable(references: Iterable[Reference]) -> None:
    """Refuse the upload clearly (not a server error) when a reference's files are gone from
    private storage or it does not answer. Only asked, not read: the worker that scores the
    upload reads them (and checks their sha256)."""
    storage = private_storage()
    for reference in references:
        # stored files, each with its name (the stubs allow an empty file's None)
        names = cast(
            list[str], [reference.file.name, *(f.file.name for f in reference.files.all())]
        )
        try:
            missing = [name for name in names if not storage.exists(name)]
        except Exception:  # an object store's error, whatever its type, is the site's fault
            log.exception("private storage did not answer for reference %s", reference.pk)
            missing = names
        if missing:
            log.error(
                "reference %s of condition %s is unreadable: %s",
                reference.pk,
                reference.condition_id,
                ", ".join(missing),
            )
            raise SubmissionNotAllowed(
                "This phase cannot take submissions right now: a reference file cannot be "
                "read. The organisers have been notified; nothing was charged."
            ) from None


def storable_text(text: str) -> str:
    """``text`` as Postgres can store it and a page can show it: a message quoting a hostile
    file may hold a NUL or a lone surrogate (``"\\ud800"`` in JSON), which neither can."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8").replace("\x00", "\\x00")


@dataclass(frozen=True)
class _Stored:
    name: str
    sha256: str
    size: int


def _store(checked: list[_Checked]) -> list[_Stored]:
    """Store every file, or none: a storage that fails part-way (``StorageUnavailable``)
    leaves nothing of this upload behind, and nothing has been charged yet."""
    stored: list[_Stored] = []
    try:
        for item in checked:
            item.upload.seek(0)
            data = item.upload.read()  # one copy in memory (joining chunks would hold two)
            name = store_whole("submissions", data)
            stored.append(_Stored(name, sha256_of(data), len(data)))
    except BaseException:
        delete_stored([item.name for item in stored])
        raise
    return stored


def quota_usage(team: Team, phase: Phase, now: dt.datetime | None = None) -> tuple[int, int]:
    """(charged submissions today, charged submissions in total) of ``team`` in ``phase``."""
    now = now or timezone.now()
    start_of_day = timezone.localtime(now).replace(hour=0, minute=0, second=0, microsecond=0)
    charged = Submission.objects.filter(CHARGED, team=team, phase=phase)
    return charged.filter(created_at__gte=start_of_day).count(), charged.count()


def quota_resets_at(now: dt.datetime | None = None) -> dt.datetime:
    """When the daily quota that ``quota_usage`` counts starts again: the next midnight of
    the site's time zone."""
    now = now or timezone.now()
    start_of_day = timezone.localtime(now).replace(hour=0, minute=0, second=0, microsecond=0)
    return start_of_day + dt.timedelta(days=1)


def _check_rejections(team: Team, now: dt.datetime | None = None) -> None:
    """Refuse an upload while the team's refused uploads in the window reach the limit: each
    one cost the server a parse and none is charged, so they are limited on their own."""
    count, seconds = parse_rate(settings.REJECTED_UPLOADS_PER_TEAM)
    now = now or timezone.now()
    recent = Submission.objects.filter(
        team=team,
        status=Submission.Status.INVALID,
        created_at__gt=now - dt.timedelta(seconds=seconds),
    ).order_by("-created_at")
    times = list(recent.values_list("created_at", flat=True)[:count])
    if len(times) < count:
        return
    # The upload may go again once the oldest of the last ``count`` leaves the window.
    wait = max(1, int((times[-1] + dt.timedelta(seconds=seconds) - now).total_seconds() + 0.999))
    raise TooManyRejected(
        f"{team.name} sent {count} uploads that were not accepted within "
        f"{_duration(seconds)}; check your files with the scorer (python -m scoring) and try "
        f"again in {_duration(wait)}.",
        wait,
    )


def _check_address(limit: RejectedUploadIPThrottle, address: str) -> None:
    """Refuse any upload from an address whose uploads the request refused reach the limit
    (``RejectedUploadIPThrottle``, across teams): checked first, so nothing is read, stored or
    charged meanwhile."""
    if not limit.blocked(address):
        return
    wait = max(1, int((limit.wait() or 1) + 0.999))
    raise TooManyRejected(
        "Too many uploads from your address were not accepted; check your files with the "
        f"scorer (python -m scoring) and try again in {_duration(wait)}.",
        wait,
    )


def _duration(seconds: int) -> str:
    if seconds < 120:
        return f"{seconds} second(s)"
    return f"{(seconds + 59) // 60} minute(s)"


def _check_quota(team: Team, phase: Phase) -> None:
    """Refuse an upload past a quota. The total is checked first: once it is used up no reset
    brings a submission back, so the message names no time (as the submit page does)."""
    today, total = quota_usage(team, phase)
    if phase.total_quota is not None and total >= phase.total_quota:
        raise QuotaExceeded(
            f"{team.name} has used all {phase.total_quota} submission(s) allowed in "
            f"{phase.name}; no more can be made in this phase. Invalid, failed and cancelled "
            "submissions are not counted."
        )
    if phase.daily_quota is not None and today >= phase.daily_quota:
        raise QuotaExceeded(
            f"{team.name} has used its {phase.daily_quota} submission(s) for today in "
            f"{phase.name}; the quota resets at midnight ({settings.TIME_ZONE}). "
            "Invalid, failed and cancelled submissions are not counted."
        )
