"""Background work, declared once: every task the site sends, by its registered name, with the
queue it goes to and how it is retried. The rest of the site is wired from here:

- the tasks take their options from ``options(name)`` (``@shared_task(**options(NAME))``);
- ``leaderboard.celery.send`` sends a task to its queue once the change that asked for it
  commits;
- a Celery worker started without ``-Q`` consumes every queue named here (``queues()``),
  and beat sends the periodic tasks named here (``beat_schedule()``);
- every way of running the site (``scripts/run``, ``scripts/serve``, ``docker/compose.yml``,
  ``deploy/kubernetes/``) consumes every one of these queues, which a test checks.

Four queues, their names settings read at call time (so operators and tests can route them):

- ``scoring``: new submissions and the periodic tasks (``TRACKBOARD_QUEUE``);
- ``rescore``: re-scores, apart so that new submissions never wait behind a phase's
  re-scoring (``TRACKBOARD_RESCORE_QUEUE``; empty: the scoring queue);
- ``boards``: the boards' builds (``TRACKBOARD_BOARD_QUEUE``; empty: the scoring queue);
- ``mail``: every mail, of every kind, so that a slow or hung mail server holds no scoring
  process (``TRACKBOARD_MAIL_QUEUE``; empty: the scoring queue's name with ``-mail``).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings


class Queue(enum.StrEnum):
    SCORING = "scoring"
    RESCORE = "rescore"
    BOARDS = "boards"
    MAIL = "mail"


def queue_name(queue: Queue) -> str:
    """The broker's name of ``queue`` under the current settings."""
    scoring = settings.CELERY_TASK_DEFAULT_QUEUE
    if queue is Queue.RESCORE:
        return settings.CELERY_RESCORE_QUEUE or scoring
    if queue is Queue.BOARDS:
        return settings.CELERY_BOARD_QUEUE or scoring
    if queue is Queue.MAIL:
        return settings.CELERY_MAIL_QUEUE or f"{scoring}-mail"
    return scoring


#: A mail the server did not take (refused, timed out, unreachable: ``OSError``) is tried again
#: after about 30 s, 1, 2, 4 and 8 minutes (each delay drawn at random up to its ceiling, so
#: that mails stopped by one outage do not all come back at once), then dropped and logged: the
#: page that asked for it says how to ask again. Each attempt waits at most EMAIL_TIMEOUT.
MAIL_RETRY: dict[str, Any] = {
    "autoretry_for": (OSError,),
    "retry_backoff": 30,
    "retry_backoff_max": 600,
    "retry_jitter": True,
    "max_retries": 5,
    "soft_time_limit": 60,
    "time_limit": 90,
}


def _scoring_retry() -> dict[str, Any]:
    """A run stopped by a fault of the site (database, broker, storage) is retried for as long
    as the fault lasts, up to ``SCORING_RETRY_FOR_SECONDS`` (the task counts that, not Celery:
    ``max_retries`` is None), after delays doubling from 2 s up to ``SCORING_RETRY_MAX_DELAY``,
    each drawn at random up to its ceiling. The task itself raises the retry (its service needs
    the delay first, to tell the row when to expect it), with these options."""
    return {
        "retry_backoff": 2,
        "retry_backoff_max": settings.SCORING_RETRY_MAX_DELAY,
        "retry_jitter": True,
        "max_retries": None,
        "reject_on_worker_lost": True,
    }


#: A board's build is never retried: a fault leaves the board behind its version, and the
#: periodic ``RESEND_BOARD_BUILDS`` sends the task again.
BOARD_LIMITS: dict[str, Any] = {
    "reject_on_worker_lost": True,
    "soft_time_limit": 240,
    "time_limit": 300,
}


@dataclass(frozen=True)
class Task:
    """One kind of background work: its registered name, its queue, its Celery options."""

    name: str
    queue: Queue
    options: dict[str, Any] = field(default_factory=dict)
    #: a periodic task: beat sends it every ``REAPER_INTERVAL`` seconds
    periodic: bool = False


