"""Team workflows: create, join by invite code, leave, register for a challenge."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.utils.text import slugify

from leaderboard.challenges.models import Challenge
from leaderboard.teams.models import Membership, Participation, Team


class TeamError(ValueError):
    """A team action that cannot be done; the message is safe to show the user."""


def create_team(*, name: str, user: AbstractBaseUser) -> Team:
    name = name.strip()
    if not name:
        raise TeamError("A team needs a name.")
    base = slugify(name)[:40] or "team"
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


def join_team(*, invite_code: str, user: AbstractBaseUser) -> Team:
    team = Team.objects.filter(invite_code=invite_code.strip()).first()
    if team is None:
        raise TeamError("This invite code is not valid.")
    Membership.objects.get_or_create(team=team, user=user)
    return team


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


def register(*, team: Team, challenge: Challenge) -> Participation:
    """Register ``team`` for ``challenge``: approved at once, or pending an organiser."""
    status = (
        Participation.Status.APPROVED
        if challenge.registration == Challenge.Registration.AUTO
        else Participation.Status.PENDING
    )
    participation, _ = Participation.objects.get_or_create(
        team=team, challenge=challenge, defaults={"status": status}
    )
    return participation


def set_participation_status(participation: Participation, status: str) -> None:
    Participation.objects.filter(pk=participation.pk).update(status=status)
