"""Deleting an account: the person's data goes, their team's runs stay with the team.

One transaction (``delete_account``): the user's row goes, and with it (by the database's
cascades) their mail choices, confirmed address, API tokens, memberships and organiser roles;
their sessions and failed log-in records are deleted by name, since they hang from no row; what
keeps a trace of them by name is rewritten to ``deleted user #<id>``: the audit log's actor
and subjects (the entries stay, for the operators: who did what to a challenge is the
challenge's record, the person's name is not needed for it; an admin change of the person's
own rows keeps which fields changed, not their values, which may be former addresses), and the
admin's history of their rows. Their submissions stay with their team, without a submitter
(``Submission.submitter`` is SET_NULL), so the team's scored runs are still ranked; Results
are never deleted here (they are protected by the database).

Teams: a team the person leaves with other members stays theirs; if the person is its last
owner, they name the member who owns it next. A team with runs and no other member is kept,
renamed to a neutral name (``Former team <alias>``, through the team-name rules) and made
anonymous, so its runs stay on the boards without pointing at the person. A team without runs
and no other member is deleted.

One site-wide audit entry (``account-deleted``) records the deletion for the operators, with
the neutral name only: never the person's address or username."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from allauth.account.models import EmailAddress
from allauth.socialaccount.models import SocialAccount
from axes.models import AccessAttempt, AccessFailureLog, AccessLog
from django.contrib.admin.models import LogEntry
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.contrib.contenttypes.models import ContentType
from django.contrib.sessions.models import Session
from django.db import transaction
from django.db.models import Model, Q
from django.utils.text import slugify

from leaderboard.accounts.models import MailPreference
from leaderboard.accounts.services import AccountError
from leaderboard.api.models import ApiToken
from leaderboard.challenges import audit
from leaderboard.challenges.audit import AuditEntry
from leaderboard.challenges.models import Phase
from leaderboard.security import login_username
from leaderboard.teams import names
from leaderboard.teams.models import Membership, Team, new_invite_code
from leaderboard.teams.services import lock, name_taken


def neutral_name(user_id: int) -> str:
    """How the site names a deleted person where a name was kept (the audit log, the admin's
    history): their former row's id only, which tells the operators which entries go
    together and tells no one who it was."""
    return f"deleted user #{user_id}"


@dataclass
class Plan:
    """What deleting an account does to each of the person's teams (``plan``)."""

    #: teams with other members, the person among their owners but not the last one, or a
    #: member only: the person just leaves
    left: list[Team] = field(default_factory=list)
    #: teams whose last owner the person is, with other members: one of them must own it next
    handed_over: list[tuple[Team, list[Any]]] = field(default_factory=list)
    #: teams with runs and no other member: kept under a neutral name, anonymous
    kept: list[Team] = field(default_factory=list)
    #: teams without runs and no other member: deleted
    deleted: list[Team] = field(default_factory=list)


def plan(user: User) -> Plan:
    """What ``delete_account`` would do to ``user``'s teams; the form asks, for each team in
    ``handed_over``, which of its other members owns it next."""
    found = Plan()
    for membership in Membership.objects.filter(user=user).select_related("team"):
        team = membership.team
        others = team.memberships.exclude(user=user)
        if not others.exists():
            (found.kept if team.submissions.exists() else found.deleted).append(team)
        elif (
            membership.role == Membership.Role.OWNER
            and not others.filter(role=Membership.Role.OWNER).exists()
        ):
            people = [m.user for m in others.select_related("user").order_by("joined", "pk")]
            found.handed_over.append((team, people))
        else:
            found.left.append(team)
    return found


def _former_name(team: Team) -> str:
    """A neutral name for a kept team, free under the team-name rules: from its random alias
    (which tells nothing of the team), numbered if that reads like another team's name."""
    base = names.normalise(f"Former team {team.alias}")
    name, n = base, 1
    while name_taken(name, exclude=team) is not None:
        n += 1
        name = names.normalise(f"{base} {n}")
    return name


