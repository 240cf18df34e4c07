"""Team pages: create, join by code or link, leave, invite code visibility and regeneration."""

from __future__ import annotations

import pytest
from django.urls import reverse

from leaderboard.teams.models import Membership, Team, new_invite_code
from tests.leaderboard.factories import TeamFactory, UserFactory
from tests.leaderboard.web import log_in

pytestmark = pytest.mark.django_db


@pytest.fixture
def team():
    return TeamFactory()


@pytest.fixture
def owner(team):
    return team.created_by


@pytest.fixture
def teammate(team):
    user = UserFactory()
    Membership.objects.create(team=team, user=user)
    return user


@pytest.fixture
def outsider():
    return UserFactory()


def _detail(team):
    return reverse("teams:detail", args=[team.slug])


def test_creating_a_team_makes_the_user_its_owner(client, outsider):
    log_in(client, outsider)
    response = client.post(reverse("teams:create"), {"name": "Owls"}, follow=True)
    team = Team.objects.get(name="Owls")
    assert response.redirect_chain[-1][0] == _detail(team)
    assert Membership.objects.get(team=team).role == "owner"
    assert "Owls" in client.get(reverse("teams:mine")).text


def test_a_duplicate_team_name_is_reported_on_the_form(client, team, outsider):
    log_in(client, outsider)
    response = client.post(reverse("teams:create"), {"name": team.name})
    assert response.status_code == 200
    assert "already exists" in response.text


def test_a_team_named_like_a_page_does_not_shadow_it(client, outsider):
    log_in(client, outsider)
    client.post(reverse("teams:create"), {"name": "New"})
    assert Team.objects.get(name="New").slug != "new"
    assert client.get(reverse("teams:create")).status_code == 200


def test_my_teams_has_an_empty_state(client, outsider):
    log_in(client, outsider)
    assert "You are not in a team yet" in client.get(reverse("teams:mine")).text


def test_invite_codes_are_16_letters_and_digits_so_none_reads_as_an_option():
    # token_urlsafe's codes began with "-" one time in 64: the command line took one for an
    # option. Of 2,000 of those, about 800 would hold a "-" or "_" (1 - (62/64)**16 = 0.40).
    codes = [new_invite_code() for _ in range(2000)]
    assert all(len(code) == 16 and code.isascii() and code.isalnum() for code in codes)
    assert len(set(codes)) == len(codes)


def test_the_invite_link_and_code_are_shown_to_members_only(client, team, teammate, outsider):
    log_in(client, teammate)
    page = client.get(_detail(team)).text
    assert team.invite_code in page
    assert reverse("teams:join_link", args=[team.invite_code]) in page
    assert "Leave" in page
    log_in(client, outsider)
    page = client.get(_detail(team)).text
    assert team.invite_code not in page
    assert teammate.username not in page  # members are the team's business by default
    client.logout()
    assert team.invite_code not in client.get(_detail(team)).text


def test_joining_with_the_code_form(client, team, outsider):
    log_in(client, outsider)
    response = client.post(reverse("teams:join"), {"code": team.invite_code})
    assert response.status_code == 302
    assert team.memberships.filter(user=outsider).exists()


def test_a_wrong_code_is_reported_on_the_form(client, team, outsider):
    log_in(client, outsider)
    response = client.post(reverse("teams:join"), {"code": "nope"})
    assert "This invite code is not valid." in response.text
    assert not team.memberships.filter(user=outsider).exists()


def test_the_invite_link_asks_for_confirmation_then_joins_on_post(client, team, outsider):
    url = reverse("teams:join_link", args=[team.invite_code])
    response = client.get(url)
    assert response.status_code == 302
    assert response["Location"] == f"{reverse('account_login')}?next={url}"
    log_in(client, outsider)
    page = client.get(url).text
    assert f"Join {team.name}" in page and "csrfmiddlewaretoken" in page
    assert not team.memberships.filter(user=outsider).exists()
    client.post(url)
    assert team.memberships.filter(user=outsider).exists()


def test_an_unknown_invite_link_is_404(client, outsider):
    log_in(client, outsider)
    assert client.get(reverse("teams:join_link", args=["nope"])).status_code == 404


def test_a_member_can_leave(client, team, teammate):
    log_in(client, teammate)
    response = client.post(reverse("teams:leave", args=[team.slug]))
    assert response["Location"] == reverse("teams:mine")
    assert not team.memberships.filter(user=teammate).exists()


def test_the_last_owner_cannot_leave_a_team_with_members(client, team, owner, teammate):
    log_in(client, owner)
    response = client.post(reverse("teams:leave", args=[team.slug]), follow=True)
    assert "Make another member an owner before leaving." in response.text
    assert team.memberships.filter(user=owner).exists()


def test_leaving_a_team_you_are_not_in_is_404(client, team, outsider):
    log_in(client, outsider)
    assert client.post(reverse("teams:leave", args=[team.slug])).status_code == 404


def test_the_owner_can_regenerate_the_invite_code_and_the_old_link_stops_working(
    client, team, owner, outsider
):
    old = team.invite_code
    log_in(client, owner)
    client.post(reverse("teams:regenerate", args=[team.slug]))
    team.refresh_from_db()
    assert team.invite_code != old
    log_in(client, outsider)
    assert client.get(reverse("teams:join_link", args=[old])).status_code == 404


def test_a_plain_member_cannot_regenerate_the_code(client, team, teammate):
    old = team.invite_code
    log_in(client, teammate)
    response = client.post(reverse("teams:regenerate", args=[team.slug]), follow=True)
    assert "Only an owner of the team can change its invite code." in response.text
    team.refresh_from_db()
    assert team.invite_code == old


def test_team_pages_that_change_things_require_log_in(client, team):
    for name, args in [("mine", []), ("create", []), ("join", [])]:
        response = client.get(reverse(f"teams:{name}", args=args))
        assert response["Location"].startswith(reverse("account_login"))
    response = client.post(reverse("teams:leave", args=[team.slug]))
    assert response["Location"].startswith(reverse("account_login"))
