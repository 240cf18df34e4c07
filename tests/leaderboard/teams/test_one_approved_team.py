"""A person is in at most one approved team per challenge: registering, approving and joining
are refused with a message saying so, and two concurrent registrations cannot both pass."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from leaderboard.challenges.models import Challenge
from leaderboard.teams.models import Participation
from leaderboard.teams.services import (
    TeamError,
    create_team,
    join_team,
    register,
    set_participation_status,
)
from tests.leaderboard.factories import ChallengeFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_registering_a_second_team_with_the_same_person_is_refused():
    challenge = ChallengeFactory(title="DSTC Test")
    alice = UserFactory(username="alice")
    first = create_team(name="First", user=alice)
    assert register(team=first, challenge=challenge).status == Participation.Status.APPROVED
    second = create_team(name="Second", user=alice)
    with pytest.raises(TeamError) as error:
        register(team=second, challenge=challenge)
    assert str(error.value) == (
        "alice already belongs to another approved team of DSTC Test: a person may be in "
        "one approved team per challenge."
    )
    assert not Participation.objects.filter(team=second).exists()
    # another challenge is another matter
    assert register(team=second, challenge=ChallengeFactory()).status == "approved"


def test_joining_a_team_approved_where_one_already_is_is_refused():
    challenge = ChallengeFactory(title="DSTC Test")
    alice, bob = UserFactory(), UserFactory()
    register(team=create_team(name="Alice's", user=alice), challenge=challenge)
    bobs = create_team(name="Bob's", user=bob)
    register(team=bobs, challenge=challenge)
    with pytest.raises(TeamError, match="one approved team per challenge"):
        join_team(invite_code=bobs.invite_code, user=alice)
    assert not bobs.memberships.filter(user=alice).exists()


def test_an_organiser_cannot_approve_a_team_whose_member_is_approved_elsewhere():
    challenge = ChallengeFactory(title="DSTC Test", registration=Challenge.Registration.APPROVAL)
    alice, bob = UserFactory(username="alice"), UserFactory()
    first = create_team(name="First", user=alice)
    second = create_team(name="Second", user=bob)
    p1 = register(team=first, challenge=challenge)
    p2 = register(team=second, challenge=challenge)
    join_team(invite_code=second.invite_code, user=alice)  # both pending: allowed
    set_participation_status(p1, Participation.Status.APPROVED)
    with pytest.raises(TeamError) as error:
        set_participation_status(p2, Participation.Status.APPROVED)
    assert "already in another approved team of DSTC Test" in str(error.value)
    assert "alice" not in str(error.value)  # the organiser learns no member's name
    p2.refresh_from_db()
    assert p2.status == Participation.Status.PENDING
    set_participation_status(p2, Participation.Status.REJECTED)  # rejecting is always fine


@pytest.mark.django_db(transaction=True)
def test_concurrent_registrations_of_two_teams_of_one_person_approve_one(postgres):
    challenge = ChallengeFactory()
    alice = UserFactory()
    teams = [create_team(name=f"Team {n}", user=alice) for n in range(6)]
    start = threading.Barrier(len(teams))
    outcomes: list[str] = []
    lock = threading.Lock()

    def go(team) -> None:
        try:
            start.wait()
            try:
                register(team=team, challenge=challenge)
                outcome = "approved"
            except TeamError:
                outcome = "refused"
            except Exception as exc:
                outcome = f"error: {exc!r}"
            with lock:
                outcomes.append(outcome)
        finally:
            connection.close()

    threads = [threading.Thread(target=go, args=(team,)) for team in teams]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["approved"] + ["refused"] * 5
    assert Participation.objects.filter(challenge=challenge, status="approved").count() == 1
