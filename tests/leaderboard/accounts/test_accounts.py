"""Accounts: sign up, log in and out, password change and reset, profile. (The address's
confirmation, the reset's mail and limits and the log-in lock have files of their own.)"""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core import mail
from django.urls import reverse

from tests.leaderboard.factories import UserFactory
from tests.leaderboard.web import log_in

pytestmark = pytest.mark.django_db
PASSWORD = "a-long-unusual-passphrase"


@pytest.fixture
def user():
    user = UserFactory(username="ada", email="ada@example.org")
    user.set_password(PASSWORD)
    user.save()
    return user


def test_signing_up_logs_the_user_in_and_says_to_confirm_the_address(client):
    response = client.post(
        reverse("accounts:signup"),
        {
            "username": "ada",
            "email": "ada@example.org",
            "password1": PASSWORD,
            "password2": PASSWORD,
        },
    )
    assert response["Location"] == reverse("accounts:confirm-sent")
    page = client.get(response["Location"]).text
    assert "We sent a link to <strong>ada@example.org</strong>" in page
    assert "ada" in client.get(reverse("accounts:profile")).text
    assert get_user_model().objects.get(username="ada").email == "ada@example.org"


def test_sign_up_returns_to_a_safe_next_url_only(client):
    data = {
        "username": "bo",
        "email": "bo@example.org",
        "password1": PASSWORD,
        "password2": PASSWORD,
    }
    response = client.post(reverse("accounts:signup") + "?next=https://evil.example/", data)
    assert response["Location"] == reverse("accounts:confirm-sent")
    client.logout()
    data = {**data, "username": "bo2", "email": "bo2@example.org"}
    response = client.post(reverse("accounts:signup") + "?next=/challenges/", data)
    assert response["Location"] == reverse("accounts:confirm-sent") + "?next=%2Fchallenges%2F"


def test_a_weak_password_is_refused_with_the_validators_message(client):
    response = client.post(
        reverse("accounts:signup"),
        {"username": "cy", "email": "cy@example.org", "password1": "123", "password2": "123"},
    )
    assert response.status_code == 200
    assert "This password is too short." in response.text
    assert not get_user_model().objects.filter(username="cy").exists()


def test_log_in_and_log_out_with_a_post(client, user):
    response = client.post(reverse("login"), {"username": "ada", "password": PASSWORD})
    assert response.status_code == 302
    page = client.get(reverse("challenges:list")).text
    assert "ada" in page and 'action="/accounts/logout/"' in page
    assert client.get(reverse("logout")).status_code == 405  # GET does not log out
    client.post(reverse("logout"))
    assert "Log in" in client.get(reverse("challenges:list")).text


def test_the_header_offers_log_in_and_sign_up_to_anonymous_users(client):
    page = client.get(reverse("challenges:list")).text
    assert "Log in" in page and "Sign up" in page and "Log out" not in page


def test_password_reset_sends_a_link_that_sets_a_new_password(
    client, user, account_mail, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("password_reset"), {"email": "ada@example.org"})
    assert len(mail.outbox) == 1
    site = re.escape(settings.SITE_URL)
    link = re.search(site + r"(/accounts/reset/\S+)", mail.outbox[0].body).group(1)
    form_url = client.get(link)["Location"]  # Django swaps the token for a session marker
    new = "another-long-passphrase"
    client.post(form_url, {"new_password1": new, "new_password2": new})
    assert _log_in(client, "ada", new)


def test_password_change_needs_the_old_password(client, user):
    assert _log_in(client, "ada", PASSWORD)
    new = "another-long-passphrase"
    response = client.post(
        reverse("password_change"),
        {"old_password": PASSWORD, "new_password1": new, "new_password2": new},
    )
    assert response["Location"] == reverse("password_change_done")
    client.logout()
    assert _log_in(client, "ada", new)


def _log_in(client, username: str, password: str) -> bool:
    """Through the log-in form, as a person does (the failure limit sees every attempt)."""
    response = client.post(reverse("login"), {"username": username, "password": password})
    return response.status_code == 302


def test_the_profile_lists_the_users_teams_and_requires_log_in(client, user):
    assert client.get(reverse("accounts:profile"))["Location"].startswith(reverse("login"))
    log_in(client, user)
    assert "You are not in a team yet" in client.get(reverse("accounts:profile")).text
