"""Password reset (django-allauth's): the same answer whether the address has an account or
not, the mail composed by the request and sent by the worker's task through a real SMTP server
on loopback, a hung mail server that holds no request up, and resets limited per client address
and per address asked for (the 6th of an hour is refused), from the environment's rates."""

from __future__ import annotations

import re
import smtplib
import statistics
import time

import pytest
from django.test import Client
from django.urls import reverse

from leaderboard.accounts import tasks
from leaderboard.background import SEND_ACCOUNT_MAIL
from leaderboard.celery import app
from tests.leaderboard.accounts.conftest import SITE
from tests.leaderboard.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def dana():
    return UserFactory(username="dana", email="dana@example.org")


@pytest.fixture
def generous(settings):
    settings.ACCOUNT_RATE_LIMITS = {
        **settings.ACCOUNT_RATE_LIMITS,
        "reset_password": "1000/1h/ip,1000/1h/key",
    }


def _ask(client: Client, address: str):
    return client.post(reverse("account_reset_password"), {"email": address})


def test_known_and_unknown_addresses_get_the_same_answer(
    dana, generous, smtp, django_capture_on_commit_callbacks, published, capsys
):
    client = Client()
    timings: dict[str, list[float]] = {"known": [], "unknown": []}
    answers = {}
    for _ in range(5):
        for kind, address in (("known", "DANA@example.org"), ("unknown", "nobody@example.org")):
            started = time.perf_counter()
            with django_capture_on_commit_callbacks(execute=True):
                response = _ask(client, address)
            timings[kind].append(time.perf_counter() - started)
            answers[kind] = (response.status_code, response["Location"])
    # the same redirect to the same page; nothing mailed by the request itself
    done = reverse("account_reset_password_done")
    assert answers["known"] == answers["unknown"] == (302, done)
    assert smtp.received == []
    with capsys.disabled():
        medians = {k: statistics.median(v) * 1000 for k, v in timings.items()}
        print(
            f"\n  password reset request, median of 5: known address {medians['known']:.2f} ms, "
            f"unknown address {medians['unknown']:.2f} ms"
        )
    # a task for the account's address each time, none for the unknown address
    assert [args[0]["to"] for name, args, _ in published] == [["dana@example.org"]] * 5
    # the worker's part: the task mails the composed message, once
    assert tasks.send_account_mail.apply(args=[published[-1][1][0]]).get() == 1
    [(to, message)] = smtp.received
    assert to == ["dana@example.org"] and "Subject: Reset your Trackboard password" in message
    assert re.search(re.escape(SITE) + r"/accounts/password/reset/key/\S+-\S+/", message)


def test_the_request_queues_the_task_by_name_after_the_commit(
    dana, published, monkeypatch, settings, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        _ask(Client(), "dana@example.org")
        assert published == []  # not before the commit
    queue_name = f"{settings.CELERY_TASK_DEFAULT_QUEUE}-mail"  # the mail queue, by default
    [(name, [fields], queue)] = published
    assert (name, queue) == (SEND_ACCOUNT_MAIL, queue_name)
    assert fields["to"] == ["dana@example.org"]
    assert fields["subject"] == "Reset your Trackboard password"
    # a broker that cannot take it costs the mail only, never an error page
    monkeypatch.setattr(app, "send_task", lambda *a, **k: (_ for _ in ()).throw(OSError()))
    with django_capture_on_commit_callbacks(execute=True):
        assert _ask(Client(), "dana@example.org").status_code == 302


def test_a_hung_mail_server_never_holds_the_request_up(
    dana, generous, hung_smtp, django_capture_on_commit_callbacks, monkeypatch, published
):
    # the broker takes the task (published records it)
    with django_capture_on_commit_callbacks(execute=True):
        assert _ask(Client(), "dana@example.org").status_code == 302
    assert hung_smtp.connections == []  # the request never spoke to the mail server
    # the worker's attempt gives up after EMAIL_TIMEOUT and is retried later
    retried = []
    monkeypatch.setattr(
        tasks.send_account_mail, "retry", lambda **kw: retried.append(kw) or RuntimeError()
    )
    with pytest.raises(RuntimeError):
        tasks.send_account_mail.run(published[-1][1][0])
    # it gave up because the server said nothing within EMAIL_TIMEOUT (a client without a
    # timeout would wait until the server hangs up, ``HungServer.GIVE_UP``: another error)
    (attempt,) = retried
    assert isinstance(attempt["exc"], smtplib.SMTPServerDisconnected)
    assert isinstance(attempt["exc"].__context__, TimeoutError)
    # the first retry within the declared policy's first ceiling (30 s, drawn at random below)
    assert 0 <= attempt["countdown"] <= 30
    assert len(hung_smtp.connections) == 1


def test_the_sixth_reset_of_an_hour_is_refused_per_address_and_per_account(dana, published):
    client = Client(REMOTE_ADDR="198.51.100.1")
    codes = [_ask(client, f"someone{n}@example.org").status_code for n in range(6)]
    assert codes == [302] * 5 + [429]
    refused = _ask(client, "dana@example.org")
    assert refused.status_code == 429
    assert "Too many requests" in refused.text and "try again later" in refused.text
    # per account: five from five addresses, the sixth (from a sixth) is refused, for an
    # address with an account as for one without, whatever its capitals
    for address in ("dana@example.org", "ghost@example.org"):
        codes = [
            _ask(Client(REMOTE_ADDR=f"203.0.113.{n}"), address.upper()).status_code
            for n in range(6)
        ]
        assert codes == [302] * 5 + [429], address
