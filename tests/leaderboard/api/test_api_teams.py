"""Teams and registration through the API: the team pages' services and refusals, in the API's
error shape."""

from __future__ import annotations

import pytest
from django.test import Client

from leaderboard.challenges.models import Challenge
from leaderboard.teams.models import Membership, Participation, Team
from tests.leaderboard.api.conftest import token_client
from tests.leaderboard.factories import (
    ChallengeFactory,
    ParticipationFactory,
    TeamFactory,
    UserFactory,
)
from tests.leaderboard.web import log_in

pytestmark = pytest.mark.django_db


def _error(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.content
    error = response.json()["error"]
    assert error["code"] == code
    return error


def test_a_team_is_created_with_its_creator_as_owner():
    user = UserFactory()
    response = token_client(user).post("/api/v1/teams/", {"name": "Slot Fillers"}, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    team = Team.objects.get(pk=body["id"])
    assert (body["name"], body["slug"], body["role"]) == ("Slot Fillers", "slot-fillers", "owner")
    assert body["participations"] == []
    assert list(team.memberships.values_list("user", "role")) == [(user.pk, "owner")]


def test_a_name_that_reads_like_another_teams_is_refused_as_on_the_page():
    TeamFactory(name="Slot Fillers")
    response = token_client(UserFactory()).post(
        "/api/v1/teams/", {"name": "SLOT  fillers"}, format="json"
    )
    error = _error(response, 400, "invalid")
    assert "reads the same" in error["details"]["name"][0]
    assert Team.objects.filter(name="SLOT  fillers").count() == 0


def test_an_unconfirmed_address_may_not_create_a_team():
    response = token_client(UserFactory(confirmed=False)).post(
        "/api/v1/teams/", {"name": "Unconfirmed"}, format="json"
    )
    error = _error(response, 403, "address_unconfirmed")
    assert "Confirm your e-mail address" in error["message"]
    assert not Team.objects.filter(name="Unconfirmed").exists()


def test_a_member_reads_the_invite_code_and_another_joins_with_it():
    team = TeamFactory()
    owner, newcomer = team.created_by, UserFactory()
    invite = token_client(owner).get(f"/api/v1/teams/{team.slug}/invite/")
    assert invite.status_code == 200
    body = invite.json()
    assert body["invite_code"] == team.invite_code
    assert body["invite_url"] == f"http://testserver/teams/join/{team.invite_code}/"
    joined = token_client(newcomer).post(
        f"/api/v1/teams/{team.slug}/join/", {"invite_code": body["invite_code"]}, format="json"
    )
    assert joined.status_code == 200, joined.content
    assert (joined.json()["slug"], joined.json()["role"]) == (team.slug, "member")
    assert team.memberships.filter(user=newcomer, role=Membership.Role.MEMBER).exists()


def test_another_teams_code_joins_nothing():
    team, other = TeamFactory(), TeamFactory()
    user = UserFactory()
    response = token_client(user).post(
        f"/api/v1/teams/{team.slug}/join/", {"invite_code": other.invite_code}, format="json"
    )
    error = _error(response, 409, "join_refused")
    assert error["message"] == "This invite code is not valid."
    assert not Membership.objects.filter(user=user).exists()


def test_a_full_team_refuses_a_join_and_says_why():
    challenge = ChallengeFactory(max_team_size=1)
    team = ParticipationFactory(challenge=challenge).team
    response = token_client(UserFactory()).post(
        f"/api/v1/teams/{team.slug}/join/", {"invite_code": team.invite_code}, format="json"
    )
    error = _error(response, 409, "join_refused")
    assert error["message"] == (
        f"{team.name} is full: a challenge it is registered for allows 1 member(s) per team."
    )
    assert team.memberships.count() == 1


def test_a_person_in_another_approved_team_may_not_join_an_approved_team_of_the_challenge():
    challenge = ChallengeFactory()
    mine = ParticipationFactory(challenge=challenge).team
    theirs = ParticipationFactory(challenge=challenge).team
    response = token_client(mine.created_by).post(
        f"/api/v1/teams/{theirs.slug}/join/", {"invite_code": theirs.invite_code}, format="json"
    )
    error = _error(response, 409, "join_refused")
    assert error["message"].startswith(f"You are already in an approved team of {challenge.title}")


@pytest.mark.parametrize("method", ["get", "post"])
def test_a_non_member_neither_reads_nor_renews_the_invite_code(method):
    team = TeamFactory()
    before = team.invite_code
    response = getattr(token_client(UserFactory()), method)(f"/api/v1/teams/{team.slug}/invite/")
    _error(response, 404, "not_found")
    team.refresh_from_db()
    assert team.invite_code == before


def test_only_an_owner_renews_the_invite_code():
    team = TeamFactory()
    member = UserFactory()
    Membership.objects.create(team=team, user=member)
    before = team.invite_code
    refused = token_client(member).post(f"/api/v1/teams/{team.slug}/invite/")
    assert _error(refused, 403, "permission_denied")["message"] == (
        "Only an owner of the team can change its invite code."
    )
    renewed = token_client(team.created_by).post(f"/api/v1/teams/{team.slug}/invite/")
    assert renewed.status_code == 200
    team.refresh_from_db()
    assert team.invite_code != before
    assert renewed.json()["invite_code"] == team.invite_code


def test_a_member_leaves_and_a_non_member_cannot():
    team = TeamFactory()
    member = UserFactory()
    Membership.objects.create(team=team, user=member)
    _error(token_client(UserFactory()).post(f"/api/v1/teams/{team.slug}/leave/"), 404, "not_found")
    left = token_client(member).post(f"/api/v1/teams/{team.slug}/leave/")
    assert left.status_code == 204
    assert not team.memberships.filter(user=member).exists()


def test_the_last_owner_may_not_leave_others_behind():
    team = TeamFactory()
    Membership.objects.create(team=team, user=UserFactory())
    response = token_client(team.created_by).post(f"/api/v1/teams/{team.slug}/leave/")
    error = _error(response, 409, "leave_refused")
    assert error["message"] == "Make another member an owner before leaving."


@pytest.mark.parametrize(
    ("registration", "status"),
    [(Challenge.Registration.AUTO, "approved"), (Challenge.Registration.APPROVAL, "pending")],
)
def test_registering_a_team_gives_the_challenges_state(registration, status, enqueued):
    challenge = ChallengeFactory(registration=registration)
    team = TeamFactory()
    client = token_client(team.created_by)
    response = client.post(
        f"/api/v1/challenges/{challenge.slug}/register/", {"team": team.slug}, format="json"
    )
    assert response.status_code == 201, response.content
    expected = {
        "team": {"id": team.pk, "slug": team.slug, "name": team.name},
        "challenge": challenge.slug,
        "status": status,
    }
    assert response.json() == expected
    assert Participation.objects.get(team=team, challenge=challenge).status == status
    state = client.get(f"/api/v1/challenges/{challenge.slug}/registrations/")
    assert state.json() == [expected]


def test_registering_twice_says_so():
    challenge = ChallengeFactory()
    team = ParticipationFactory(challenge=challenge).team
    response = token_client(team.created_by).post(
        f"/api/v1/challenges/{challenge.slug}/register/", {"team": team.slug}, format="json"
    )
    error = _error(response, 409, "already_registered")
    assert (
        error["message"] == f"{team.name} is already registered for {challenge.title} (approved)."
    )
    assert error["details"] == {"status": "approved"}
    assert Participation.objects.filter(team=team).count() == 1


def test_a_member_of_another_approved_team_is_refused_as_on_the_page():
    challenge = ChallengeFactory()
    approved = ParticipationFactory(challenge=challenge).team
    team = TeamFactory()
    Membership.objects.create(team=team, user=approved.created_by)
    response = token_client(team.created_by).post(
        f"/api/v1/challenges/{challenge.slug}/register/", {"team": team.slug}, format="json"
    )
    error = _error(response, 409, "registration_refused")
    username = approved.created_by.username
    assert error["message"] == (
        f"{username} already belongs to another approved team of {challenge.title}: a person "
        "may be in one approved team per challenge."
    )
    # the page refuses the same registration with the same message
    page = Client()
    log_in(page, team.created_by)
    answer = page.post(f"/challenges/{challenge.slug}/register/", {"team": team.pk}, follow=True)
    assert error["message"] in [str(m) for m in answer.context["messages"]]
    assert not Participation.objects.filter(team=team).exists()


def test_a_team_larger_than_the_challenge_allows_is_refused():
    challenge = ChallengeFactory(max_team_size=1)
    team = TeamFactory()
    Membership.objects.create(team=team, user=UserFactory())
    response = token_client(team.created_by).post(
        f"/api/v1/challenges/{challenge.slug}/register/", {"team": team.slug}, format="json"
    )
    error = _error(response, 409, "registration_refused")
    assert error["message"] == f"{challenge.title} allows at most 1 member(s) per team."


def test_only_a_member_registers_a_team():
    challenge = ChallengeFactory()
    team = TeamFactory()
    response = token_client(UserFactory()).post(
        f"/api/v1/challenges/{challenge.slug}/register/", {"team": team.slug}, format="json"
    )
    _error(response, 404, "not_found")
    assert not Participation.objects.filter(team=team).exists()


def test_the_registrations_list_every_team_of_the_user_with_its_state():
    challenge = ChallengeFactory()
    user = UserFactory()
    registered = ParticipationFactory(
        challenge=challenge, status=Participation.Status.PENDING, team__created_by=user
    ).team
    unregistered = TeamFactory(created_by=user)
    TeamFactory()  # someone else's
    response = token_client(user).get(f"/api/v1/challenges/{challenge.slug}/registrations/")
    got = {row["team"]["slug"]: row["status"] for row in response.json()}
    assert got == {registered.slug: "pending", unregistered.slug: "unregistered"}


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("post", "/api/v1/teams/"),
        ("post", "/api/v1/teams/some-team/join/"),
        ("post", "/api/v1/teams/some-team/leave/"),
        ("get", "/api/v1/teams/some-team/invite/"),
        ("post", "/api/v1/challenges/some-challenge/register/"),
        ("get", "/api/v1/challenges/some-challenge/registrations/"),
    ],
)
def test_every_team_endpoint_needs_a_token(method, path):
    _error(getattr(token_client(), method)(path), 401, "not_authenticated")