def _keep(team: Team) -> None:
    name = _former_name(team)
    slug, n = slugify(name)[:40], 1
    while Team.objects.filter(slug=slug).exclude(pk=team.pk).exists():
        n += 1
        slug = f"{slugify(name)[:40]}-{n}"
    team.name, team.slug = name, slug
    team.anonymous, team.list_members = True, False
    # Nobody is left to invite anyone: the old code joins no one to it.
    team.invite_code = new_invite_code()
    team.save(update_fields=["name", "slug", "anonymous", "list_members", "invite_code"])


def _scrub(value: Any, username: str, email: str, neutral: str) -> Any:
    """``value`` (an audit entry's before/after) with the username, where a whole string is
    it, and the address, wherever a string contains it, replaced by ``neutral``."""
    if isinstance(value, dict):
        return {k: _scrub(v, username, email, neutral) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrub(v, username, email, neutral) for v in value]
    if isinstance(value, str):
        if value == username:
            return neutral
        if email:
            return re.sub(re.escape(email), neutral, value, flags=re.IGNORECASE)
    return value


#: the person's own rows, whose admin changes the audit log records (``admin_trail``: the
#: subject is the row's verbose name and its text, which starts with the username)
OWN_ROWS = (MailPreference, ApiToken, Membership)


def _own_row_subjects(username: str) -> list[str]:
    kinds: list[type[Model]] = [get_user_model(), *OWN_ROWS]
    return [
        f"{kind._meta.verbose_name} “{username}{end}" for kind in kinds for end in ("”", ":", " ")
    ]


def _erased(value: Any, neutral: str) -> Any:
    """``value`` with every string in it replaced by ``neutral`` (the keys kept: which fields
    changed stays on record, not what they held)."""
    if isinstance(value, dict):
        return {k: _erased(v, neutral) for k, v in value.items()}
    if isinstance(value, list):
        return [_erased(v, neutral) for v in value]
    return neutral if isinstance(value, str) else value


def _rewrite_audit(user: Any, neutral: str) -> None:
    username, email = user.get_username(), user.email
    own = _own_row_subjects(username)
    named = Q(actor=user) | Q(actor_name=username) | Q(subject=username)
    for prefix in own:
        named |= Q(subject__startswith=prefix)
    if email:
        named |= (
            Q(subject__icontains=email) | Q(before__icontains=email) | Q(after__icontains=email)
        )
    for entry in AuditEntry.objects.filter(named | Q(before__icontains=username) |
                                           Q(after__icontains=username)):  # fmt: skip
        if entry.actor_id == user.pk or entry.actor_name == username:
            entry.actor_name = neutral
        if any(entry.subject.startswith(prefix) for prefix in own):
            # an admin change of the person's own rows: old addresses, names, their values
            kind = entry.subject.split(" “", 1)[0]
            entry.subject = f"{kind} “{neutral}”"
            entry.before = _erased(entry.before, neutral)
            entry.after = _erased(entry.after, neutral)
        entry.subject = _scrub(entry.subject, username, email, neutral)
        entry.before = _scrub(entry.before, username, email, neutral)
        entry.after = _scrub(entry.after, username, email, neutral)
        entry.save(update_fields=["actor_name", "subject", "before", "after"])


def _rewrite_admin_history(user: Any, neutral: str) -> None:
    """The admin's history of the person's own rows names them in ``object_repr``; the entries
    they wrote themselves go with their row (``LogEntry.user`` cascades)."""
    kinds = ContentType.objects.get_for_models(
        get_user_model(), MailPreference, EmailAddress, SocialAccount, ApiToken, Membership
    )
    about = (
        Q(content_type=kinds[get_user_model()], object_id=str(user.pk))
        | Q(content_type=kinds[MailPreference], object_id=str(user.pk))
        | Q(
            content_type=kinds[EmailAddress],
            object_id__in=[str(pk) for pk in user.emailaddress_set.values_list("pk", flat=True)],
        )
        | Q(
            content_type=kinds[SocialAccount],
            object_id__in=[str(pk) for pk in user.socialaccount_set.values_list("pk", flat=True)],
        )
        | Q(
            content_type=kinds[ApiToken],
            object_id__in=[str(pk) for pk in user.api_tokens.values_list("pk", flat=True)],
        )
        | Q(
            content_type=kinds[Membership],
            object_id__in=[str(pk) for pk in user.memberships.values_list("pk", flat=True)],
        )
    )
    if user.email:
        about |= Q(object_repr__icontains=user.email) | Q(change_message__icontains=user.email)
    LogEntry.objects.filter(about).update(object_repr=neutral, change_message="")


