"""Withdrawing a run, disqualifying a team from a phase, and undoing either: the organisers'
way to take something off the boards while keeping the evidence (``Withdrawal``).

Each is one transaction with its audit entry; the phase's boards are built again once it
commits (``Phase.changed``), so the run or team leaves every board, export and analysis, and
any snapshot published after it. Its files, Results and charge are kept; the team still sees
its runs, marked withdrawn with the reason. A disqualified team cannot upload to the phase
(``intake``)."""

from __future__ import annotations

from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import F, Q

from leaderboard.challenges import audit
from leaderboard.challenges.models import Phase
from leaderboard.submissions.models import Submission, Withdrawal
from leaderboard.teams.models import Team

#: the longest reason kept (it shows on the board when public)
REASON_LENGTH = 1000


class WithdrawalError(ValueError):
    """A withdrawal that cannot be made or undone; the message is safe to show."""


def _subject(team: Team, submission: Submission | None) -> str:
    if submission is None:
        return f"{team.name} (every run)"
    return f"{team.name}: submission {submission.pk}"


def withdraw(
    phase: Phase,
    team: Team,
    *,
    reason: str,
    submission: Submission | None = None,
    public: bool = False,
    actor: Any = None,
    actor_name: str = "",
) -> Withdrawal:
    """Take ``submission`` (None: every run of ``team``) off ``phase``'s boards."""
    reason = " ".join((reason or "").split())
    if not reason:
        raise WithdrawalError("Say why: the reason is kept in the audit log and shown to the team.")
    if len(reason) > REASON_LENGTH:
        raise WithdrawalError(f"The reason is {len(reason)} characters; at most {REASON_LENGTH}.")
    if submission is not None and (submission.phase_id, submission.team_id) != (phase.pk, team.pk):
        raise WithdrawalError(
            f"Submission {submission.pk} is not a run of {team.name} in {phase.name}."
        )
    if submission is None and not team.submissions.filter(phase=phase).exists():
        raise WithdrawalError(f"{team.name} has no submission in {phase.name}.")
    try:
        with transaction.atomic():
            if submission is None and phase.withdrawals.filter(team=team, submission=None).exists():
                raise WithdrawalError(f"{team.name} is already disqualified from {phase.name}.")
            found = Withdrawal.objects.create(
                phase=phase,
                team=team,
                submission=submission,
                reason=reason,
                public=public,
                by=actor if getattr(actor, "is_authenticated", False) else None,
            )
            audit.record(
                phase.challenge_id, "withdrawn", actor=actor, actor_name=actor_name, phase=phase,
                subject=_subject(team, submission), after={"reason": reason, "public": public},
            )  # fmt: skip
            Phase.changed(phase.pk)
    except IntegrityError:
        raise WithdrawalError(
            f"Submission {submission.pk if submission else ''} is already withdrawn."
        ) from None
    return found


def reinstate(withdrawal: Withdrawal, *, actor: Any = None, actor_name: str = "") -> None:
    """Undo ``withdrawal``: the run or the team is back on the boards built after it."""
    with transaction.atomic():
        phase = withdrawal.phase
        deleted, _ = Withdrawal.objects.filter(pk=withdrawal.pk).delete()
        if not deleted:
            raise WithdrawalError("That withdrawal was already undone.")
        audit.record(
            phase.challenge_id, "reinstated", actor=actor, actor_name=actor_name, phase=phase,
            subject=_subject(withdrawal.team, withdrawal.submission),
            before={"reason": withdrawal.reason, "public": withdrawal.public},
        )  # fmt: skip
        Phase.changed(phase.pk)


def of_submission(submission: Submission) -> Withdrawal | None:
    """What took ``submission`` off the boards: its own withdrawal, else its team's
    disqualification from its phase (None: it counts)."""
    return (
        Withdrawal.objects.filter(phase_id=submission.phase_id, team_id=submission.team_id)
        .filter(Q(submission=submission) | Q(submission=None))
        .order_by(F("submission").asc(nulls_last=True))
        .first()
    )


def erase(
    submissions: list[Submission], *, reason: str, team: Team | None = None, actor_name: str
) -> dict[str, int]:
    """An operator's erasure (a legal request): delete ``submissions`` with their Results,
    files and withdrawals, and ``team`` itself when given, each recorded in the audit log of
    its challenge with the reason. The only way a scored run or a Result goes; the stored
    files are removed once it commits. Returns what was deleted, by kind."""
    from leaderboard.submissions.models import Result, SubmissionFile
    from leaderboard.submissions.services.intake import delete_stored

    reason = " ".join((reason or "").split())
    if not reason:
        raise WithdrawalError("An erasure needs a reason (--reason): it is kept in the audit log.")
    counts = {"submissions": 0, "results": 0, "files": 0, "teams": 0}
    with transaction.atomic():
        phases: set[int] = set()
        stored: list[str] = []
        for submission in submissions:
            phase = submission.phase
            results = Result.objects.filter(submission=submission)
            files = SubmissionFile.objects.filter(submission=submission)
            audit.record(
                phase.challenge_id, "erased", actor_name=actor_name, phase=phase,
                subject=_subject(submission.team, submission),
                before={"results": results.count(), "files": files.count()},
                after={"reason": reason},
            )  # fmt: skip
            stored += [name for name in files.values_list("file", flat=True) if name]
            counts["results"] += results.delete()[0]
            counts["files"] += files.delete()[0]
            Submission.objects.filter(pk=submission.pk).delete()
            counts["submissions"] += 1
            phases.add(phase.pk)
        if team is not None:
            for challenge_id in set(team.participations.values_list("challenge_id", flat=True)):
                audit.record(
                    challenge_id, "erased", actor_name=actor_name, subject=f"team {team.name}",
                    after={"reason": reason},
                )  # fmt: skip
            Team.objects.filter(pk=team.pk).delete()
            counts["teams"] = 1
        Phase.changed(*phases)
        transaction.on_commit(lambda: delete_stored(stored), robust=True)
    return counts
