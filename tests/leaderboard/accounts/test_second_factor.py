"""Two factors for those who hold secrets: an organiser (or staff) without a second factor is
sent to set one up before an organiser page or the admin, and the organiser API answers 403
saying where; a participant is never asked. Set up through allauth's own page with a code
pyotp computes from the secret the page shows, the organiser gets in; after that their log-in
asks for the code, and each recovery code signs in once."""

from __future__ import annotations

import re
from html import unescape
from urllib.parse import parse_qs, urlsplit

import pyotp
import pytest
from allauth.mfa.models import Authenticator
from django.test import Client
from django.urls import reverse

from leaderboard.challenges.audit import AuditEntry
from tests.leaderboard.api.conftest import token_client
from tests.leaderboard.factories import (
    ChallengeFactory,
    PhaseFactory,
    UserFactory,
    totp_code,
    totp_secret,
    with_second_factor,
)
from tests.leaderboard.web import log_in

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("postgres")]

PASSWORD = "a-long-organiser-password-7"
SETUP = reverse("mfa_activate_totp")


@pytest.fixture
def phase():
    return PhaseFactory(challenge=ChallengeFactory(slug="secrets"))


@pytest.fixture
def organiser(phase):
    user = UserFactory(username="olga")
    user.set_password(PASSWORD)
    user.save()
    phase.challenge.organisers.add(user)
    return user


def _organise(phase) -> str:
    return reverse("challenges:organise", args=[phase.challenge.slug])


def _sign_in(client: Client, username: str, password: str = PASSWORD):
    """allauth's log-in form, as a person fills it."""
    return client.post(reverse("account_login"), {"login": username, "password": password})


def _sent_to_setup(response, wanted: str) -> None:
    assert response.status_code == 302
    target = urlsplit(response["Location"])
    assert target.path == SETUP
    assert parse_qs(target.query) == {"next": [wanted]}


def test_an_organiser_without_a_factor_is_sent_to_set_one_up(client, phase, organiser):
    log_in(client, organiser)
    page = _organise(phase)
    response = client.get(page)
    _sent_to_setup(response, page)
    withdrawals = reverse("challenges:withdrawals", args=[phase.challenge.slug, phase.slug])
    _sent_to_setup(client.get(withdrawals), withdrawals)
    # (signed in without allauth's log-in: it asks for the password again before the set-up)
    shown = client.get(response["Location"], follow=True).text
    assert "Organisers and staff must set up a second factor" in unescape(shown)


def test_staff_without_a_factor_are_sent_from_the_admin_to_set_one_up(client):
    log_in(client, UserFactory(is_staff=True, is_superuser=True))
    index = reverse("admin:index")
    _sent_to_setup(client.get(index), index)
    users = reverse("admin:auth_user_changelist")
    _sent_to_setup(client.get(users), users)
    # signing out stays open
    assert client.post(reverse("admin:logout")).status_code == 302
    assert "_auth_user_id" not in client.session


def test_an_organiser_who_holds_no_staff_flag_is_still_sent_from_the_admin(client, organiser):
    # an organiser added without roles.grant is not staff: the admin sends them to log in
    # (allauth's), never shows them its own form
    log_in(client, organiser)
    response = client.get(reverse("admin:index"))
    assert response.status_code == 302
    assert urlsplit(response["Location"]).path == reverse("admin:login")
    assert client.get(response["Location"]).status_code == 403


def test_the_admins_log_in_is_allauths_which_asks_for_the_code(client):
    response = client.get(reverse("admin:login") + "?next=/admin/auth/user/")
    assert response.status_code == 302
    target = urlsplit(response["Location"])
    assert target.path == reverse("account_login")
    assert parse_qs(target.query) == {"next": ["/admin/auth/user/"]}


def test_the_organiser_api_refuses_an_organiser_without_a_factor(phase, organiser, settings):
    settings.SITE_URL = "https://trackboard.example.org"
    api = token_client(organiser)
    url = reverse("api:organise-submissions", args=[phase.pk])
    response = api.get(url)
    assert response.status_code == 403
    error = response.json()["error"]
    assert error["code"] == "second_factor_required"
    assert error["message"].startswith(
        "Organisers must set up a second factor before using the organiser API: open "
        "https://trackboard.example.org/accounts/2fa/totp/activate/ "
    )
    with_second_factor(organiser)
    assert api.get(url).status_code == 200


def test_a_participant_is_never_asked(client, phase):
    participant = UserFactory()
    log_in(client, participant)
    # the organiser page is not theirs: the same 404 as before, no set-up page
    assert client.get(_organise(phase)).status_code == 404
    assert client.get(reverse("accounts:profile")).status_code == 200
    board = reverse("rankings:leaderboard", args=[phase.challenge.slug, phase.slug])
    assert client.get(board).status_code == 200


