"""Team workflows: create, rename, join by invite code, leave, register for a challenge; who
may take part (a confirmed e-mail address)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser, User
from django.db import IntegrityError, transaction
from django.db.models import F, QuerySet
from django.utils.text import slugify

from leaderboard.background import MAIL_DECISION, MAIL_PENDING
from leaderboard.celery import send
from leaderboard.challenges import audit
from leaderboard.challenges.models import Challenge, Phase
from leaderboard.teams import names
from leaderboard.teams.models import Membership, Participation, Team, new_invite_code

#: Slugs that would shadow a team page URL (/teams/new/, /teams/join/).
RESERVED_SLUGS = frozenset({"new", "join"})


class TeamError(ValueError):
    """A team action that cannot be done; the message is safe to show the user."""


#: What an account with an unconfirmed address is told when it tries to take part.
UNCONFIRMED = (
    "Confirm your e-mail address first: open the link we sent you, or have it sent again from "
    "your profile page (/accounts/profile/). Until then you can look around, join a team, and "
    "make API tokens, but not create or register a team, nor submit."
)


def address_confirmed(user: User | AnonymousUser) -> bool:
    """Whether ``user`` may create and register teams and submit: their current e-mail address
    is confirmed (superusers, the site's operators, always may).

    The confirmation is django-allauth's verified address row, read through the user's relation
    to it (as the submission mail reads the mail preference), so this layer needs no import of
    the accounts apps. An address an identity provider said it verified counts the same."""
    return bool(getattr(user, "is_superuser", False)) or address_verified(user)


def address_verified(user: User | AnonymousUser) -> bool:
    """Whether ``user``'s current address is one they confirmed (django-allauth's verified
    address row; the profile says so), whoever they are."""
    if not user.is_authenticated:
        return False
    return (
        get_user_model()
        .objects.filter(
            pk=user.pk, emailaddress__verified=True, emailaddress__email__iexact=F("email")
        )
        .exclude(email="")
        .exists()
    )


def require_confirmed(user: User) -> None:
    if not address_confirmed(user):
        raise TeamError(UNCONFIRMED)


def _name(raw: str, *, exclude: Team | None = None) -> str:
    try:
        return names.normalise(raw)
    except names.InvalidName as exc:
        message = str(exc)
        alike = Team.objects.filter(name_key__in=names.shown_keys(raw))
        if exclude is not None:
            alike = alike.exclude(pk=exclude.pk)
        other = alike.order_by("pk").first()
        if other is not None:
            message += f" The name also reads the same as that of {_shown(other)}."
        raise TeamError(message) from None


def _shown(team: Team) -> str:
    return f"the team “{team.name}”" if not team.anonymous else "another team"


def _lookalike(name: str, other: Team) -> TeamError:
    if other.name == name:
        return TeamError(f"A team called “{name}” already exists; choose another name.")
    return TeamError(
        f"“{name}” reads the same as the name of {_shown(other)}: names are compared "
        "without case, spacing, full-width forms, or letters of other scripts that look the "
        "same (Unicode's confusable characters). Choose a name that reads differently."
    )


def name_taken(name: str, *, exclude: Team | None = None) -> Team | None:
    """The team whose name reads the same as ``name`` (the same ``names.key``), if any."""
    found = Team.objects.filter(name_key=names.key(name))
    if exclude is not None:
        found = found.exclude(pk=exclude.pk)
    return found.order_by("pk").first()


def create_team(*, name: str, user: User) -> Team:
    require_confirmed(user)
    name = _name(name)
    other = name_taken(name)
    if other is not None:
        raise _lookalike(name, other)
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


def join_team(*, invite_code: str, user: User, slug: str | None = None) -> Team:
    """Join the team of ``invite_code``; with ``slug`` (the API names the team it joins) only
    that team's code is valid, so a code of another team joins nothing."""
    teams = Team.objects.filter(invite_code=invite_code.strip())
    if slug is not None:
        teams = teams.filter(slug=slug)
    team = teams.first()
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


def rename_team(*, team: Team, user: User, name: str) -> Team:
    """Owner action: a new name (the page's address stays). Refused when it reads the same as
    another team's; every board the team is on shows the new name."""
    if not is_owner(team, user):
        raise TeamError("Only an owner of the team can rename it.")
    name = _name(name, exclude=team)
    if name == team.name:
        return team
    with transaction.atomic():
        lock(team, *team.participations.values_list("challenge_id", flat=True))
        other = name_taken(name, exclude=team)
        if other is not None:
            raise _lookalike(name, other)
        team.name = name
        try:
            with transaction.atomic():
                team.save(update_fields=["name"])
        except IntegrityError:
            raise TeamError(f"A team called “{name}” already exists.") from None
        Phase.changed(
            *Phase.objects.filter(challenge__participations__team=team).values_list("pk", flat=True)
        )
    return team


def set_list_members(*, team: Team, user: User, listed: bool) -> None:
    """Owner action: list the members' names on the team page to everyone (or only to the
    members and the organisers of its challenges, the default)."""
    if not is_owner(team, user):
        raise TeamError("Only an owner of the team can change who sees its members.")
    Team.objects.filter(pk=team.pk).update(list_members=listed)
    team.list_members = listed


def insider(team: Team, user: User | AnonymousUser) -> bool:
    """Whether ``user`` sees all of ``team``'s page (its members' names, every registration):
    its members, the organisers of its challenges and superusers do."""
    return (
        is_member(team, user)
        or bool(getattr(user, "is_superuser", False))
        or organises_team(user, team)
    )


def members_visible(team: Team, user: User | AnonymousUser) -> bool:
    """Whether ``user`` sees the names of ``team``'s members: insiders, and everyone when the
    team lists them."""
    return team.list_members or insider(team, user)