SCORE_SUBMISSION = "leaderboard.submissions.tasks.score_submission"
RESCORE_SUBMISSION = "leaderboard.submissions.tasks.rescore_submission"
NOTIFY_TEAM = "leaderboard.submissions.tasks.notify_team"
REAP_EXPIRED_LEASES = "leaderboard.submissions.tasks.reap_expired_leases"
SEND_ACCOUNT_MAIL = "leaderboard.accounts.tasks.send_account_mail"
MAIL_PENDING = "leaderboard.teams.tasks.mail_pending"
MAIL_DECISION = "leaderboard.teams.tasks.mail_decision"
MAIL_ANNOUNCEMENT = "leaderboard.teams.tasks.mail_announcement"
MAIL_ANNOUNCEMENT_TO = "leaderboard.teams.tasks.mail_announcement_to"
BUILD_BOARDS = "leaderboard.rankings.tasks.build_boards"
RESEND_BOARD_BUILDS = "leaderboard.rankings.tasks.resend_board_builds"
CLOSE_PHASES = "leaderboard.challenges.tasks.close_phases"
SCHEDULER_HEARTBEAT = "leaderboard.operations.tasks.scheduler_heartbeat"


def _declare() -> dict[str, Task]:
    tasks = [
        # scoring: a new submission, and the same work for a re-score on a queue of its own
        Task(SCORE_SUBMISSION, Queue.SCORING, _scoring_retry()),
        Task(RESCORE_SUBMISSION, Queue.RESCORE, _scoring_retry()),
        # a board's build
        Task(BUILD_BOARDS, Queue.BOARDS, BOARD_LIMITS),
        # mail: a submission's outcome, an account's mail (a password reset, an address's
        # confirmation), a registration waiting for the organisers and their decision; an
        # announcement, sent as one task per person (a retry mails nobody twice)
        Task(NOTIFY_TEAM, Queue.MAIL, MAIL_RETRY),
        Task(SEND_ACCOUNT_MAIL, Queue.MAIL, MAIL_RETRY),
        Task(MAIL_PENDING, Queue.MAIL, MAIL_RETRY),
        Task(MAIL_DECISION, Queue.MAIL, MAIL_RETRY),
        Task(MAIL_ANNOUNCEMENT, Queue.MAIL, MAIL_RETRY),
        Task(MAIL_ANNOUNCEMENT_TO, Queue.MAIL, MAIL_RETRY),
        # periodic (beat): the lease reaper and the lost messages' re-sends, the boards left
        # behind, the phases' closes recorded, the scheduler's own liveness (a late heartbeat
        # is worthless: it expires)
        Task(REAP_EXPIRED_LEASES, Queue.SCORING, periodic=True),
        Task(RESEND_BOARD_BUILDS, Queue.SCORING, periodic=True),
        Task(CLOSE_PHASES, Queue.SCORING, periodic=True),
        Task(SCHEDULER_HEARTBEAT, Queue.SCORING, {"expires": 60}, periodic=True),
    ]
    return {task.name: task for task in tasks}


def declared() -> dict[str, Task]:
    """Every task the site sends, by name (options read from the current settings)."""
    return _declare()


def options(name: str) -> dict[str, Any]:
    """The Celery options of task ``name``, for its ``@shared_task``: its name, late
    acknowledgement (a worker that dies mid-task leaves the message to another), no result
    kept (results live in the site's tables), and the declared retry policy and limits."""
    return {"name": name, "acks_late": True, "ignore_result": True, **declared()[name].options}


def queue_of(name: str) -> str:
    """The broker's name of the queue task ``name`` goes to."""
    return queue_name(declared()[name].queue)


def queues() -> list[str]:
    """The broker's names of every queue the site sends to, each once: what a worker started
    without ``-Q`` consumes, and what every deployment must consume."""
    return list(dict.fromkeys(queue_name(queue) for queue in Queue))


def beat_schedule() -> dict[str, dict[str, Any]]:
    """Beat's schedule: every periodic task, every ``REAPER_INTERVAL`` seconds, to its queue."""
    return {
        task.name: {
            "task": task.name,
            "schedule": settings.REAPER_INTERVAL,
            "options": {"queue": queue_name(task.queue)},
        }
        for task in declared().values()
        if task.periodic
    }
