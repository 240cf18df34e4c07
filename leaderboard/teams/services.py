"""Team workflows: create, join by invite code, leave, register for a challenge."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.db.models import QuerySet
from django.utils.text import slugify

from leaderboard.challenges.models import Challenge, Phase
from leaderboard.teams.models import Membership, Participation, Team, new_invite_code

#: Slugs that would shadow a team page URL (/teams/new/, /teams/join/).
RESERVED_SLUGS = frozenset({"new", "join"})


class TeamError(ValueError):
    """A team action that cannot be done; the message is safe to show the user."""


def create_team(*, name: str, user: AbstractBaseUser) -> Team:
    name = name.strip()
    if not name:
        raise TeamError("A team needs a name.")
    base = slugify(name)[:40] or "team"
    if base in RESERVED_SLUGS:
        base = f"{base}-team"
    slug, n = base, 1
    while Team.objects.filter(slug=slug).exists():
        n += 1
        slug = f"{base}-{n}"
    try:
        with transaction.atomic():
            team = Team.objects.create(name=name, slug=slug, created_by=user)
            Membership.objects.create(team=team, user=user, role=Membership.Role.OWNER)
    except IntegrityError:
        raise TeamError(f"A team called {name!r} already exists.") from None
    return team


def size_limit(team: Team) -> int | None:
    """The smallest ``max_team_size`` of the challenges ``team`` is registered for."""
    limits = [
        p.challenge.max_team_size
        for p in team.participations.select_related("challenge")
        if p.challenge.max_team_size is not None
    ]
    return min(limits) if limits else None


def join_team(*, invite_code: str, user: AbstractBaseUser) -> Team:
    team = Team.objects.filter(invite_code=invite_code.strip()).first()
    if team is None:
        raise TeamError("This invite code is not valid.")
    with transaction.atomic():
        # The team row serialises joins, so two people cannot both take the last place; the
        # rows of its challenges serialise the one-approved-team rule (``lock``).
        lock(team)  # first: a registration of this team waits for us from here on
        lock(team, *team.participations.values_list("challenge_id", flat=True))
        if team.memberships.filter(user=user).exists():
            return team
        for challenge in Challenge.objects.filter(
            participations__team=team, participations__status=Participation.Status.APPROVED
        ):
            if in_other_approved_team([user], team, challenge):
                raise TeamError(
                    f"You are already in an approved team of {challenge.title}: a person may "
                    f"be in one approved team per challenge, and {team.name} is approved there."
                )
        limit = size_limit(team)
        if limit is not None and team.memberships.count() >= limit:
            raise TeamError(
                f"{team.name} is full: a challenge it is registered for allows {limit} "
                "member(s) per team."
            )
        Membership.objects.create(team=team, user=user)
    return team


def set_anonymous(*, team: Team, user: AbstractBaseUser, anonymous: bool) -> None:
    """Owner action: hide (or show again) the team's name on every public board and export."""
    if not is_owner(team, user):
        raise TeamError("Only an owner of the team can change how it is shown.")
    with transaction.atomic():
        Team.objects.filter(pk=team.pk).update(anonymous=anonymous)
        # its name or label shows on the boards of every challenge it takes part in
        Phase.changed(
            *Phase.objects.filter(challenge__participations__team=team).values_list("pk", flat=True)
        )
    team.anonymous = anonymous


def leave_team(*, team: Team, user: AbstractBaseUser) -> None:
    with transaction.atomic():
        membership = Membership.objects.select_for_update().filter(team=team, user=user).first()
        if membership is None:
            raise TeamError("You are not a member of this team.")
        owners = team.memberships.filter(role=Membership.Role.OWNER)
        last_owner = membership.role == Membership.Role.OWNER and owners.count() == 1
        if last_owner and team.memberships.count() > 1:
            raise TeamError("Make another member an owner before leaving.")
        membership.delete()


def is_member(team: Team, user: AbstractBaseUser) -> bool:
    return bool(user.is_authenticated) and team.memberships.filter(user=user).exists()


def organises_team(user: AbstractBaseUser, team: Team) -> bool:
    """Whether ``user`` organises a challenge ``team`` is registered for."""
    return (
        bool(user.is_authenticated)
        and team.participations.filter(challenge__organisers=user).exists()
    )


