"""Submission workflows: receive, score, reap, cancel, re-score, select finals.

``submit`` runs in the request thread (:mod:`.intake`); ``run_scoring`` and
``reap_expired_leases`` are what the Celery tasks call, and what ``demo`` calls synchronously
(:mod:`.processing`); ``select_final`` is a team's choice for the private board,
``choose_public`` its choice of the run its public board rows show (:mod:`.selection`).
"""

from __future__ import annotations

from leaderboard.submissions.services.intake import (
    AddressNotConfirmed,
    FactsRefused,
    QuotaExceeded,
    SubmissionError,
    SubmissionNotAllowed,
    SubmissionRejected,
    TooManyRejected,
    TransientScoringError,
    checked_facts,
    quota_resets_at,
    quota_usage,
    replayed,
    submit,
)
from leaderboard.submissions.services.metadata import EditError, edit_method
from leaderboard.submissions.services.processing import (
    cancel,
    reap_expired_leases,
    recompute_parts,
    rescore,
    rescore_all,
    run_scoring,
)
from leaderboard.submissions.services.selection import (
    SelectionError,
    choose_public,
    select_final,
)

__all__ = [
    "AddressNotConfirmed",
    "EditError",
    "FactsRefused",
    "QuotaExceeded",
    "SelectionError",
    "SubmissionError",
    "SubmissionNotAllowed",
    "SubmissionRejected",
    "TooManyRejected",
    "TransientScoringError",
    "cancel",
    "checked_facts",
    "choose_public",
    "edit_method",
    "quota_resets_at",
    "quota_usage",
    "reap_expired_leases",
    "recompute_parts",
    "replayed",
    "rescore",
    "rescore_all",
    "run_scoring",
    "select_final",
    "submit",
]
