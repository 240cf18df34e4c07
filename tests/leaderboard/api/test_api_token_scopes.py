"""Tokens have a scope (read < submit < team < organise) and an end: a token is refused (403,
``token_scope``) what its scope does not include, and after ``expires_at`` (401,
``token_expired``), each message saying why and where to make or renew one; renewing on the
profile page makes an expired token work again. A browser session is not limited by scopes."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.test import Client
from django.urls import URLPattern, get_resolver
from django.utils import timezone
from rest_framework.test import APIClient

from leaderboard.api.models import ApiToken
from leaderboard.api.scopes import TokenScope
from leaderboard.api.services import create_token
from tests.leaderboard.api.conftest import token_client
from tests.leaderboard.factories import KEYS, UserFactory
from tests.leaderboard.web import log_in, prediction_file

pytestmark = pytest.mark.django_db

TOKENS_PAGE = "http://testserver/accounts/profile/#api-tokens"


def _bearer(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    return client


def _upload(client: APIClient, phase):
    data = {"method_name": "Tracker", **{key: prediction_file() for key in KEYS}}
    return client.post(f"/api/v1/phases/{phase.pk}/submissions/", data, format="multipart")


def test_a_read_only_token_reads_but_cannot_upload_and_is_told_why(actors):
    reader = token_client(actors.member, scope="read")
    assert reader.get("/api/v1/teams/mine/").status_code == 200
    assert reader.get("/api/v1/submissions/").status_code == 200
    refused = _upload(reader, actors.phase)
    assert refused.status_code == 403
    error = refused.json()["error"]
    assert error["code"] == "token_scope"
    assert error["message"].startswith("This token may only read: uploading")
    assert "needs a token with the 'submit' scope" in error["message"]
    assert error["message"].endswith(f"Make one on your profile page: {TOKENS_PAGE}")
    assert error["details"] == {"scope": "read", "needed": "submit", "tokens_url": TOKENS_PAGE}
    assert not actors.team.submissions.exists()
    # the same upload with a "submit" token is taken
    assert _upload(token_client(actors.member, scope="submit"), actors.phase).status_code == 201


def test_a_submit_token_cannot_change_the_team_and_a_team_token_can(actors):
    submitter = token_client(actors.outsider, scope="submit")
    for path, body in (
        ("/api/v1/teams/", {"name": "Scoped Trackers"}),
        (f"/api/v1/teams/{actors.team.slug}/join/", {"invite_code": actors.team.invite_code}),
    ):
        refused = submitter.post(path, body, format="json")
        assert refused.status_code == 403, path
        assert refused.json()["error"]["code"] == "token_scope"
        assert "'team' scope" in refused.json()["error"]["message"]
    assert not actors.outsider.memberships.exists()
    member = token_client(actors.member, scope="submit")
    leave = member.post(f"/api/v1/teams/{actors.team.slug}/leave/")
    assert leave.status_code == 403
    invite = member.get(f"/api/v1/teams/{actors.team.slug}/invite/")
    assert invite.status_code == 403  # the code lets anyone join: it needs "team" too
    register = member.post(
        f"/api/v1/challenges/{actors.phase.challenge.slug}/register/",
        {"team": actors.team.slug},
        format="json",
    )
    assert register.status_code == 403
    created = token_client(actors.outsider, scope="team").post(
        "/api/v1/teams/", {"name": "Scoped Trackers"}, format="json"
    )
    assert created.status_code == 201
    assert created.json()["role"] == "owner"


def test_a_browser_session_is_not_limited_by_scopes(actors):
    client = APIClient()
    client.force_login(actors.outsider)
    assert client.post("/api/v1/teams/", {"name": "Session Team"}, format="json").status_code == (
        201
    )


def test_the_organiser_api_needs_the_organise_scope(actors):
    path = f"/api/v1/organise/phases/{actors.phase.pk}/submissions/"
    team_token = token_client(actors.organiser, scope="team")
    refused = team_token.get(path)
    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "token_scope"
    assert (
        "the organiser API needs a token with the 'organise' scope"
        in (refused.json()["error"]["message"])
    )
    assert token_client(actors.organiser, scope="organise").get(path).status_code == 200
    # someone who organises nothing is answered as before: no such phase for them
    assert token_client(actors.member, scope="team").get(path).status_code == 404


def test_the_organise_scope_is_offered_only_to_organisers_and_staff(actors):
    def options(user) -> list[str]:
        client = Client()
        log_in(client, user)
        page = client.get("/accounts/profile/").content.decode()
        select = re.search(r'<select name="scope".*?</select>', page, re.S)
        assert select, "the form offers a scope"
        return re.findall(r'<option value="(\w+)"', select.group(0))

    assert options(actors.member) == ["read", "submit", "team"]
    assert options(actors.organiser) == ["read", "submit", "team", "organise"]
    assert options(UserFactory(is_staff=True)) == ["read", "submit", "team", "organise"]
    client = Client()
    log_in(client, actors.member)
    response = client.post("/accounts/profile/tokens/", {"name": "x", "scope": "organise"})
    assert response.status_code == 400
    assert not ApiToken.objects.filter(user=actors.member).exists()


def test_a_new_token_defaults_to_submit_for_90_days_and_takes_the_chosen_lifetime(actors):
    client = Client()
    log_in(client, actors.member)
    before = timezone.now()
    assert client.post("/accounts/profile/tokens/", {"name": "default"}).status_code == 200
    token = ApiToken.objects.get(user=actors.member)
    assert token.scope == "submit"
    assert before + dt.timedelta(days=90) <= token.expires_at
    assert token.expires_at <= timezone.now() + dt.timedelta(days=90)
    chosen = {"name": "week", "scope": "read", "days": "7"}
    assert client.post("/accounts/profile/tokens/", chosen).status_code == 200
    week = ApiToken.objects.get(user=actors.member, name="week")
    assert week.scope == "read"
    assert (
        dt.timedelta(days=6, hours=23) < week.expires_at - before <= dt.timedelta(days=7, seconds=5)
    )
    refused = client.post("/accounts/profile/tokens/", {"name": "x", "days": "1000"})
    assert refused.status_code == 400


def test_an_expired_token_is_refused_saying_when_and_renewing_makes_it_work_again(actors, settings):
    settings.TIME_ZONE = "UTC"
    token, key = create_token(actors.member, "ci")
    ended = dt.datetime(2026, 3, 4, 12, 0, tzinfo=dt.UTC)
    ApiToken.objects.filter(pk=token.pk).update(expires_at=ended)
    refused = _bearer(key).get("/api/v1/teams/mine/")
    assert refused.status_code == 401
    error = refused.json()["error"]
    assert error["code"] == "token_expired"
    assert error["message"] == (
        "This token expired on 2026-03-04. Renew it or make a new one on your profile page: "
        + TOKENS_PAGE
    )
    assert error["details"]["tokens_url"] == TOKENS_PAGE
    assert refused["WWW-Authenticate"].startswith("Bearer")
    # even a public page refuses it: the program should learn at once that it expired
    assert _bearer(key).get("/api/v1/challenges/").status_code == 401

    client = Client()
    log_in(client, actors.member)
    page = client.get("/accounts/profile/").content.decode()
    assert "expired on 2026-03-04" in page
    renewed = client.post(f"/accounts/profile/tokens/{token.pk}/renew/")
    assert renewed.status_code == 302
    token.refresh_from_db()
    assert token.expires_at > timezone.now() + dt.timedelta(days=89)
    assert _bearer(key).get("/api/v1/teams/mine/").status_code == 200
    expires = timezone.localdate(token.expires_at).isoformat()
    assert f"expires on {expires}" in client.get("/accounts/profile/").content.decode()


def test_nobody_renews_another_users_token(actors):
    token, _ = create_token(actors.member, "ci")
    ended = timezone.now() - dt.timedelta(days=1)
    ApiToken.objects.filter(pk=token.pk).update(expires_at=ended)
    client = Client()
    log_in(client, actors.other)
    client.post(f"/accounts/profile/tokens/{token.pk}/renew/")
    token.refresh_from_db()
    assert token.expires_at == ended


def test_an_expired_token_is_not_counted_as_a_wrong_key(actors, settings):
    rates = dict(settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], **{"auth-failure-ip": "2/min"})
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}
    token, key = create_token(actors.member, "ci")
    ApiToken.objects.filter(pk=token.pk).update(expires_at=timezone.now())
    for _ in range(4):
        answer = _bearer(key).get("/api/v1/teams/mine/")
        assert answer.status_code == 401
        assert answer.json()["error"]["code"] == "token_expired"
    # the wrong-key budget of this address is still whole: two wrong keys, then 429
    assert _bearer("tb_wrong").get("/api/v1/teams/mine/").status_code == 401
    assert _bearer("tb_wrong").get("/api/v1/teams/mine/").status_code == 401
    assert _bearer("tb_wrong").get("/api/v1/teams/mine/").status_code == 429


def _api_views():
    for pattern in get_resolver().url_patterns:
        if getattr(pattern, "app_name", None) == "api":
            for inner in pattern.url_patterns:
                if isinstance(inner, URLPattern) and hasattr(inner.callback, "cls"):
                    yield inner.name, inner.callback.cls


def test_every_api_view_that_changes_something_or_declares_a_scope_checks_it():
    """A view that sets its own ``permission_classes`` drops the defaults: it must keep
    ``TokenScope`` whenever a token's scope matters to it."""
    unsafe = {"post", "put", "patch", "delete"}
    checked = []
    for name, view in _api_views():
        if unsafe & set(dir(view)) or getattr(view, "token_scope", None):
            assert any(isinstance(p, TokenScope) for p in view().get_permissions()), name
            checked.append(name)
    assert {"submit", "teams", "organise-submissions", "submission"} <= set(checked)


def test_the_schema_says_which_scope_an_operation_needs_beyond_read():
    paths = APIClient().get("/api/v1/schema/?format=json").json()["paths"]
    needs = "A token needs the `{}` scope (else `403 token_scope`)."
    assert (
        needs.format("submit") in paths["/api/v1/phases/{id}/submissions/"]["post"]["description"]
    )
    assert needs.format("team") in paths["/api/v1/teams/"]["post"]["description"]
    organise = paths["/api/v1/organise/phases/{id}/results/"]["get"]["description"]
    assert needs.format("organise") in organise
    assert "scope" not in paths["/api/v1/teams/mine/"]["get"].get("description", "")
