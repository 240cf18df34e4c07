"""The log-in lock protects the owner: failures are counted per (username, address) and per
address, on Postgres as in production; a stranger's wrong passwords from elsewhere never lock
the owner out; a refused try does not count; a completed password reset lifts the account's
lock; the admin's log-in is the site's (its page sends there), so it follows the same rules; the
page says which lock it is, when it ends and what lifts it. The log-in form is django-allauth's
(``login``: a username or an address)."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import pytest
from axes.models import AccessAttempt
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client
from django.urls import reverse

from tests.leaderboard.factories import UserFactory, totp_code, with_second_factor

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("postgres")]

PASSWORD = "the-right-password-1"
LIMIT = 10


@pytest.fixture(autouse=True)
def limits(settings):
    settings.LOGIN_FAILURE_LIMIT = LIMIT
    settings.LOGIN_FAILURE_WINDOW_SECONDS = 900


@pytest.fixture
def ada():
    user = UserFactory(username="ada", email="ada@example.org")
    user.set_password(PASSWORD)
    user.save()
    return user


def _log_in(address: str, username: str, password: str, url: str = "") -> int:
    response = Client(REMOTE_ADDR=address).post(
        url or reverse("account_login"), {"login": username, "password": password}
    )
    return response.status_code


def test_wrong_passwords_from_ten_addresses_leave_the_owner_in(ada):
    codes = [_log_in(f"198.51.100.{n}", "ada", "guess") for n in range(LIMIT)]
    assert codes == [200] * LIMIT
    assert _log_in("203.0.113.5", "ada", PASSWORD) == 302


@pytest.mark.parametrize("method", ["get", "post"])
def test_the_admins_log_in_sends_to_the_sites_own(method, ada):
    response = getattr(Client(), method)(reverse("admin:login") + "?next=/admin/auth/user/")
    assert response.status_code == 302
    sent = urlsplit(response["Location"])
    assert sent.path == "/accounts/login/"
    assert parse_qs(sent.query) == {"next": ["/admin/auth/user/"]}


def test_a_staff_member_reaches_the_admin_through_the_sites_log_in(ada):
    ada.is_staff = True
    ada.save()
    with_second_factor(ada)
    client = Client(REMOTE_ADDR="203.0.113.5")
    response = client.post(
        reverse("account_login") + "?next=/admin/", {"login": "ada", "password": PASSWORD}
    )
    # the password, then the second factor's code, then the admin page asked for
    assert response["Location"] == reverse("mfa_authenticate")
    response = client.post(reverse("mfa_authenticate"), {"code": totp_code(ada)})
    assert response["Location"] == "/admin/"
    assert client.get("/admin/").status_code == 200


@pytest.mark.parametrize("typed", ["ada", "ada@example.org"])
def test_ten_failures_from_one_address_lock_the_account_there_only(typed, ada):
    url = reverse("account_login")
    codes = [_log_in("198.51.100.7", typed, "guess", url) for _ in range(LIMIT + 2)]
    # nine wrong answers, the tenth reaches the limit, and what follows is refused
    assert codes[: LIMIT - 1] == [200] * (LIMIT - 1) and set(codes[LIMIT - 1 :]) == {429}
    locked = Client(REMOTE_ADDR="198.51.100.7").post(url, {"login": typed, "password": PASSWORD})
    assert locked.status_code == 429
    assert "Too many failed log-ins for this account from your address" in locked.text
    assert "Resetting your password" in locked.text and "lifts this at once" in locked.text
    assert 0 < int(locked["Retry-After"]) <= 900
    # refused tries neither count nor push the end of the lock on
    attempt = AccessAttempt.objects.get(username=typed, ip_address="198.51.100.7")
    assert attempt.failures_since_start == LIMIT
    # the same account from anywhere else is fine
    assert _log_in("203.0.113.5", typed, PASSWORD) == 302


def test_an_address_that_fails_for_many_accounts_is_locked_for_all(ada):
    for n in range(LIMIT):
        _log_in("198.51.100.9", f"nobody-{n}", "guess")
    locked = Client(REMOTE_ADDR="198.51.100.9").post(
        reverse("account_login"), {"login": "ada", "password": PASSWORD}
    )
    assert locked.status_code == 429
    assert "Too many failed log-ins from your address, for any account" in locked.text
    assert "Logging in from another network works now" in locked.text
    assert _log_in("198.51.100.10", "ada", PASSWORD) == 302


def test_a_completed_password_reset_lifts_the_accounts_lock(
    ada, account_mail, django_capture_on_commit_callbacks
):
    address = "198.51.100.7"
    for _ in range(LIMIT):
        _log_in(address, "ada", "guess")
    assert _log_in(address, "ada", PASSWORD) == 429
    client = Client(REMOTE_ADDR=address)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("account_reset_password"), {"email": "ada@example.org"})
    link = re.search(r"https?://\S+?(/accounts/password/reset/key/\S+)", mail.outbox[-1].body)
    form = client.get(link.group(1))["Location"]  # allauth swaps the key for a session marker
    new = "another-long-passphrase"
    assert client.post(form, {"password1": new, "password2": new}).status_code == 302
    assert not AccessAttempt.objects.filter(username="ada").exists()
    assert _log_in(address, "ada", new) == 302


def test_the_lock_counts_usernames_as_the_form_is_typed_in_any_case(ada):
    for n in range(LIMIT):
        _log_in("198.51.100.7", "ADA" if n % 2 else " ada ", "guess")
    assert _log_in("198.51.100.7", "ada", PASSWORD) == 429
    assert get_user_model().objects.get(username="ada").check_password(PASSWORD)
