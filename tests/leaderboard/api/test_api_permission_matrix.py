"""Every endpoint refuses what the pages refuse, for an anonymous visitor, an outsider (no
team), a member of another team in the challenge, a member, and the challenge's organiser."""

from __future__ import annotations

import pytest
from django.test import Client

from leaderboard.challenges.models import Phase
from tests.leaderboard.api.conftest import token_client
from tests.leaderboard.factories import KEYS
from tests.leaderboard.web import log_in, prediction_file, scored_submission

pytestmark = pytest.mark.django_db

ACTORS = ("anonymous", "outsider", "other", "member", "organiser")


def _user(actors, name):
    return None if name == "anonymous" else getattr(actors, name)


def _call(actors, name, method, url, data=None):
    client = token_client(_user(actors, name))
    if method == "post":
        return client.post(url, data or {}, format="multipart")
    return client.get(url)


def _page(actors, name, url):
    client = Client()
    user = _user(actors, name)
    if user is not None:
        log_in(client, user)
    return client.get(url)


@pytest.mark.parametrize("actor", ACTORS)
def test_everyone_may_read_challenges_and_a_public_leaderboard(actors, actor):
    slug = actors.phase.challenge.slug
    assert _call(actors, actor, "get", "/api/v1/challenges/").status_code == 200
    assert _call(actors, actor, "get", f"/api/v1/challenges/{slug}/").status_code == 200
    board = _call(actors, actor, "get", f"/api/v1/phases/{actors.phase.pk}/leaderboard/")
    assert board.status_code == 200
    board = _call(actors, actor, "get", f"/api/v1/phases/{actors.phase.pk}/leaderboard.csv")
    assert board.status_code == 200


@pytest.mark.parametrize(
    ("actor", "expected"),
    [("anonymous", 403), ("outsider", 403), ("other", 403), ("member", 403), ("organiser", 200)],
)
def test_hidden_results_are_shown_to_the_organisers_only_as_on_the_page(actors, actor, expected):
    Phase.objects.filter(pk=actors.phase.pk).update(results_visibility=Phase.Visibility.HIDDEN)
    phase = actors.phase
    response = _call(actors, actor, "get", f"/api/v1/phases/{phase.pk}/leaderboard/")
    assert response.status_code == expected
    if expected == 403:
        assert response.json()["error"]["code"] == "results_hidden"
    for csv_path in ("leaderboard/?format=csv", "leaderboard.csv"):
        csv = _call(actors, actor, "get", f"/api/v1/phases/{phase.pk}/{csv_path}")
        assert csv.status_code == expected
    page = _page(actors, actor, f"/challenges/{phase.challenge.slug}/{phase.slug}/leaderboard/")
    assert page.context["visible"] is (expected == 200)


@pytest.mark.parametrize(
    ("actor", "expected"),
    [("anonymous", 401), ("outsider", 403), ("other", 201), ("member", 201), ("organiser", 403)],
)
def test_only_members_of_approved_teams_may_submit(actors, actor, expected, enqueued):
    data = {"method_name": "m", **{key: prediction_file() for key in KEYS}}
    url = f"/api/v1/phases/{actors.phase.pk}/submissions/"
    response = _call(actors, actor, "post", url, data)
    assert response.status_code == expected, response.content
    if expected == 403:
        assert response.json()["error"]["code"] == "not_eligible"


@pytest.mark.parametrize(
    ("actor", "api_status", "page_status"),
    [
        ("anonymous", 401, 302),
        ("outsider", 404, 404),
        ("other", 404, 404),
        ("member", 200, 200),
        ("organiser", 200, 200),
    ],
)
def test_a_submission_is_visible_to_its_team_and_the_organisers_only(
    actors, actor, api_status, page_status
):
    submission = scored_submission(actors.team, actors.phase)
    response = _call(actors, actor, "get", f"/api/v1/submissions/{submission.pk}/")
    assert response.status_code == api_status
    if api_status == 200:
        assert set(response.json()["results"]) == set(KEYS)
    assert _page(actors, actor, f"/submissions/{submission.pk}/").status_code == page_status


@pytest.mark.parametrize(("actor", "sees_scores"), [("member", False), ("organiser", True)])
def test_a_hidden_phase_hides_the_scores_of_a_submission_but_not_its_status(
    actors, actor, sees_scores
):
    submission = scored_submission(actors.team, actors.phase)
    Phase.objects.filter(pk=actors.phase.pk).update(results_visibility=Phase.Visibility.HIDDEN)
    body = _call(actors, actor, "get", f"/api/v1/submissions/{submission.pk}/").json()
    assert body["status"] == "scored"
    assert body["results_visible"] is sees_scores
    assert bool(body["results"]) is sees_scores


