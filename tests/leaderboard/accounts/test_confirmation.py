"""Sign-up with a confirmed address (django-allauth's confirmation): the link goes out from the
task through a real SMTP server on loopback; an unconfirmed account can log in but cannot
create or register a team, nor submit (web and API; the client in tests/trackboard_cli), with
the way to get the link again; addresses are unique whatever their case; sign-ups are limited
per address; a new address is not the account's until its own link is opened."""

from __future__ import annotations

import io
import re

import pytest
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.db import IntegrityError, transaction
from django.test import Client
from django.urls import reverse

from leaderboard.teams.models import Team
from leaderboard.teams.services import address_verified as is_confirmed
from tests.leaderboard.accounts.conftest import SITE
from tests.leaderboard.api.conftest import token_client
from tests.leaderboard.factories import (
    KEYS,
    UserFactory,
    approved_team,
    phase_with_references,
    with_second_factor,
)
from tests.leaderboard.web import GOLD_BYTES, log_in, prediction_file, submit_payload

pytestmark = pytest.mark.django_db
PASSWORD = "a-long-unusual-passphrase"


def _sign_up(client: Client, username: str, email: str, **extra):
    data = {"username": username, "email": email, "password1": PASSWORD, "password2": PASSWORD}
    return client.post(reverse("account_signup"), data, **extra)


def _link(message: str) -> str:
    return re.search(re.escape(SITE) + r"(/accounts/confirm-email/\S+/)", message).group(1)


def test_the_link_mailed_by_the_worker_confirms_the_address(
    client, smtp, account_mail, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        assert _sign_up(client, "ada", "Ada@Example.ORG").status_code == 302
    user = get_user_model().objects.get(username="ada")
    assert user.email.lower() == "ada@example.org" and not is_confirmed(user)
    [(to, message)] = smtp.received
    assert [a.lower() for a in to] == ["ada@example.org"]
    assert "Subject: Confirm your e-mail address" in message
    link = _link(message)
    # opening the link changes nothing (a mail scanner opens links too); the button does
    page = client.get(link)
    assert page.status_code == 200 and "Confirm the address" in page.text
    assert not is_confirmed(user)
    response = client.post(link, follow=True)
    assert response.redirect_chain[-1][0] == reverse("teams:mine")
    assert is_confirmed(user)
    # the link worked once
    again = Client().get(link)
    assert "This link does not work any more" in again.text
    response = client.post(reverse("teams:create"), {"name": "Night Owls"})
    assert response.status_code == 302 and Team.objects.filter(name="Night Owls").exists()


def test_an_unconfirmed_account_logs_in_but_cannot_take_part_on_the_web(client):
    user = UserFactory(confirmed=False)
    phase = phase_with_references(GOLD_BYTES)
    team = approved_team(phase)  # an approved team the account has joined
    team.memberships.create(user=user)
    log_in(client, user)
    create = client.get(reverse("teams:create")).text
    assert "Confirm your e-mail address first" in create and "Send the link again" in create
    refused = client.post(reverse("teams:create"), {"name": "Throwaway"})
    assert "Confirm your e-mail address first" in refused.text
    assert not Team.objects.filter(name="Throwaway").exists()
    own = Team.objects.create(name="Made Elsewhere", slug="made-elsewhere", created_by=user)
    own.memberships.create(user=user, role="owner")
    challenge = phase.challenge
    detail = client.get(reverse("challenges:detail", args=[challenge.slug])).text
    assert "Confirm your e-mail address first" in detail
    response = client.post(
        reverse("challenges:register", args=[challenge.slug]), {"team": own.pk}, follow=True
    )
    assert "Confirm your e-mail address first" in response.text
    assert not own.participations.exists()
    url = reverse("submissions:submit", args=[challenge.slug, phase.slug])
    page = client.get(url).text
    assert "Confirm your e-mail address first" in page and "Send the link again" in page
    client.post(url, submit_payload())
    assert not team.submissions.exists()


def test_an_unconfirmed_account_cannot_submit_through_the_api(enqueued):
    user = UserFactory(confirmed=False)
    phase = phase_with_references(GOLD_BYTES)
    team = approved_team(phase)
    team.memberships.create(user=user)
    data = {"method_name": "m", **{key: prediction_file() for key in KEYS}}
    response = token_client(user).post(
        f"/api/v1/phases/{phase.pk}/submissions/", data, format="multipart"
    )
    assert response.status_code == 403
    error = response.json()["error"]
    assert error["code"] == "address_unconfirmed"
    assert "Confirm your e-mail address first" in error["message"]
    assert "/accounts/profile/" in error["message"]
    assert not team.submissions.exists() and enqueued == []


def test_the_link_can_be_sent_again_and_an_address_changed(
    client, smtp, account_mail, django_capture_on_commit_callbacks, settings
):
    user = UserFactory(username="bo", email="bo@example.org", confirmed=False)
    user.set_password(PASSWORD)
    user.save()
    EmailAddress.objects.create(user=user, email="bo@example.org", primary=True)
    UserFactory(username="cy", email="cy@example.org")
    client.post(reverse("account_login"), {"login": "bo", "password": PASSWORD})
    # the profile's button, as _unconfirmed.html sends it
    resend = {"email": "bo@example.org", "action_send": ""}
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("account_email"), resend, follow=True)
    assert response.status_code == 200
    assert [to for to, _ in smtp.received] == [["bo@example.org"]]
    first_link = _link(smtp.received[0][1])
    client.post(first_link)
    assert is_confirmed(user)
    url = reverse("account_email")
    # a new address asks for the password again first
    asked = client.post(url, {"email": "bo2@example.org", "action_add": ""})
    assert asked["Location"].startswith(reverse("account_reauthenticate"))
    wrong = client.post(reverse("account_reauthenticate"), {"password": "guess"})
    assert wrong.status_code == 200 and not EmailAddress.objects.filter(email="bo2@example.org")
    client.post(reverse("account_reauthenticate"), {"password": PASSWORD})
    # another account's address (any case) is refused, as at sign-up
    taken = client.post(url, {"email": "CY@example.org", "action_add": ""})
    assert "An account already uses this e-mail address" in taken.text
    assert not EmailAddress.objects.filter(user=user, email__iexact="cy@example.org").exists()
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url, {"email": "bo2@example.org", "action_add": ""})
    assert response.status_code == 302
    assert smtp.received[-1][0] == ["bo2@example.org"]
    # until its link is opened, the new address is not the account's: the old one still is
    user.refresh_from_db()
    assert user.email == "bo@example.org" and is_confirmed(user)
    client.post(_link(smtp.received[-1][1]))
    user.refresh_from_db()
    assert user.email == "bo2@example.org" and is_confirmed(user)
    # the old address's link no longer confirms anything: that address is gone
    assert "This link does not work any more" in Client().get(first_link).text
    assert list(EmailAddress.objects.filter(user=user).values_list("email", flat=True)) == [
        "bo2@example.org"
    ]


