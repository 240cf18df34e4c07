"""The log-in lock protects the owner: failures are counted per (username, address) and per
address, on Postgres as in production; a stranger's wrong passwords from elsewhere never lock
the owner out; a refused try does not count; a completed password reset lifts the account's
lock; the admin's log-in follows the same rules; the page says which lock it is, when it ends
and what lifts it."""

from __future__ import annotations

import re

import pytest
from axes.models import AccessAttempt
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client
from django.urls import reverse

from tests.leaderboard.factories import UserFactory

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
        url or reverse("login"), {"username": username, "password": password}
    )
    return response.status_code


# The admin has no log-in form of its own: its log-in is the site's
# (tests/leaderboard/security/test_limits_behind_a_proxy.py).
@pytest.mark.parametrize("form", ["login"])
def test_wrong_passwords_from_ten_addresses_leave_the_owner_in(form, ada, settings):
    url = reverse(form)
    codes = [_log_in(f"198.51.100.{n}", "ada", "guess", url) for n in range(LIMIT)]
    assert codes == [200] * LIMIT
    assert _log_in("203.0.113.5", "ada", PASSWORD, url) == 302


@pytest.mark.parametrize("form", ["login"])
def test_ten_failures_from_one_address_lock_the_account_there_only(form, ada):
    ada.is_staff = True
    ada.save()
    url = reverse(form)
    codes = [_log_in("198.51.100.7", "ada", "guess", url) for _ in range(LIMIT + 2)]
    # nine wrong answers, the tenth reaches the limit, and what follows is refused
    assert codes[: LIMIT - 1] == [200] * (LIMIT - 1) and set(codes[LIMIT - 1 :]) == {429}
    locked = Client(REMOTE_ADDR="198.51.100.7").post(url, {"username": "ada", "password": PASSWORD})
    assert locked.status_code == 429
    assert "Too many failed log-ins for this account from your address" in locked.text
    assert "Resetting your password" in locked.text and "lifts this at once" in locked.text
    assert 0 < int(locked["Retry-After"]) <= 900
    # refused tries neither count nor push the end of the lock on
    attempt = AccessAttempt.objects.get(username="ada", ip_address="198.51.100.7")
    assert attempt.failures_since_start == LIMIT
    # the same account from anywhere else is fine
    assert _log_in("203.0.113.5", "ada", PASSWORD) == 302


def test_an_address_that_fails_for_many_accounts_is_locked_for_all(ada):
    for n in range(LIMIT):
        _log_in("198.51.100.9", f"nobody-{n}", "guess")
    locked = Client(REMOTE_ADDR="198.51.100.9").post(
        reverse("login"), {"username": "ada", "password": PASSWORD}
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
        client.post(reverse("password_reset"), {"email": "ada@example.org"})
    link = re.search(r"https?://\S+?(/accounts/reset/\S+)", mail.outbox[-1].body).group(1)
    form = client.get(link)["Location"]
    new = "another-long-passphrase"
    assert client.post(form, {"new_password1": new, "new_password2": new}).status_code == 302
    assert not AccessAttempt.objects.filter(username="ada").exists()
    assert _log_in(address, "ada", new) == 302


def test_the_lock_counts_usernames_as_the_form_is_typed_in_any_case(ada):
    for n in range(LIMIT):
        _log_in("198.51.100.7", "ADA" if n % 2 else " ada ", "guess")
    assert _log_in("198.51.100.7", "ada", PASSWORD) == 429
    assert get_user_model().objects.get(username="ada").check_password(PASSWORD)
