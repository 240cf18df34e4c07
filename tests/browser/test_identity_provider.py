"""Sign-in through an OpenID Connect provider, in Chromium, against a real provider running on
loopback (oidc-provider-mock): a new person signs up through it and lands with a confirmed
address, creates a team, registers it and submits; signs out; signs in through the provider
again and lands in the same account."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from allauth.socialaccount.models import SocialAccount
from django.contrib.auth import get_user_model
from oidc_provider_mock import User, run_server_in_thread

from leaderboard.background import SEND_ACCOUNT_MAIL
from leaderboard.submissions.models import Submission
from leaderboard.teams.services import address_confirmed
from tests.browser.conftest import screenshot
from tests.leaderboard.factories import KEYS, phase_with_references
from tests.leaderboard.providers import use_provider
from tests.leaderboard.web import GOLD_BYTES, PREDICTION

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def page(browser, live_server) -> Iterator[Any]:
    """The browser tests' page (``conftest.page``), failing the test on a console error of the
    site's pages; the provider's own pages (not ours: they load a style sheet from a CDN this
    machine cannot reach) are left alone."""
    context = browser.new_context(base_url=live_server.url)
    page = context.new_page()
    errors: list[str] = []

    def ours(text: str) -> None:
        if page.url.startswith(live_server.url):
            errors.append(f"{page.url}: {text}")

    page.on("console", lambda m: ours(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: ours(str(e)))
    yield page
    context.close()
    assert errors == [], f"browser console errors: {errors}"


@pytest.fixture
def provider(settings) -> Iterator[str]:
    """A provider that knows Ada, whose address it verified."""
    ada = User(sub="ada", claims={"email": "ada@example.org", "email_verified": True})
    with run_server_in_thread(port=0, user_claims=[ada]) as server:
        issuer = f"http://localhost:{server.server_port}"
        use_provider(settings, issuer)
        yield issuer


def _through_the_provider(page: Any, start: str) -> None:
    """From the log-in or sign-up page: the provider's button, allauth's "continue", the
    provider's authorization page (Ada's subject), and back."""
    page.goto(start)
    page.get_by_role("link", name="Campus ID").click()
    page.locator("main button[type=submit]").click()  # allauth's page: continue to the provider
    page.wait_for_selector("input[name=sub]")
    page.fill("input[name=sub]", "ada")
    page.get_by_role("button", name="Authorize").click()
    page.wait_for_url(lambda url: "/accounts/oidc/" not in url and "localhost" in url)
    page.wait_for_load_state()


def test_a_new_person_signs_up_through_the_provider_takes_part_and_comes_back(
    page, provider, enqueued, published, tmp_path
):
    phase = phase_with_references(GOLD_BYTES, daily_quota=5)
    challenge = phase.challenge
    prediction = tmp_path / "prediction.json"
    prediction.write_text(json.dumps(PREDICTION))

    _through_the_provider(page, "/accounts/signup/")
    # signed in, an account made, its address confirmed by the provider's word: no mail sent
    [person] = get_user_model().objects.all()
    assert person.email == "ada@example.org" and address_confirmed(person)
    assert SEND_ACCOUNT_MAIL not in [name for name, _, _ in published]
    assert person.get_username() in page.inner_text("header")
    page.goto("/accounts/profile/")
    assert "ada@example.org (confirmed)" in page.inner_text("main")
    screenshot(page, "provider-profile")

    page.goto("/teams/new/")
    page.fill("input[name=name]", "Night Owls")
    page.click("main button[type=submit]")
    page.goto(f"/challenges/{challenge.slug}/")
    page.get_by_role("button", name="Register team Night Owls").click()
    page.wait_for_selector("text=Night Owls is registered")
    page.goto(f"/challenges/{challenge.slug}/{phase.slug}/submit/")
    for key in KEYS:
        page.set_input_files(f"input[name=file_{key}]", str(prediction))
    page.fill("input[name=method_name]", "Owl tracker")
    page.click("main button[type=submit]")
    page.wait_for_url("**/submissions/*/")
    submission = Submission.objects.get()
    assert submission.submitter == person and enqueued == [submission.pk]

    # signs out, then in again through the provider: the same account
    page.get_by_role("button", name="Log out").click()
    page.wait_for_selector("header >> text=Log in")
    _through_the_provider(page, "/accounts/login/")
    assert person.get_username() in page.inner_text("header")
    assert get_user_model().objects.count() == 1
    assert list(SocialAccount.objects.values_list("user", "provider", "uid")) == [
        (person.pk, "oidc", "ada")
    ]
