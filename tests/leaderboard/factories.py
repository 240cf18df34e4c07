"""factory_boy factories and helpers for the leaderboard tests."""

from __future__ import annotations

import datetime as dt
import json

import factory
import pyotp
from allauth.mfa.models import Authenticator
from allauth.mfa.totp.internal.auth import TOTP, generate_totp_secret
from allauth.mfa.utils import decrypt
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from leaderboard.accounts.services import confirm
from leaderboard.challenges.models import Challenge, Condition, Phase
from leaderboard.challenges.services import add_reference
from leaderboard.teams.models import Membership, Participation, Team

KEYS = ("tts-verbatim", "human-verbatim", "human-paraphrased")


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    email = factory.LazyAttribute(lambda u: f"{u.username}@example.org")
    password = factory.django.Password("pw")

    @factory.post_generation
    def confirmed(self, create, extracted, **kwargs):
        """Most tests' users take part: their address is confirmed, as after the mail's link.
        ``UserFactory(confirmed=False)``: an account that has not opened its link yet."""
        if create and self.email and extracted is not False:
            confirm(self)


class ChallengeFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Challenge

    slug = factory.Sequence(lambda n: f"challenge-{n}")
    title = factory.Sequence(lambda n: f"Challenge {n}")
    # Fewer bootstrap samples keep synthetic-data tests quick; the fixture test uses defaults.
    scorer_options = factory.LazyFunction(
        lambda: {"profile": "default", "missing": "reject", "n_boot": 200, "seed": 12345}
    )


class PhaseFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Phase

    challenge = factory.SubFactory(ChallengeFactory)
    name = "Test"
    slug = factory.Sequence(lambda n: f"phase-{n}")
    opens_at = factory.LazyFunction(lambda: timezone.now() - dt.timedelta(days=1))
    closes_at = factory.LazyFunction(lambda: timezone.now() + dt.timedelta(days=30))


class ConditionFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Condition

    phase = factory.SubFactory(PhaseFactory)
    key = factory.Sequence(lambda n: f"condition-{n}")
    label = factory.LazyAttribute(lambda c: c.key)


class TeamFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Team
        skip_postgeneration_save = True

    name = factory.Sequence(lambda n: f"Team {n}")
    slug = factory.Sequence(lambda n: f"team-{n}")
    created_by = factory.SubFactory(UserFactory)

    @factory.post_generation
    def owner(self, create, extracted, **kwargs):
        if create:
            Membership.objects.create(team=self, user=self.created_by, role=Membership.Role.OWNER)


class ParticipationFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Participation

    team = factory.SubFactory(TeamFactory)
    challenge = factory.SubFactory(ChallengeFactory)
    status = Participation.Status.APPROVED


def phase_with_references(gold: bytes, keys=KEYS, **phase_kwargs) -> Phase:
    """A phase whose conditions all use ``gold`` as their active reference."""
    phase = PhaseFactory(**phase_kwargs)
    for order, key in enumerate(keys):
        condition = ConditionFactory(phase=phase, key=key, label=key.title(), order=order)
        add_reference(condition, gold, "gold.json")
    return phase


def approved_team(phase: Phase) -> Team:
    team = TeamFactory()
    ParticipationFactory(team=team, challenge=phase.challenge)
    return team


def upload(data: bytes | dict, name: str = "prediction.json") -> SimpleUploadedFile:
    raw = data if isinstance(data, bytes) else json.dumps(data).encode()
    return SimpleUploadedFile(name, raw, content_type="application/json")


def uploads(data: bytes | dict, keys=KEYS) -> dict[str, SimpleUploadedFile]:
    return {key: upload(data, f"{key}.json") for key in keys}


def with_second_factor(user):
    """``user`` with an authenticator app set up (allauth.mfa's own TOTP), as organisers and
    staff must have before they reach organiser pages, the admin or the organiser API; returns
    ``user``. ``totp_code(user)`` is the code the app shows now."""
    if not Authenticator.objects.filter(user=user, type=Authenticator.Type.TOTP).exists():
        TOTP.activate(user, generate_totp_secret())
    return user


def totp_secret(user) -> str:
    """The secret of ``user``'s authenticator app, as the app keeps it."""
    found = Authenticator.objects.get(user=user, type=Authenticator.Type.TOTP)
    return decrypt(found.data["secret"])


def totp_code(user) -> str:
    """The code ``user``'s authenticator app shows now."""
    return pyotp.TOTP(totp_secret(user)).now()