def lock(team: Team, *challenge_ids: int) -> None:
    """Lock ``team``'s row, then these challenges' rows (always in this order, so two
    transactions never wait on each other): who is in which approved team of a challenge
    cannot change under the caller until it commits."""
    list(Team.objects.select_for_update().filter(pk=team.pk))
    list(Challenge.objects.select_for_update().filter(pk__in=challenge_ids).order_by("pk"))


def in_other_approved_team(users: Any, team: Team, challenge: Challenge) -> list[str]:
    """The user names among ``users`` who are members of an approved team of ``challenge``
    other than ``team``: a person may be in one approved team per challenge, so one person
    cannot multiply the quota."""
    names = (
        Membership.objects.filter(
            user__in=users,
            team__participations__challenge=challenge,
            team__participations__status=Participation.Status.APPROVED,
        )
        .exclude(team=team)
        .values_list("user__username", flat=True)
        .distinct()
    )
    return sorted(names)


def register(*, team: Team, challenge: Challenge) -> Participation:
    """Register ``team`` for ``challenge``: approved at once, or pending an organiser.

    Refused when one of its members is already in another approved team of the challenge."""
    status = (
        Participation.Status.APPROVED
        if challenge.registration == Challenge.Registration.AUTO
        else Participation.Status.PENDING
    )
    limit = challenge.max_team_size
    with transaction.atomic():
        lock(team, challenge.pk)
        if limit is not None and team.memberships.count() > limit:
            raise TeamError(f"{challenge.title} allows at most {limit} member(s) per team.")
        existing = Participation.objects.filter(team=team, challenge=challenge).first()
        if existing is not None:
            return existing
        taken = in_other_approved_team(team.members.all(), team, challenge)
        if taken:
            verb = "belongs" if len(taken) == 1 else "belong"
            raise TeamError(
                f"{', '.join(taken)} already {verb} to another approved team of "
                f"{challenge.title}: a person may be in one approved team per challenge."
            )
        return Participation.objects.create(team=team, challenge=challenge, status=status)


def set_participation_status(participation: Participation, status: str) -> None:
    """Approve or reject a registration. Approval is refused (``TeamError``, a message for
    the organiser that names no member) when a member is already in another approved team of
    the challenge."""
    with transaction.atomic():
        lock(participation.team, participation.challenge_id)
        if status == Participation.Status.APPROVED and in_other_approved_team(
            participation.team.members.all(), participation.team, participation.challenge
        ):
            raise TeamError(
                "A member of this team is already in another approved team of "
                f"{participation.challenge.title}: a person may be in one approved team per "
                "challenge. Reject one of the registrations, or ask the member to leave a team."
            )
        Participation.objects.filter(pk=participation.pk).update(status=status)


def teams_of(user: AbstractBaseUser) -> QuerySet[Team]:
    """The teams ``user`` belongs to (empty for an anonymous user)."""
    if not user.is_authenticated:
        return Team.objects.none()
    return Team.objects.filter(memberships__user=user).order_by("name")


def member_team(user: AbstractBaseUser, **lookup: object) -> Team | None:
    """One of ``user``'s teams matching ``lookup`` (slug=..., pk=...), scoped in the query."""
    return teams_of(user).filter(**lookup).first()


def is_owner(team: Team, user: AbstractBaseUser) -> bool:
    return (
        bool(user.is_authenticated)
        and team.memberships.filter(user=user, role=Membership.Role.OWNER).exists()
    )


def regenerate_invite_code(*, team: Team, user: AbstractBaseUser) -> str:
    """Owner action: a new invite code; the old code and link stop working at once."""
    if not is_owner(team, user):
        raise TeamError("Only an owner of the team can change its invite code.")
    code = new_invite_code()
    Team.objects.filter(pk=team.pk).update(invite_code=code)
    team.invite_code = code
    return code


def approved_teams(user: AbstractBaseUser, challenge: Challenge) -> QuerySet[Team]:
    """``user``'s teams that may submit to ``challenge``."""
    return teams_of(user).filter(
        participations__challenge=challenge,
        participations__status=Participation.Status.APPROVED,
    )


def registrations(user: AbstractBaseUser, challenge: Challenge) -> list[tuple[Team, str | None]]:
    """Each of ``user``'s teams with its participation status in ``challenge`` (None: not
    registered)."""
    status = dict(
        Participation.objects.filter(challenge=challenge, team__in=teams_of(user)).values_list(
            "team_id", "status"
        )
    )
    return [(team, status.get(team.pk)) for team in teams_of(user)]
