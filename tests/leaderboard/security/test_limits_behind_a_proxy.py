"""Limits keyed on the right client: failed log-ins on the admin's form too (per account and
address, and per address); behind the proxy
(``TRUSTED_PROXIES``), one client's failures do not lock out another; a forged
``X-Forwarded-For`` moves no per-address throttle; reading the API uses up no upload."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from tests.leaderboard.api.conftest import token_client
from tests.leaderboard.factories import KEYS, with_second_factor
from tests.leaderboard.web import prediction_file

pytestmark = pytest.mark.django_db

PROXY = "10.0.0.1"  # the HTTPS proxy: every request reaches the site from it
PASSWORD = "the-right-password-1"


@pytest.fixture
def superuser():
    return with_second_factor(
        get_user_model().objects.create_superuser("chief", "chief@example.org", PASSWORD)
    )


@pytest.fixture
def rates(settings):
    """Generous rates but the ones a test names (nothing depends on the defaults)."""

    def set_rates(**overrides: str) -> None:
        names = ("submit-user", "submit-ip", "token-user", "token-ip", "auth-failure-ip")
        rates = {name: "1000/min" for name in (*names, "rejected-ip")}
        rates.update({k.replace("_", "-"): v for k, v in overrides.items()})
        settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}

    return set_rates


def test_the_admin_has_no_log_in_form_of_its_own(superuser):
    """The admin's log-in is the site's, which asks for the second factor's code and holds
    the log-in lock: a password posted to the admin's address signs nobody in."""
    admin = Client()
    response = admin.post(reverse("admin:login"), {"username": "chief", "password": PASSWORD})
    assert response.status_code == 302
    assert urlsplit(response["Location"]).path == reverse("account_login")
    assert "_auth_user_id" not in admin.session
    assert admin.get(reverse("admin:index")).status_code == 302


def test_thirty_failed_log_ins_of_a_superuser_are_limited(superuser, settings):
    settings.LOGIN_FAILURE_LIMIT = 10
    admin = Client()
    url = reverse("account_login")
    codes = [
        admin.post(url, {"login": "chief", "password": "guess"}).status_code for _ in range(30)
    ]
    # Nine failures show the form again; the tenth reaches the limit and is refused, as is
    # every attempt after it, the right password too.
    assert codes[:9] == [200] * 9
    assert set(codes[9:]) == {429}
    right = admin.post(url, {"login": "chief", "password": PASSWORD})
    assert right.status_code == 429
    assert "Too many failed log-ins" in right.text and int(right["Retry-After"]) > 0
    # From another address, the superuser logs in: the lock is the account's at that address.
    elsewhere = Client(REMOTE_ADDR="10.9.9.9").post(url, {"login": "chief", "password": PASSWORD})
    assert elsewhere.status_code == 302


def test_behind_the_proxy_ten_failures_of_one_client_do_not_lock_out_another(
    superuser, settings, world
):
    settings.TRUSTED_PROXIES = 1
    settings.LOGIN_FAILURE_LIMIT = 10
    url = reverse("account_login")
    attacker = Client(REMOTE_ADDR=PROXY, HTTP_X_FORWARDED_FOR="203.0.113.7")
    for n in range(10):
        attacker.post(url, {"login": f"nobody-{n}", "password": "guess"})
    assert attacker.post(url, {"login": "nobody-x", "password": "guess"}).status_code == 429
    member = world.users["member"]
    member.set_password(PASSWORD)
    member.save()
    # Another client, through the same proxy: its own address, its own count.
    other = Client(REMOTE_ADDR=PROXY, HTTP_X_FORWARDED_FOR="198.51.100.4")
    assert other.post(url, {"login": member.username, "password": PASSWORD}).status_code == 302
    admin = Client(REMOTE_ADDR=PROXY, HTTP_X_FORWARDED_FOR="198.51.100.5")
    response = admin.post(reverse("account_login"), {"login": "chief", "password": PASSWORD})
    assert response.status_code == 302
    # Without the setting every client is the proxy: ten failures of one lock everyone out.
    settings.TRUSTED_PROXIES = 0
    for n in range(10):
        attacker.post(url, {"login": f"nobody-{n}", "password": "guess"})
    fresh = Client(REMOTE_ADDR=PROXY, HTTP_X_FORWARDED_FOR="192.0.2.1")
    assert fresh.post(url, {"login": member.username, "password": PASSWORD}).status_code == 429


@pytest.mark.parametrize("proxies", [0, 1])
def test_a_forged_forwarded_for_header_does_not_move_the_per_address_throttles(
    world, rates, settings, proxies
):
    settings.TRUSTED_PROXIES = proxies
    rates(submit_ip="2/hour")
    client = token_client(world.users["member"])
    real = "203.0.113.9"
    sent = []
    for n in range(4):
        # The client writes what it likes; the proxy (when there is one) appends the address
        # it saw, and the connection comes from the proxy.
        forged = f"192.0.2.{n}"
        meta = (
            {"REMOTE_ADDR": PROXY, "HTTP_X_FORWARDED_FOR": f"{forged}, {real}"}
            if proxies
            else {"REMOTE_ADDR": real, "HTTP_X_FORWARDED_FOR": forged}
        )
        data = {"method_name": f"forged {n}", **{key: prediction_file() for key in KEYS}}
        response = client.post(
            f"/api/v1/phases/{world.phase.pk}/submissions/", data, format="multipart", **meta
        )
        sent.append(response.status_code)
    assert sent == [201, 201, 429, 429]


def test_reading_the_api_uses_up_no_upload(world, rates):
    rates(submit_user="1/hour", submit_ip="1/hour")
    client = token_client(world.users["member"])
    url = f"/api/v1/phases/{world.phase.pk}/submissions/"
    for _ in range(5):
        assert client.get(url).status_code == 405
        assert client.options(url).status_code == 200
        assert client.get("/api/v1/submissions/").status_code == 200
    data = {"method_name": "after reading", **{key: prediction_file() for key in KEYS}}
    assert client.post(url, data, format="multipart").status_code == 201
    again = {"method_name": "second", **{key: prediction_file() for key in KEYS}}
    assert client.post(url, again, format="multipart").status_code == 429