def _secret_shown(page: str) -> str:
    """The secret allauth's activation page shows beside the QR code, for typing into an app."""
    field = re.search(r'<input[^>]*id="authenticator_secret"[^>]*>', page)
    assert field, "the activation page shows no secret"
    found = re.search(r'value="([A-Z2-7]+)"', field.group(0))
    assert found
    return found.group(1)


# allauth sends its signal and its message once the set-up commits, within the request
@pytest.mark.django_db(transaction=True)
def test_set_up_sign_in_with_the_code_and_recovery_codes_once(phase, organiser):
    browser = Client()
    assert _sign_in(browser, "olga").status_code == 302  # no factor yet: signed in
    page = _organise(phase)
    _sent_to_setup(browser.get(page), page)
    # allauth asks for the password again before adding a factor
    asked = browser.get(SETUP)
    assert urlsplit(asked["Location"]).path == reverse("account_reauthenticate")
    again = browser.post(asked["Location"], {"password": PASSWORD})
    assert again["Location"] == SETUP
    secret = _secret_shown(browser.get(SETUP).text)
    right = pyotp.TOTP(secret).now()
    wrong = browser.post(SETUP, {"code": "000000" if right != "000000" else "111111"})
    assert wrong.status_code == 200
    assert not Authenticator.objects.filter(user=organiser).exists()
    done = browser.post(SETUP, {"code": right})
    # then the recovery codes made with it, to keep for a lost phone
    assert done["Location"] == reverse("mfa_view_recovery_codes")
    codes_page = browser.get(done["Location"]).text
    # where the organiser was going, named again once the factor is set up
    assert f"keep the recovery codes below, then go on to {page}." in unescape(codes_page)
    codes = Authenticator.objects.get(user=organiser, type="recovery_codes").wrap()
    code = codes.get_unused_codes()[0]
    assert code in codes_page
    assert browser.get(page).status_code == 200
    assert Authenticator.objects.filter(user=organiser, type="totp").count() == 1

    # signing in again asks for the code after the password
    browser.post(reverse("account_logout"))
    assert browser.get(page).status_code == 302
    response = _sign_in(browser, "olga")
    assert response.status_code == 302
    assert response["Location"] == reverse("mfa_authenticate")
    assert browser.get(page)["Location"].startswith(reverse("account_login"))  # not in yet
    response = browser.post(reverse("mfa_authenticate"), {"code": totp_code(organiser)})
    assert response.status_code == 302
    assert browser.get(page).status_code == 200

    # a recovery code signs in once
    for attempt in ("first", "second"):
        browser.post(reverse("account_logout"))
        assert _sign_in(browser, "olga")["Location"] == reverse("mfa_authenticate")
        response = browser.post(reverse("mfa_authenticate"), {"code": code})
        if attempt == "first":
            assert response.status_code == 302
            assert browser.get(page).status_code == 200
        else:
            assert response.status_code == 200  # the form again, with its error
            assert "Incorrect code" in unescape(response.text)
            assert browser.get(page).status_code == 302


def test_recovery_codes_alone_are_not_a_second_factor(client, phase, organiser):
    Authenticator.objects.create(
        user=organiser, type=Authenticator.Type.RECOVERY_CODES, data={"seed": "00" * 20}
    )
    log_in(client, organiser)
    page = _organise(phase)
    _sent_to_setup(client.get(page), page)


def test_the_profile_links_to_two_factor_authentication(client):
    log_in(client, UserFactory())
    page = client.get(reverse("accounts:profile")).text
    assert f'href="{reverse("mfa_index")}"' in page
    assert client.get(reverse("mfa_index")).status_code == 200


def test_a_superuser_removes_a_lost_authenticator_without_seeing_its_secret(client, phase):
    olga = with_second_factor(UserFactory(username="olga"))
    phase.challenge.organisers.add(olga)
    found = Authenticator.objects.get(user=olga)
    log_in(
        client, with_second_factor(UserFactory(username="root", is_staff=True, is_superuser=True))
    )
    change = reverse("admin:mfa_authenticator_change", args=[found.pk])
    shown = client.get(change)
    assert shown.status_code == 200
    assert "olga" in shown.text and totp_secret(olga) not in shown.text
    assert 'name="data"' not in shown.text  # read only: nothing to edit
    delete = reverse("admin:mfa_authenticator_delete", args=[found.pk])
    assert client.post(delete, {"post": "yes"}).status_code == 302
    assert not Authenticator.objects.filter(user=olga).exists()
    entry = AuditEntry.objects.get(action="admin-deleted")
    assert entry.actor_name == "root" and entry.challenge is None
    # olga's next visit to an organiser page sets up a new one
    log_in(client, olga)
    _sent_to_setup(client.get(_organise(phase)), _organise(phase))
