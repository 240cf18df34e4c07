"""Identity providers' rules, against a real OpenID Connect provider on loopback (the pages
through Django's test client, the provider through its own HTTP endpoints): an address the
provider did not verify is not confirmed and never signs into the local account that has it;
with no provider configured, no button shows and a provider's pages are not found; a member's
linked ORCID iD shows on the team page."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest
import requests
from allauth.account.models import EmailAddress
from allauth.socialaccount.models import SocialAccount
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from oidc_provider_mock import User, run_server_in_thread

from leaderboard.background import SEND_ACCOUNT_MAIL
from leaderboard.teams.services import address_confirmed
from tests.leaderboard.factories import TeamFactory, UserFactory
from tests.leaderboard.providers import use_provider

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-unusual-passphrase"


@pytest.fixture
def provider(settings) -> Iterator[str]:
    """A provider with two users whose addresses it did not verify (one an account here has,
    one new) and one whose address it verified."""
    users = [
        User(sub="mallory", claims={"email": "bo@example.org", "email_verified": False}),
        User(sub="eve", claims={"email": "eve@example.org", "email_verified": False}),
        User(sub="ada-at-uni", claims={"email": "Ada@example.org", "email_verified": True}),
    ]
    with run_server_in_thread(port=0, user_claims=users) as server:
        issuer = f"http://localhost:{server.server_port}"
        use_provider(settings, issuer)
        yield issuer


def _sign_in(client: Client, sub: str, process: str = "login") -> Any:
    """The provider's button (a POST), its authorization page answered as ``sub``, and the
    callback with the code it hands back; returns the callback's response."""
    to_provider = client.post(f"/accounts/oidc/oidc/login/?process={process}")
    assert to_provider.status_code == 302
    authorized = requests.post(
        to_provider["Location"], data={"sub": sub}, allow_redirects=False, timeout=10
    )
    assert authorized.status_code in (302, 303), authorized.text[:500]
    back = urlsplit(authorized.headers["Location"])
    return client.get(f"{back.path}?{back.query}")


def test_an_unverified_address_does_not_sign_into_the_account_that_has_it(
    client, provider, published
):
    bo = UserFactory(username="bo", email="bo@example.org")
    bo.set_password(PASSWORD)
    bo.save()
    response = _sign_in(client, "mallory")
    # not signed in as Bo: allauth asks for an account of one's own (another address)
    assert response.status_code == 302 and response["Location"] == "/accounts/3rdparty/signup/"
    assert "_auth_user_id" not in client.session
    assert client.get("/accounts/profile/").status_code == 302  # to the log-in page
    assert not SocialAccount.objects.exists()
    # Bo's account is as it was: its password works, its address stays confirmed
    bo.refresh_from_db()
    assert bo.check_password(PASSWORD) and address_confirmed(bo)
    assert get_user_model().objects.count() == 1


def test_an_unverified_address_is_not_confirmed_and_is_mailed_the_link(
    client, provider, published, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = _sign_in(client, "eve")
    assert response.status_code == 302
    [eve] = get_user_model().objects.all()
    assert client.session["_auth_user_id"] == str(eve.pk)
    assert eve.email == "eve@example.org" and not address_confirmed(eve)
    assert not EmailAddress.objects.get(user=eve).verified
    mailed = [args[0] for name, args, _ in published if name == SEND_ACCOUNT_MAIL]
    assert [(m["to"], m["subject"]) for m in mailed] == [
        (["eve@example.org"], "Confirm your e-mail address for Trackboard")
    ]


def test_a_verified_address_signs_into_the_account_that_has_it_and_links_the_provider(
    client, provider, published
):
    ada = UserFactory(username="ada", email="ada@example.org")
    ada.set_password(PASSWORD)
    ada.save()
    assert _sign_in(client, "ada-at-uni").status_code == 302
    assert client.session["_auth_user_id"] == str(ada.pk)
    assert list(SocialAccount.objects.values_list("user", "uid")) == [(ada.pk, "ada-at-uni")]
    ada.refresh_from_db()
    assert ada.check_password(PASSWORD)  # a confirmed address: the password stays
    assert get_user_model().objects.count() == 1


def test_a_signed_in_person_links_a_provider_from_the_profile(client, provider, published):
    bo = UserFactory(username="bo", email="bo@example.org")
    bo.set_password(PASSWORD)
    bo.save()
    client.post(reverse("account_login"), {"login": "bo", "password": PASSWORD})
    profile = client.get(reverse("accounts:profile")).text
    assert f'href="{reverse("socialaccount_connections")}"' in profile
    connections = client.get(reverse("socialaccount_connections")).text
    assert 'href="/accounts/oidc/oidc/login/?process=connect"' in connections
    # linked whatever the provider's address (it is Bo who asked, signed in), once Bo has
    # typed the password again
    linked = _sign_in(client, "eve", process="connect")
    assert linked["Location"] == reverse("account_reauthenticate")
    assert not SocialAccount.objects.exists()
    done = client.post(reverse("account_reauthenticate"), {"password": PASSWORD})
    assert done["Location"] == reverse("socialaccount_connections")
    assert list(SocialAccount.objects.values_list("user", "uid")) == [(bo.pk, "eve")]
    client.logout()
    assert _sign_in(client, "eve").status_code == 302
    assert client.session["_auth_user_id"] == str(bo.pk)


def test_with_no_provider_configured_nothing_shows(client, settings):
    settings.SOCIALACCOUNT_PROVIDERS = {}
    for path in ("/accounts/login/", "/accounts/signup/"):
        page = client.get(path).text
        assert "Or sign in with" not in page and "/accounts/oidc/" not in page
    client.force_login(UserFactory())
    assert "Sign-in providers" not in client.get(reverse("accounts:profile")).text
    for path in ("/accounts/oidc/oidc/login/", "/accounts/github/login/", "/accounts/orcid/login/"):
        assert client.get(path).status_code == 404
        assert client.post(path).status_code == 404


def test_a_configured_provider_shows_its_button_on_log_in_and_sign_up(client, settings):
    use_provider(settings, "https://id.example.edu", name="University Login")
    for path in ("/accounts/login/", "/accounts/signup/"):
        page = client.get(path).text
        assert "Or sign in with" in page
        assert 'href="/accounts/oidc/oidc/login/?process=login"' in page
        assert "University Login" in page


def test_the_team_page_shows_the_orcid_id_a_member_linked(client, settings):
    settings.ORCID_DOMAIN = "orcid.org"
    team = TeamFactory(list_members=True)
    linked, other = UserFactory(username="lin"), UserFactory(username="oth")
    team.memberships.create(user=linked, role="owner")
    team.memberships.create(user=other)
    SocialAccount.objects.create(user=linked, provider="orcid", uid="0000-0002-1825-0097")
    SocialAccount.objects.create(user=other, provider="oidc", uid="not-an-orcid")
    # the markup's layout aside: one space for a run of whitespace
    page = re.sub(r"\s+", " ", client.get(reverse("teams:detail", args=[team.slug])).text)
    link = '<a href="https://orcid.org/0000-0002-1825-0097" class="orcid" rel="noopener">'
    assert page.count(link) == 1
    assert "not-an-orcid" not in page
