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


def test_signing_up_logs_the_user_in_and_says_to_confirm_the_address(client, published):
    response = client.post(
        reverse("account_signup"),
        {
            "username": "ada",
            "email": "ada@example.org",
            "password1": PASSWORD,
            "password2": PASSWORD,
        },
    )
    assert response["Location"] == reverse("accounts:profile")
    page = client.get(response["Location"]).text
    assert "We sent a link to <strong>ada@example.org</strong>" in page
    assert get_user_model().objects.get(username="ada").email == "ada@example.org"


def test_sign_up_returns_to_a_safe_next_url_only(client, published):
    data = {
        "username": "bo",
        "email": "bo@example.org",
        "password1": PASSWORD,
        "password2": PASSWORD,
    }
    response = client.post(reverse("account_signup") + "?next=https://evil.example/", data)
    assert response["Location"] == reverse("accounts:profile")
    client.logout()
    data = {**data, "username": "bo2", "email": "bo2@example.org"}
    response = client.post(reverse("account_signup") + "?next=/challenges/", data)
    assert response["Location"] == "/challenges/"


def test_a_taken_username_or_address_is_refused(client, user, published):
    for username, email in (("ADA", "new@example.org"), ("new", "ADA@example.org")):
        response = client.post(
            reverse("account_signup"),
            {"username": username, "email": email, "password1": PASSWORD, "password2": PASSWORD},
        )
        assert response.status_code == 200, (username, email)
    assert get_user_model().objects.count() == 1


def test_a_weak_password_is_refused_with_the_validators_message(client):
    response = client.post(
        reverse("account_signup"),
        {"username": "cy", "email": "cy@example.org", "password1": "123", "password2": "123"},
    )
    assert response.status_code == 200
    assert "This password is too short." in response.text
    assert not get_user_model().objects.filter(username="cy").exists()


@pytest.mark.parametrize("typed", ["ada", "ADA", "ada@example.org", "Ada@Example.org"])
def test_log_in_by_username_or_address_and_log_out_with_a_post(client, user, typed):
    response = client.post(reverse("account_login"), {"login": typed, "password": PASSWORD})
    assert response.status_code == 302
    page = client.get(reverse("challenges:list")).text
    assert "ada" in page and 'action="/accounts/logout/"' in page
    client.get(reverse("account_logout"))  # GET asks, it does not log out
    assert client.get(reverse("accounts:profile")).status_code == 200
    client.post(reverse("account_logout"))
    assert "Log in" in client.get(reverse("challenges:list")).text


def test_the_header_offers_log_in_and_sign_up_to_anonymous_users(client):
    page = client.get(reverse("challenges:list")).text
    assert "Log in" in page and "Sign up" in page and "Log out" not in page


def test_password_reset_sends_a_link_that_sets_a_new_password(
    client, user, account_mail, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("account_reset_password"), {"email": "ada@example.org"})
    assert len(mail.outbox) == 1
    site = re.escape(settings.SITE_URL)
    link = re.search(site + r"(/accounts/password/reset/key/\S+)", mail.outbox[0].body).group(1)
    form_url = client.get(link)["Location"]  # allauth swaps the key for a session marker
    new = "another-long-passphrase"
    client.post(form_url, {"password1": new, "password2": new})
    assert _log_in(client, "ada", new)


def test_password_change_needs_the_old_password(client, user):
    assert _log_in(client, "ada", PASSWORD)
    new = "another-long-passphrase"
    wrong = client.post(
        reverse("account_change_password"),
        {"oldpassword": "not-it", "password1": new, "password2": new},
    )
    assert wrong.status_code == 200
    response = client.post(
        reverse("account_change_password"),
        {"oldpassword": PASSWORD, "password1": new, "password2": new},
    )
    assert response.status_code == 302
    client.logout()
    assert not _log_in(client, "ada", PASSWORD)
    assert _log_in(client, "ada", new)


def _log_in(client, username: str, password: str) -> bool:
    """Through the log-in form, as a person does (the failure limit sees every attempt)."""
    response = client.post(reverse("account_login"), {"login": username, "password": password})
    return response.status_code == 302


def test_the_profile_lists_the_users_teams_and_requires_log_in(client, user):
    assert client.get(reverse("accounts:profile"))["Location"].startswith(reverse("account_login"))
    log_in(client, user)
    assert "You are not in a team yet" in client.get(reverse("accounts:profile")).text


def test_the_log_in_page_offers_the_reset_and_the_sign_up(client):
    page = client.get(reverse("account_login") + "?next=/teams/").text
    assert f'href="{reverse("account_reset_password")}"' in page
    assert f'href="{reverse("account_signup")}?next=%2Fteams%2F"' in page
    assert 'name="login"' in page and 'name="next" value="/teams/"' in page
    assert "Remember" not in page  # sessions last their set age either way