def _end_sessions(user: Any) -> None:
    """Delete the person's sessions (stored in the database, keyed by no user column)."""
    mine = str(user.pk)
    gone = [
        session.pk
        for session in Session.objects.iterator()
        if str(session.get_decoded().get("_auth_user_id", "")) == mine
    ]
    Session.objects.filter(pk__in=gone).delete()


def _forget_log_ins(user: Any) -> None:
    """The failed log-in records under the person's username or addresses (one logs in with
    either), as typed and as counted."""
    typed = [user.get_username(), *user.emailaddress_set.values_list("email", flat=True)]
    if user.email:
        typed.append(user.email)
    usernames = {*typed, *(login_username(None, {"username": name}) for name in typed)}
    usernames.discard(None)
    for model in (AccessAttempt, AccessFailureLog, AccessLog):
        model.objects.filter(username__in=usernames).delete()


def refusal(user: User) -> str | None:
    """Why ``user`` may not delete their own account, or None. Staff accounts (the operators,
    and the organisers, whom the site makes staff) are not deleted by themselves: a challenge
    keeps at least one organiser, and the site an operator."""
    if getattr(user, "is_superuser", False) or getattr(user, "is_staff", False):
        return (
            "An organiser's or operator's account cannot be deleted from here. An organiser: "
            "have another organiser remove you from your challenges first (you stop being "
            "staff when you organise none). An operator: ask another operator to remove the "
            "account in the admin."
        )
    return None


def delete_account(user: User, *, heirs: dict[int, int] | None = None) -> Plan:
    """Delete ``user``'s account (module docstring). ``heirs``: for each team of which they
    are the last owner and that has other members, team id -> the user id of the member who
    owns it next. Raises ``AccountError`` when one is missing or not a member of that team,
    and for the site's operators (staff and superusers are removed by another operator)."""
    refused = refusal(user)
    if refused:
        raise AccountError(refused)
    heirs = heirs or {}
    neutral = neutral_name(user.pk)
    with transaction.atomic():
        for membership in Membership.objects.filter(user=user).select_related("team"):
            lock(membership.team)
        done = plan(user)
        for team, people in done.handed_over:
            heir = heirs.get(team.pk)
            if heir is None or heir not in {person.pk for person in people}:
                raise AccountError(
                    f"You are the last owner of {team.name}: choose which of its members "
                    "owns it after you."
                )
            Membership.objects.filter(team=team, user_id=heir).update(role=Membership.Role.OWNER)
        for team in done.kept:
            _keep(team)
        changed = set(
            Phase.objects.filter(challenge__participations__team__in=done.kept).values_list(
                "pk", flat=True
            )
        )
        for team in done.deleted:
            team.delete()
        _rewrite_audit(user, neutral)
        _rewrite_admin_history(user, neutral)
        _end_sessions(user)
        _forget_log_ins(user)
        user_id = user.pk
        user.delete()
        audit.record(
            None, "account-deleted", actor_name=neutral, subject=neutral,
            after={
                "user_id": user_id,
                "teams_left": len(done.left),
                "teams_handed_over": sorted(team.pk for team, _ in done.handed_over),
                "teams_kept": sorted(team.name for team in done.kept),
                "teams_deleted": len(done.deleted),
            },
        )  # fmt: skip
        # a kept team shows under its new name on every board it is on
        Phase.changed(*changed)
    return done
