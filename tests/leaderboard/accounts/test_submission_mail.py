"""Submission mail through a real SMTP server on loopback: the SMTP settings come from the
environment, the link is absolute on the site's address, one mail per outcome the team has
not been told (none for a re-score to the same outcome), and a member who opted out on the
profile gets none. The sign-up form says what the address is for."""

from __future__ import annotations

import email
import email.policy
import os
import subprocess
import sys

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.urls import reverse

from leaderboard.env import env_site_url
from leaderboard.submissions import services
from leaderboard.submissions.models import Submission
from tests.conftest import ROOT
from tests.leaderboard.accounts.conftest import SITE
from tests.leaderboard.factories import UserFactory, approved_team, phase_with_references
from tests.leaderboard.web import GOLD_BYTES, log_in, scored_submission

pytestmark = pytest.mark.django_db


def test_a_scored_submission_is_mailed_with_an_absolute_link_and_opting_out_stops_it(
    smtp, client, django_capture_on_commit_callbacks, notified
):
    phase = phase_with_references(GOLD_BYTES)
    team = approved_team(phase)
    owner = team.created_by
    with django_capture_on_commit_callbacks(execute=True):
        run = scored_submission(team, phase)
    assert len(smtp.received) == 1
    to, message = smtp.received[0]
    assert to == [owner.email]
    assert f"Subject: Submission #{run.pk} to" in message and "is scored" in message
    assert f"{SITE}/submissions/{run.pk}/" in message
    assert f"{SITE}/accounts/profile/" in message  # how to stop them

    # An organiser's re-score to the same outcome tells the team nothing new.
    with django_capture_on_commit_callbacks(execute=True):
        services.rescore(run, enqueue=False)
        assert services.run_scoring(run.pk) == "scored"
    assert len(smtp.received) == 1

    # The owner turns it off on the profile page: the next outcome is not mailed.
    log_in(client, owner)
    page = client.get(reverse("accounts:profile")).text
    assert "E-mail me about my teams" in page and "checked" in page
    response = client.post(reverse("accounts:mail"), {}, follow=True)
    assert "You will get no more e-mail about your team&#x27;s submissions." in response.text
    assert "checked" not in response.text.split('id="mail"')[1].split("</form>")[0]
    with django_capture_on_commit_callbacks(execute=True):
        scored_submission(team, phase, "second")
    assert len(smtp.received) == 1
    # ... and back on.
    client.post(reverse("accounts:mail"), {"submission_mail": "on"})
    with django_capture_on_commit_callbacks(execute=True):
        third = scored_submission(team, phase, "third")
    assert len(smtp.received) == 2 and f"{SITE}/submissions/{third.pk}/" in smtp.received[1][1]


def test_a_failed_submission_scored_after_all_is_one_more_mail(
    smtp, django_capture_on_commit_callbacks, notified
):
    phase = phase_with_references(GOLD_BYTES)
    team = approved_team(phase)
    other = UserFactory()
    team.memberships.create(user=other)
    with django_capture_on_commit_callbacks(execute=True):
        run = scored_submission(team, phase)
    assert [sorted(to) for to, _ in smtp.received] == [sorted([team.created_by.email, other.email])]
    # it failed (as a reference change can make it), the team was told, then it is re-queued
    Submission.objects.filter(pk=run.pk).update(status="failed", notified_status="failed")
    with django_capture_on_commit_callbacks(execute=True):
        services.rescore(run, enqueue=False, include_failed=True)
        assert services.run_scoring(run.pk) == "scored"
    assert len(smtp.received) == 2 and "is scored" in smtp.received[1][1]


def test_the_sign_up_form_says_what_the_address_is_for(client):
    page = client.get(reverse("account_signup")).text
    assert "Used only to reset your password" not in page
    assert "to tell you when your team's submissions are scored or fail" in page
    assert "turn that off on your profile" in page


@pytest.mark.parametrize(
    "value", ["trackboard.example.org", "ftp://x.org", "https://", "https://x.org/?a=1"]
)
def test_the_site_address_must_be_an_http_address(monkeypatch, value):
    monkeypatch.setenv("TRACKBOARD_X", value)
    with pytest.raises(ImproperlyConfigured, match="TRACKBOARD_X"):
        env_site_url("TRACKBOARD_X", "http://localhost:8000")


def test_the_site_address_loses_its_trailing_slash(monkeypatch):
    monkeypatch.setenv("TRACKBOARD_X", "https://example.org/board/")
    assert env_site_url("TRACKBOARD_X", "") == "https://example.org/board"


def _settings_with(**env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("EMAIL_")}
    environ.update(DJANGO_SETTINGS_MODULE="leaderboard.settings", **env)
    code = (
        "from django.conf import settings as s; "
        "print(s.EMAIL_BACKEND, s.EMAIL_HOST, s.EMAIL_PORT, s.EMAIL_HOST_USER, "
        "s.EMAIL_HOST_PASSWORD, s.EMAIL_USE_TLS, s.EMAIL_USE_SSL, s.EMAIL_TIMEOUT, s.SITE_URL)"
    )
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=environ, capture_output=True, text=True
    )


def test_smtp_settings_come_from_the_environment():
    done = _settings_with(
        EMAIL_HOST="mail.example.org",
        EMAIL_PORT="587",
        EMAIL_HOST_USER="board",
        EMAIL_HOST_PASSWORD="s3cret",
        EMAIL_USE_TLS="true",
        EMAIL_TIMEOUT="7",
        TRACKBOARD_SITE_URL="https://board.example.org/",
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [
        "django.core.mail.backends.smtp.EmailBackend",
        "mail.example.org",
        "587",
        "board",
        "s3cret",
        "True",
        "False",
        "7",
        "https://board.example.org",
    ]
    # without a host, mail goes to the console (development)
    assert _settings_with().stdout.split()[0] == "django.core.mail.backends.console.EmailBackend"
    both = _settings_with(EMAIL_HOST="m", EMAIL_USE_TLS="1", EMAIL_USE_SSL="1")
    assert done.returncode == 0 and both.returncode != 0
    assert "EMAIL_USE_TLS and EMAIL_USE_SSL cannot both be true" in both.stderr


def test_a_condition_refused_by_a_new_reference_and_scored_again_is_two_more_mails(
    smtp, django_capture_on_commit_callbacks, notified
):
    import json

    from leaderboard.challenges.services import activate_reference, add_reference
    from tests.leaderboard.web import GOLD

    phase = phase_with_references(GOLD_BYTES)
    team = approved_team(phase)
    with django_capture_on_commit_callbacks(execute=True):
        run = scored_submission(team, phase)
    condition = phase.conditions.get(key="tts-verbatim")
    old = condition.active_reference()
    lacking = json.dumps({"mul0001": GOLD["mul0001"]}).encode()
    for reference in ("new", "old"):
        with django_capture_on_commit_callbacks(execute=True):
            if reference == "new":
                add_reference(condition, lacking, "v2.json")
            else:
                activate_reference(old)
            services.rescore(run, enqueue=False)
            assert services.run_scoring(run.pk) == "scored"
    subjects = [
        str(email.message_from_string(m, policy=email.policy.default)["Subject"])
        for _, m in smtp.received
    ]
    assert len(subjects) == 3
    assert subjects[0].endswith("is scored")
    assert subjects[1].endswith("is scored, but not on every condition")
    assert "sng0002" in smtp.received[1][1]
    assert subjects[2].endswith("is scored")