def set_anonymous(*, team: Team, user: User, anonymous: bool) -> None:
    """Owner action: hide (or show again) the team's name on every public board and export."""
    if not is_owner(team, user):
        raise TeamError("Only an owner of the team can change how it is shown.")
    with transaction.atomic():
        before = Team.objects.get(pk=team.pk).anonymous
        Team.objects.filter(pk=team.pk).update(anonymous=anonymous)
        if before != anonymous:
            for challenge_id in team.participations.values_list("challenge_id", flat=True):
                audit.record(
                    challenge_id, "anonymity", actor=user, subject=team.name,
                    before={"anonymous": before}, after={"anonymous": anonymous},
                )  # fmt: skip
        # its name or label shows on the boards of every challenge it takes part in
        Phase.changed(
            *Phase.objects.filter(challenge__participations__team=team).values_list("pk", flat=True)
        )
    team.anonymous = anonymous


def leave_team(*, team: Team, user: User) -> None:
    with transaction.atomic():
        membership = Membership.objects.select_for_update().filter(team=team, user=user).first()
        if membership is None:
            raise TeamError("You are not a member of this team.")
        owners = team.memberships.filter(role=Membership.Role.OWNER)
        last_owner = membership.role == Membership.Role.OWNER and owners.count() == 1
        if last_owner and team.memberships.count() > 1:
            raise TeamError("Make another member an owner before leaving.")
        membership.delete()


def is_member(team: Team, user: User | AnonymousUser) -> bool:
    return user.is_authenticated and team.memberships.filter(user=user).exists()


def organises_team(user: User | AnonymousUser, team: Team) -> bool:
    """Whether ``user`` organises a challenge ``team`` is registered for."""
    return user.is_authenticated and team.participations.filter(challenge__organisers=user).exists()


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


def register(*, team: Team, challenge: Challenge, user: User | None = None) -> Participation:
    """Register ``team`` for ``challenge``: approved at once, or pending an organiser.

    Refused when the user asking (``user``; None: the site itself, as the demo) has no
    confirmed address, when the team's name reads the same as that of a team registered for
    the challenge, and when one of its members is already in another approved team of it."""
    if user is not None:
        require_confirmed(user)
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
        # Under the challenge's lock: two teams that read alike cannot both get in.
        alike = (
            Team.objects.filter(
                name_key=names.key(team.name),
                participations__challenge=challenge,
                participations__status__in=[Participation.Status.PENDING,
                                            Participation.Status.APPROVED],
            )
            .exclude(pk=team.pk)
            .order_by("pk")
            .first()
        )  # fmt: skip
        if alike is not None:
            raise TeamError(
                f"{team.name} cannot be registered for {challenge.title}: its name reads the "
                f"same as that of {_shown(alike)} registered for it, and the board would show "
                "two entries alike. Rename the team on its page first."
            )
        taken = in_other_approved_team(team.members.all(), team, challenge)
        if taken:
            verb = "belongs" if len(taken) == 1 else "belong"
            raise TeamError(
                f"{', '.join(taken)} already {verb} to another approved team of "
                f"{challenge.title}: a person may be in one approved team per challenge."
            )
        created = Participation.objects.create(team=team, challenge=challenge, status=status)
        if status == Participation.Status.PENDING:
            send(MAIL_PENDING, created.pk)
        return created


def set_participation_status(
    participation: Participation, status: str, *, actor: Any = None
) -> None:
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
        before = Participation.objects.get(pk=participation.pk).status
        Participation.objects.filter(pk=participation.pk).update(status=status)
        if status != before and status != Participation.Status.PENDING:
            send(MAIL_DECISION, participation.pk)
        audit.record(
            participation.challenge_id, "registration", actor=actor,
            subject=participation.team.name, before={"status": before}, after={"status": status},
        )  # fmt: skip


def teams_of(user: User | AnonymousUser) -> QuerySet[Team]:
    """The teams ``user`` belongs to (empty for an anonymous user)."""
    if not user.is_authenticated:
        return Team.objects.none()
    return Team.objects.filter(memberships__user=user).order_by("name")


def member_team(user: User | AnonymousUser, **lookup: object) -> Team | None:
    """One of ``user``'s teams matching ``lookup`` (slug=..., pk=...), scoped in the query."""
    return teams_of(user).filter(**lookup).first()


def is_owner(team: Team, user: User | AnonymousUser) -> bool:
    return (
        user.is_authenticated
        and team.memberships.filter(user=user, role=Membership.Role.OWNER).exists()
    )


def regenerate_invite_code(*, team: Team, user: User) -> str:
    """Owner action: a new invite code; the old code and link stop working at once."""
    if not is_owner(team, user):
        raise TeamError("Only an owner of the team can change its invite code.")
    code = new_invite_code()
    Team.objects.filter(pk=team.pk).update(invite_code=code)
    team.invite_code = code
    return code


def approved_teams(user: User | AnonymousUser, challenge: Challenge) -> QuerySet[Team]:
    """``user``'s teams that may submit to ``challenge``."""
    return teams_of(user).filter(
        participations__challenge=challenge,
        participations__status=Participation.Status.APPROVED,
    )


def registrations(
    user: User | AnonymousUser, challenge: Challenge
) -> list[tuple[Team, str | None]]:
    """Each of ``user``'s teams with its participation status in ``challenge`` (None: not
    registered)."""
    status = dict(
        Participation.objects.filter(challenge=challenge, team__in=teams_of(user)).values_list(
            "team_id", "status"
        )
    )
    return [(team, status.get(team.pk)) for team in teams_of(user)]
