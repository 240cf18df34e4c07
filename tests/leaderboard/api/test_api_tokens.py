"""Tokens are made and revoked on the profile page, shown once, stored hashed, and
authenticate API calls until revoked."""

from __future__ import annotations

import hashlib
import re

import pytest
from django.test import Client
from rest_framework.test import APIClient

from leaderboard.api.models import ApiToken
from tests.leaderboard.factories import UserFactory
from tests.leaderboard.web import log_in

pytestmark = pytest.mark.django_db


def _new_key(client: Client, name: str = "laptop") -> str:
    response = client.post("/accounts/profile/tokens/", {"name": name})
    assert response.status_code == 200
    match = re.search(r'<code id="new-token">([^<]+)</code>', response.content.decode())
    assert match, "the new key is shown on the page"
    return match.group(1)


def _bearer(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    return client


def test_a_token_made_on_the_profile_page_is_shown_once_and_stored_hashed():
    user = UserFactory()
    client = Client()
    log_in(client, user)
    key = _new_key(client)
    token = ApiToken.objects.get(user=user)
    assert token.digest == hashlib.sha256(key.encode()).hexdigest()
    assert key not in {token.prefix, token.digest, token.name}
    again = client.get("/accounts/profile/").content.decode()
    assert key not in again
    assert "laptop" in again and token.prefix in again
    assert "no-cache" in client.get("/accounts/profile/")["Cache-Control"]


def test_a_token_authenticates_until_it_is_revoked():
    user = UserFactory()
    client = Client()
    log_in(client, user)
    key = _new_key(client)
    assert _bearer(key).get("/api/v1/teams/mine/").status_code == 200
    # "Token <key>" is accepted too, as DRF clients send it.
    other = APIClient()
    other.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert other.get("/api/v1/teams/mine/").status_code == 200
    assert ApiToken.objects.get(user=user).last_used_at is not None

    token = ApiToken.objects.get(user=user)
    assert client.post(f"/accounts/profile/tokens/{token.pk}/revoke/").status_code == 302
    refused = _bearer(key).get("/api/v1/teams/mine/")
    assert refused.status_code == 401
    assert refused.json()["error"]["code"] == "authentication_failed"


def test_nobody_can_revoke_another_users_token():
    owner, intruder = UserFactory(), UserFactory()
    owner_client, intruder_client = Client(), Client()
    log_in(owner_client, owner)
    log_in(intruder_client, intruder)
    key = _new_key(owner_client)
    token = ApiToken.objects.get(user=owner)
    intruder_client.post(f"/accounts/profile/tokens/{token.pk}/revoke/")
    assert _bearer(key).get("/api/v1/teams/mine/").status_code == 200


def test_token_pages_need_a_logged_in_user_and_a_post():
    client = Client()
    assert client.post("/accounts/profile/tokens/").status_code == 302  # to the login page
    log_in(client, UserFactory())
    assert client.get("/accounts/profile/tokens/").status_code == 405
    assert client.get("/accounts/profile/tokens/1/revoke/").status_code == 405


def test_an_inactive_users_token_is_refused():
    user = UserFactory()
    client = Client()
    log_in(client, user)
    key = _new_key(client)
    type(user).objects.filter(pk=user.pk).update(is_active=False)
    assert _bearer(key).get("/api/v1/teams/mine/").status_code == 401


def test_session_authentication_works_for_the_sites_own_pages():
    client = APIClient()
    user = UserFactory()
    client.force_login(type(user).objects.get(pk=user.pk))
    assert client.get("/api/v1/teams/mine/").status_code == 200