@pytest.mark.parametrize(
    ("actor", "expected"),
    [("anonymous", 401), ("outsider", 404), ("other", 404), ("member", 200), ("organiser", 404)],
)
def test_only_a_member_of_the_team_may_cancel(actors, actor, expected):
    submission = scored_submission(actors.team, actors.phase, score=False)
    response = _call(actors, actor, "post", f"/api/v1/submissions/{submission.pk}/cancel/")
    assert response.status_code == expected
    submission.refresh_from_db()
    assert submission.status == ("cancelled" if expected == 200 else "queued")


@pytest.mark.parametrize(
    ("actor", "expected"),
    [("anonymous", 401), ("outsider", 200), ("other", 200), ("member", 200), ("organiser", 200)],
)
def test_the_submission_list_holds_the_users_own_teams_submissions_only(actors, actor, expected):
    submission = scored_submission(actors.team, actors.phase)
    response = _call(actors, actor, "get", "/api/v1/submissions/")
    assert response.status_code == expected
    if expected == 200:
        ids = [row["id"] for row in response.json()["results"]]
        assert ids == ([submission.pk] if actor == "member" else [])


@pytest.mark.parametrize(
    ("actor", "teams"),
    [("anonymous", None), ("outsider", []), ("other", ["other"]), ("member", ["member"])],
)
def test_my_teams_lists_the_users_teams_only(actors, actor, teams):
    response = _call(actors, actor, "get", "/api/v1/teams/mine/")
    if teams is None:
        assert response.status_code == 401
        return
    expected = {"other": actors.other_team.slug, "member": actors.team.slug}
    assert [t["slug"] for t in response.json()["results"]] == [expected[t] for t in teams]


@pytest.mark.parametrize(
    ("actor", "expected"),
    [("anonymous", 401), ("outsider", 404), ("other", 404), ("member", 200), ("organiser", 404)],
)
def test_a_teams_invite_code_is_its_members_only_as_on_its_page(actors, actor, expected):
    response = _call(actors, actor, "get", f"/api/v1/teams/{actors.team.slug}/invite/")
    assert response.status_code == expected
    if expected == 200:
        assert response.json()["invite_code"] == actors.team.invite_code
    page = _page(actors, actor, f"/teams/{actors.team.slug}/")
    if actor != "anonymous":
        assert (actors.team.invite_code in page.content.decode()) is (expected == 200)


@pytest.mark.parametrize(
    ("actor", "expected"),
    [("anonymous", 401), ("outsider", 404), ("other", 404), ("member", 204), ("organiser", 404)],
)
def test_only_a_member_may_leave_a_team(actors, actor, expected):
    response = _call(actors, actor, "post", f"/api/v1/teams/{actors.team.slug}/leave/")
    assert response.status_code == expected
    # the member, its only one, may leave it; no one else can take them out
    assert actors.team.memberships.filter(user=actors.member).exists() is (expected != 204)


@pytest.mark.parametrize(
    ("actor", "expected"),
    [("anonymous", 401), ("outsider", 404), ("other", 404), ("member", 409), ("organiser", 404)],
)
def test_only_a_member_may_register_a_team(actors, actor, expected):
    slug = actors.phase.challenge.slug
    url = f"/api/v1/challenges/{slug}/register/"
    response = _call(actors, actor, "post", url, {"team": actors.team.slug})
    assert response.status_code == expected
    if expected == 409:  # the team is registered already
        assert response.json()["error"]["code"] == "already_registered"


@pytest.mark.parametrize(
    ("actor", "status", "runs"),
    [("anonymous", 401, 0), ("outsider", 200, 0), ("other", 200, 0), ("member", 200, 1),
     ("organiser", 200, 0)],
)  # fmt: skip
def test_a_phases_history_is_the_callers_own_teams_only(actors, actor, status, runs):
    scored_submission(actors.team, actors.phase, build=False)
    response = _call(actors, actor, "get", f"/api/v1/phases/{actors.phase.pk}/history/")
    assert response.status_code == status
    if status == 200:
        found = [run for c in response.json()["conditions"] for run in c["runs"]]
        assert len(found) == runs * len(KEYS)


@pytest.mark.parametrize("actor", ACTORS)
def test_the_data_export_is_the_callers_own(actors, actor):
    """Each caller gets their own document (their submissions only, even the organiser who
    sees every run of the challenge); an anonymous caller gets nothing."""
    run = scored_submission(actors.team, actors.phase)
    response = _call(actors, actor, "get", "/api/v1/me/export/")
    if actor == "anonymous":
        assert response.status_code == 401
        return
    data = response.json()
    assert data["account"]["username"] == _user(actors, actor).get_username()
    assert [s["id"] for s in data["submissions"]] == ([run.pk] if actor == "member" else [])
