"""Submission workflows (DESIGN.md "Data flow"): receive, score, reap, cancel, re-score.

``submit`` runs in the request thread (:mod:`.intake`); ``run_scoring`` and
``reap_expired_leases`` are what the Celery tasks call, and what ``demo`` calls synchronously
(:mod:`.processing`).
"""

from __future__ import annotations

from leaderboard.submissions.services.intake import (
    QuotaExceeded,
    SubmissionError,
    SubmissionNotAllowed,
    SubmissionRejected,
    TransientScoringError,
    enqueue_scoring,
    quota_usage,
    submit,
)
from leaderboard.submissions.services.processing import (
    cancel,
    reap_expired_leases,
    rescore,
    rescore_all,
    run_scoring,
)

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
    "rescore_all",
    "run_scoring",
    "submit",
]
