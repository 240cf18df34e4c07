"""The eight actors of the permission matrix and the objects their URLs need."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from django.contrib.auth import get_user_model
from django.core.files.base import ContentFile
from django.test import Client

from leaderboard.api.services import create_token
from leaderboard.challenges.models import PhaseFile, Reference
from leaderboard.operations.heartbeat import beat, scheduler_beat
from leaderboard.submissions import services
from leaderboard.teams.models import Membership
from tests.leaderboard.factories import (
    KEYS,
    ChallengeFactory,
    UserFactory,
    approved_team,
    phase_with_references,
    with_second_factor,
)
from tests.leaderboard.web import GOLD_BYTES, log_in, prediction_file

ACTORS = (
    "anonymous",
    "outsider",
    "other_team",
    "member",
    "owner",
    "other_organiser",
    "organiser",
    "superuser",
)


@dataclass
class World:
    phase: object
    team: object
    submission: object
    token: object
    users: dict
    phase_file: object = None

    def client(self, actor: str, **kwargs) -> Client:
        client = Client(**kwargs)
        if self.users.get(actor) is not None:
            log_in(client, self.users[actor])
        return client

    def kwargs(self) -> dict[str, dict[str, object]]:
        """URL kwargs per URL name ("*": the default for every name)."""
        phase, team, submission = self.phase, self.team, self.submission
        return {
            "*": {
                "slug": phase.challenge.slug,
                "phase": phase.slug,
                "pk": submission.pk,
                "code": team.invite_code,
                # allauth's links: a made-up address confirmation and password reset, and the
                # OpenID Connect provider's id
                "uidb36": "1",
                "key": "set-password",
                "provider_id": "oidc",
                "object_id": submission.pk,
                "app_label": "submissions",
                "id": submission.pk,
                "content_type_id": 1,
                "number": 1,
                "suffix": "tex",
            },
            "api:leaderboard": {"pk": phase.pk},
            "api:leaderboard-csv": {"pk": phase.pk},
            "api:table": {"pk": phase.pk},
            "api:history": {"pk": phase.pk},
            "api:pairwise": {"pk": phase.pk},
            "api:robustness": {"pk": phase.pk},
            "api:errors": {"pk": phase.pk},
            "api:submit": {"pk": phase.pk},
            **{
                f"api:organise-{name}": {"pk": phase.pk}
                for name in ("submissions", "results", "archive", "snapshots", "files", "audit")
            },
            "api:sample": {"pk": phase.pk, "condition": KEYS[0]},
            "api:not-found": {"rest": "nothing-here/"},
            "challenges:sample": {"condition": KEYS[0]},
            # the world's references have no public file (a dstc11 gold alone)
            "challenges:reference_file": {"condition": KEYS[0], "name": "training_values"},
            "challenges:phase_file": {"pk": self.phase_file.pk},
            "accounts:token-revoke": {"pk": self.token.pk},
            "accounts:token-renew": {"pk": self.token.pk},
            "challenges:review_reference": {
                "pk": Reference.objects.filter(condition__phase=phase).values_list("pk", flat=True)[
                    0
                ]
            },
            "teams:detail": {"slug": team.slug},
            "teams:leave": {"slug": team.slug},
            "teams:regenerate": {"slug": team.slug},
            "teams:anonymous": {"slug": team.slug},
            **{f"api:team-{name}": {"slug": team.slug} for name in ("join", "leave", "invite")},
        }


@pytest.fixture
def world(db, isolation, enqueued) -> World:
    phase = phase_with_references(GOLD_BYTES)
    team = approved_team(phase)
    owner = team.created_by
    member = UserFactory()
    Membership.objects.create(team=team, user=member, role=Membership.Role.MEMBER)
    other_team = approved_team(phase)
    organiser = UserFactory()
    phase.challenge.organisers.add(with_second_factor(organiser))
    other_organiser = UserFactory()
    ChallengeFactory().organisers.add(with_second_factor(other_organiser))
    superuser = with_second_factor(
        get_user_model().objects.create_superuser("root", "root@example.org", "pw")
    )
    submission = services.submit(
        team=team,
        phase=phase,
        user=owner,
        files={key: prediction_file() for key in KEYS},
        method_name="tracker",
        enqueue=False,
    )
    token, _ = create_token(owner, "matrix")
    beat("celery@matrix")  # a worker is running: /readyz is ready
    scheduler_beat()  # and so is the scheduler
    users = {
        "anonymous": None,
        "outsider": UserFactory(),
        "other_team": other_team.created_by,
        "member": member,
        "owner": owner,
        "other_organiser": other_organiser,
        "organiser": organiser,
        "superuser": superuser,
    }
    phase_file = PhaseFile(phase=phase, title="Inputs", original_name="inputs.txt", size=3)
    phase_file.file.save("inputs.txt", ContentFile(b"abc"), save=False)
    phase_file.save()
    return World(phase, team, submission, token, users, phase_file)
