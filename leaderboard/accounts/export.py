"""Everything the site holds about one person, as one JSON document: the profile page's
download and ``GET /api/v1/me/export/`` give the same (``personal_data``).

What it leaves out, and why: secrets (the password hash, API token digests and the start of
their keys: the export is a file people mail and keep, and none of it is needed to read it),
the teams' invite codes (a team's key, not data about the person: a copied export would let
anyone join), other people's personal data (teammates are counted, never named or
addressed), and the
numbers of a result the person may not see yet (a hidden phase's scores follow the one rule of
``challenges.visibility.access`` and ``submissions.selectors.score_prefix``, as every page)."""

from __future__ import annotations

from typing import Any

from allauth.account.models import EmailAddress
from allauth.socialaccount.models import SocialAccount
from django.contrib.auth.models import User
from django.utils import timezone

from leaderboard.accounts.models import MailPreference
from leaderboard.api.models import ApiToken
from leaderboard.challenges.audit import AuditEntry
from leaderboard.challenges.visibility import access
from leaderboard.submissions import selectors
from leaderboard.submissions.models import Submission
from leaderboard.teams.models import Membership

#: the version of the document's shape; raised when a field changes meaning or goes
FORMAT = 1

#: What the export says of the mail sent: the site keeps no log of it.
NO_MAIL_LOG = (
    "Trackboard keeps no record of the mail it sends you: a message is composed, handed to "
    "the mail server and forgotten. What it stores about mail is below: your choices, the "
    "address you confirmed, and for each of your submissions the outcome your team was last "
    "mailed about (so a re-score to the same outcome sends nothing)."
)


def _when(value: Any) -> str | None:
    return value.isoformat() if value is not None else None


def _account(user: Any) -> dict[str, Any]:
    return {
        "username": user.get_username(),
        "email": user.email,
        "first_name": user.first_name,
        "last_name": user.last_name,
        "date_joined": _when(user.date_joined),
        "last_login": _when(user.last_login),
        "active": user.is_active,
        "addresses": [
            {"email": row.email, "primary": row.primary, "confirmed": row.verified}
            for row in EmailAddress.objects.filter(user=user).order_by("pk")
        ],
        "identity_providers": [
            {"provider": row.provider, "uid": row.uid}
            for row in SocialAccount.objects.filter(user=user).order_by("pk")
        ],
        "organises": sorted(user.organised_challenges.values_list("slug", flat=True)),
    }


def _teams(user: Any) -> list[dict[str, Any]]:
    rows = []
    memberships = (
        Membership.objects.filter(user=user)
        .select_related("team")
        .prefetch_related("team__participations__challenge")
        .order_by("team__name")
    )
    for membership in memberships:
        team = membership.team
        rows.append(
            {
                "name": team.name,
                "slug": team.slug,
                "role": membership.role,
                "joined": _when(membership.joined),
                "created_by_you": team.created_by_id == user.pk,
                "anonymous": team.anonymous,
                "anonymous_label": team.anonymous_label,
                "members_listed": team.list_members,
                "members": team.memberships.count(),
                "registrations": [
                    {"challenge": p.challenge.slug, "status": p.status}
                    for p in sorted(team.participations.all(), key=lambda p: p.challenge.slug)
                ],
            }
        )
    return rows


def _submissions(user: Any) -> list[dict[str, Any]]:
    rows = []
    found = (
        Submission.objects.filter(submitter=user)
        .select_related("team", "phase__challenge")
        .prefetch_related("files__condition")
        .order_by("created_at", "pk")
    )
    for submission in found:
        phase = submission.phase
        prefix = selectors.score_prefix(phase, access(phase, user))
        summary = selectors.status_summary(submission, prefix=prefix)
        rows.append(
            {
                "id": submission.pk,
                "team": submission.team.name,
                "challenge": phase.challenge.slug,
                "phase": phase.slug,
                "method_name": submission.method_name,
                "method_description": submission.method_description,
                "url": submission.url,
                "facts": submission.facts,
                "status": submission.status,
                "error": submission.error,
                "created_at": _when(submission.created_at),
                "scored_at": _when(submission.scored_at),
                "files": [
                    {"condition": f.condition.key, "name": f.original_name, "sha256": f.sha256}
                    for f in sorted(submission.files.all(), key=lambda f: f.condition.key)
                ],
                # the part of the split shown ("all", "public"), None: no numbers may be shown
                "results_part": summary["part"],
                "results": summary["results"],
                "mailed_outcome": submission.notified_status or None,
            }
        )
    return rows


def _tokens(user: Any) -> list[dict[str, Any]]:
    return [
        {
            "name": t.name,
            "scope": t.scope,
            "created_at": _when(t.created_at),
            "expires_at": _when(t.expires_at),
            "last_used_at": _when(t.last_used_at),
        }
        for t in ApiToken.objects.filter(user=user).order_by("created_at", "pk")
    ]


def _mail(user: Any) -> dict[str, Any]:
    preference = MailPreference.objects.filter(user=user).first()
    return {
        "log_kept": False,
        "note": NO_MAIL_LOG,
        "submission_mail": preference.submission_mail if preference else True,
        "announcement_mail": preference.announcement_mail if preference else True,
    }


def _actions(user: Any) -> list[dict[str, Any]]:
    """What the audit log records the person doing (as an organiser, or in the admin)."""
    entries = AuditEntry.objects.filter(actor=user).select_related("challenge", "phase")
    return [
        {
            "at": _when(e.at),
            "challenge": e.challenge.slug if e.challenge_id and e.challenge else None,
            "action": e.action,
            "subject": e.subject,
        }
        for e in entries.order_by("at", "pk")
    ]


def personal_data(user: User) -> dict[str, Any]:
    """The export of ``user``: account, teams, submissions (files' names and hashes, results
    as far as they may see them), tokens' names, what is kept about mail, and their actions
    in the audit log."""
    return {
        "format": FORMAT,
        "exported_at": timezone.now().isoformat(),
        "account": _account(user),
        "teams": _teams(user),
        "submissions": _submissions(user),
        "tokens": _tokens(user),
        "mail": _mail(user),
        "audit_log": _actions(user),
    }


def filename(user: User) -> str:
    return f"trackboard-{user.pk}-{timezone.now():%Y%m%d}.json"
