"""Privacy by default: a team's page shows its members' names, and its registrations still
waiting or declined, to its members, the organisers of its challenges and superusers only,
until an owner chooses to list the members to everyone."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from leaderboard.teams.models import Membership, Participation
from tests.leaderboard.factories import (
    ChallengeFactory,
    ParticipationFactory,
    TeamFactory,
    UserFactory,
    with_second_factor,
)
from tests.leaderboard.web import log_in

pytestmark = pytest.mark.django_db


@pytest.fixture
def team():
    team = TeamFactory(name="Night Owls")
    Membership.objects.create(team=team, user=UserFactory(username="teammate"))
    approved = ChallengeFactory(title="Open Challenge")
    ParticipationFactory(team=team, challenge=approved, status=Participation.Status.APPROVED)
    pending = ChallengeFactory(title="Waiting Challenge")
    ParticipationFactory(team=team, challenge=pending, status=Participation.Status.PENDING)
    organiser = UserFactory(username="organiser-of-it")
    pending.organisers.add(with_second_factor(organiser))
    return team


def _page(team, user=None) -> str:
    client = Client()
    if user is not None:
        log_in(client, user)
    response = client.get(reverse("teams:detail", args=[team.slug]))
    assert response.status_code == 200
    return response.text


def _sees_members(page: str, team) -> bool:
    return team.created_by.username in page and "teammate" in page


def test_members_and_pending_registrations_are_shown_to_insiders_only(team):
    insiders = [
        team.created_by,
        get_user_model().objects.get(username="teammate"),
        get_user_model().objects.get(username="organiser-of-it"),
        with_second_factor(
            get_user_model().objects.create_superuser("root", "root@example.org", "pw")
        ),
    ]
    for user in insiders:
        page = _page(team, user)
        assert _sees_members(page, team), user
        assert "Waiting Challenge" in page
    for user in (None, UserFactory()):
        page = _page(team, user)
        assert not _sees_members(page, team)
        assert "2 members. The team shows its members' names to its members" in page
        assert "Open Challenge" in page and "Waiting Challenge" not in page


def test_an_owner_lists_the_members_to_everyone_and_back(team):
    owner, client = team.created_by, Client()
    log_in(client, owner)
    url = reverse("teams:list_members", args=[team.slug])
    # a plain member cannot choose
    member = Client()
    log_in(member, get_user_model().objects.get(username="teammate"))
    refused = member.post(url, {"listed": "1"}, follow=True)
    assert "Only an owner of the team can change who sees its members." in refused.text
    assert not _sees_members(_page(team), team)

    done = client.post(url, {"listed": "1"}, follow=True)
    assert "The team page now lists your members to everyone." in done.text
    assert _sees_members(_page(team), team)
    assert "Waiting Challenge" not in _page(team)  # the registrations stay the team's
    client.post(url, {"listed": "0"})
    assert not _sees_members(_page(team), team)