def test_confirmation_mails_are_limited_per_address(
    client, published, settings, django_capture_on_commit_callbacks
):
    settings.ACCOUNT_RATE_LIMITS = {**settings.ACCOUNT_RATE_LIMITS, "confirm_email": "2/1h/key"}
    user = UserFactory(username="bo", email="bo@example.org", confirmed=False)
    EmailAddress.objects.create(user=user, email="bo@example.org", primary=True)
    log_in(client, user)
    resend = {"email": "bo@example.org", "action_send": ""}
    for _ in range(3):
        with django_capture_on_commit_callbacks(execute=True):
            client.post(reverse("account_email"), resend)
    assert len(published) == 2


def test_a_case_variant_of_an_existing_address_is_refused(client):
    UserFactory(username="dana", email="dana@example.org")
    response = _sign_up(client, "dana2", "DANA@example.org")
    assert response.status_code == 200
    assert "already" in response.text.lower()
    assert not get_user_model().objects.filter(username="dana2").exists()
    # the database refuses it too, whatever writes it
    with pytest.raises(IntegrityError), transaction.atomic():
        get_user_model().objects.create_user("dana3", "Dana@EXAMPLE.org", PASSWORD)


def test_sign_ups_are_limited_per_address(settings, published):
    settings.ACCOUNT_RATE_LIMITS = {**settings.ACCOUNT_RATE_LIMITS, "signup": "3/1h/ip"}
    codes = [
        _sign_up(Client(REMOTE_ADDR="198.51.100.3"), f"u{n}", f"u{n}@example.org").status_code
        for n in range(4)
    ]
    assert codes == [302, 302, 302, 429]
    refused = _sign_up(Client(REMOTE_ADDR="198.51.100.3"), "u9", "u9@example.org")
    assert refused.status_code == 429 and "Too many requests" in refused.text
    assert _sign_up(Client(REMOTE_ADDR="198.51.100.4"), "u9", "u9@example.org").status_code == 302
    assert get_user_model().objects.count() == 4


def test_a_broken_or_unknown_link_says_what_to_do(client):
    page = client.get(reverse("account_confirm_email", args=["not-a-key"]))
    assert "This link does not work any more" in page.text
    assert client.post(reverse("account_confirm_email", args=["not-a-key"])).status_code == 404


def test_an_operator_can_confirm_an_address_by_hand():
    user = UserFactory(username="fay", confirmed=False)
    out = io.StringIO()
    call_command("confirm_address", "fay", stdout=out)
    assert "fay: fay@example.org confirmed" in out.getvalue() and is_confirmed(user)
    with pytest.raises(CommandError, match="No account 'nobody'"):
        call_command("confirm_address", "nobody")
    UserFactory(username="gil", email="", confirmed=False)
    with pytest.raises(CommandError, match="no e-mail address"):
        call_command("confirm_address", "gil")


def test_the_admin_refuses_an_address_another_account_has_in_any_case(client):
    UserFactory(username="hal", email="hal@example.org")
    ivy = UserFactory(username="ivy", email="ivy@example.org")
    root = with_second_factor(
        get_user_model().objects.create_superuser("root", "root@example.org", "pw")
    )
    client.force_login(root)
    url = reverse("admin:auth_user_change", args=[ivy.pk])
    page = client.get(url)
    assert page.status_code == 200 and "ivy@example.org" in page.text
    form = {
        "username": "ivy",
        "email": "HAL@example.org",
        "date_joined_0": "2026-01-01",
        "date_joined_1": "00:00:00",
        "is_active": "on",
        "emailaddress_set-TOTAL_FORMS": "0",
        "emailaddress_set-INITIAL_FORMS": "0",
        "emailaddress_set-MIN_NUM_FORMS": "0",
        "emailaddress_set-MAX_NUM_FORMS": "1000",
    }
    response = client.post(url, form)
    assert response.status_code == 200
    assert "An account already uses this e-mail address" in response.text


def test_an_account_without_an_address_is_sent_to_add_one(client):
    user = UserFactory(username="jo", email="", confirmed=False)
    log_in(client, user)
    page = client.get(reverse("accounts:profile")).text
    assert "Your account has no e-mail address" in page
    assert f'href="{reverse("account_email")}"' in page
