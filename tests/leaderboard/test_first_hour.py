"""The first hour on a fresh checkout: the "check your e-mail" pages say where the mail of the
embedded default goes (printed in the terminal running scripts/run); scripts/run says so too,
and prints each line of its start-up once (the demo's logins in its banner only, no django-axes
version line from each process, no kombu warning about a missing host)."""

from __future__ import annotations

import io
import logging
import logging.config
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client, override_settings
from django.urls import reverse
from kombu import Connection

from leaderboard.demo import dstc11

ROOT = Path(__file__).resolve().parents[2]
CONSOLE = "django.core.mail.backends.console.EmailBackend"
SMTP = "django.core.mail.backends.smtp.EmailBackend"


@pytest.mark.django_db
@pytest.mark.parametrize(("backend", "said"), [(CONSOLE, True), (SMTP, False)])
def test_check_your_email_pages_say_where_printed_mail_goes(backend, said):
    client = Client()
    # a new account, its address not confirmed yet
    client.force_login(get_user_model().objects.create_user("new", "new@example.org", "pw"))
    with override_settings(EMAIL_BACKEND=backend):
        pages = [
            client.get(reverse("accounts:profile")),  # where sign-up lands
            client.get(reverse("account_reset_password_done")),
        ]
    for page in pages:
        assert page.status_code == 200
        assert ('id="mail-printed"' in page.content.decode()) is said
        assert ("in the terminal that runs it" in page.content.decode()) is said


@pytest.mark.django_db
def test_the_demo_prints_its_logins_only_when_asked():
    loud, quiet = io.StringIO(), io.StringIO()
    call_command("demo", stdout=loud)
    call_command("demo", verbosity=0, stdout=quiet)
    for username, password, _ in dstc11.logins():
        assert f"login {username} / {password}" in loud.getvalue()
        assert username not in quiet.getvalue()


def test_scripts_run_prints_the_logins_once_and_says_where_mail_goes():
    script = (ROOT / "scripts" / "run").read_text()
    assert re.search(r"manage\.py demo -v 0\n", script)
    for username, _, _ in dstc11.logins():
        # the banner's own list: one line a login
        assert len(re.findall(rf"^    {username} +- ", script, flags=re.MULTILINE)) == 1
    assert "printed in this terminal" in script


def test_axes_version_line_is_not_logged_by_every_process():
    assert settings.LOGGING["loggers"]["axes.apps"]["level"] == "WARNING"
    logging.config.dictConfig(settings.LOGGING)
    assert not logging.getLogger("axes.apps").isEnabledFor(logging.INFO)
    assert logging.getLogger("axes.apps").isEnabledFor(logging.WARNING)


def test_the_embedded_broker_url_names_a_host_so_kombu_does_not_warn(caplog):
    """The embedded mode's URL (read from the settings' source: these tests may run on
    Redis) is answered without kombu's warning, which the bare URL draws."""
    source = (ROOT / "leaderboard" / "settings.py").read_text()
    (url,) = re.findall(r'CELERY_BROKER_URL = "(filesystem://[^"]*)"', source)
    for tried, warned in ((url, False), ("filesystem://", True)):
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="kombu.connection"):
            Connection(tried).info()
        assert ("No hostname was supplied" in caplog.text) is warned, tried
