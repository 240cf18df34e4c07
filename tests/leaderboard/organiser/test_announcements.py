"""Announcements: an organiser posts one from the dashboard; it is on the challenge page
(sanitised, newest first), in the API and in the Atom feed, and in the audit log; with mail,
each member of every approved team gets one message through a real SMTP server, addressed to
them alone, but whoever turned announcement mail off. A mail server that refuses loses nothing:
the post stands and the message is retried. Only the challenge's organisers post or delete;
the reveal can post the final results with the snapshot's link."""

from __future__ import annotations

import email
import email.policy
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable
from typing import Any

import pytest
from django.urls import reverse

from leaderboard.accounts.models import MailPreference
from leaderboard.background import MAIL_ANNOUNCEMENT, MAIL_ANNOUNCEMENT_TO
from leaderboard.challenges.announcements import Announcement
from leaderboard.challenges.audit import AuditEntry
from leaderboard.teams import tasks
from leaderboard.teams.models import Participation
from tests.leaderboard.accounts import conftest as mail_setup
from tests.leaderboard.accounts.conftest import SITE, free_port, use_smtp
from tests.leaderboard.factories import (
    ChallengeFactory,
    ParticipationFactory,
    TeamFactory,
    UserFactory,
    with_second_factor,
)
from tests.leaderboard.organiser.conftest import close
from tests.leaderboard.web import log_in, tight

pytestmark = pytest.mark.django_db

ATOM = "{http://www.w3.org/2005/Atom}"

#: the mail tests' real SMTP server on loopback
smtp = mail_setup.smtp


@pytest.fixture
def announcement_mail(published) -> list[tuple[str, list[object]]]:
    """Run the announcement mail tasks in this process when they are sent (after the commit),
    as a worker would; records (task name, arguments)."""
    sent: list[tuple[str, list[object]]] = []

    def runner(name: str, task: Any) -> Callable[..., None]:
        def run(*args: object) -> None:
            sent.append((name, list(args)))
            task.apply(args=args)

        return run

    published.run[MAIL_ANNOUNCEMENT] = runner(MAIL_ANNOUNCEMENT, tasks.mail_announcement)
    published.run[MAIL_ANNOUNCEMENT_TO] = runner(MAIL_ANNOUNCEMENT_TO, tasks.mail_announcement_to)
    return sent


@pytest.fixture
def challenge_with_teams():
    """A challenge, its organiser, two approved teams (three members, one of them in both
    teams, and a fourth who turned announcement mail off) and a team still waiting."""
    challenge = ChallengeFactory(title="DSTC 12")
    organiser = UserFactory(email="organiser@example.org")
    challenge.organisers.add(with_second_factor(organiser))
    ana, ben, cai = (UserFactory(email=f"{n}@example.org") for n in ("ana", "ben", "cai"))
    quiet = UserFactory(email="quiet@example.org")
    MailPreference.objects.create(user=quiet, announcement_mail=False)
    first = TeamFactory(name="First", created_by=ana)
    first.memberships.create(user=ben)
    first.memberships.create(user=quiet)
    second = TeamFactory(name="Second", created_by=cai)
    second.memberships.create(user=ben)  # in both: still one message
    for team in (first, second):
        ParticipationFactory(team=team, challenge=challenge)
    waiting = TeamFactory(name="Waiting", created_by=UserFactory(email="waiting@example.org"))
    ParticipationFactory(team=waiting, challenge=challenge, status=Participation.Status.PENDING)
    return challenge, organiser


def _post(client, challenge, **fields: str):
    return client.post(reverse("challenges:announce", args=[challenge.slug]), fields)


def test_an_announcement_reaches_each_member_once_and_is_on_the_page_api_and_feed(
    challenge_with_teams, client, smtp, announcement_mail, published, settings,
    django_capture_on_commit_callbacks,
):  # fmt: skip
    challenge, organiser = challenge_with_teams
    log_in(client, organiser)
    with django_capture_on_commit_callbacks(execute=True):
        response = _post(
            client, challenge, title="Test data released",
            body="The **test set** is out: [download](https://example.org/test.zip).",
            mail="on",
        )  # fmt: skip
    assert response.status_code == 302
    posted = Announcement.objects.get()
    assert posted.mailed and posted.author == organiser

    # one fan-out, then one task per person, all on the mail queue
    mail_queue = f"{settings.CELERY_TASK_DEFAULT_QUEUE}-mail"
    assert announcement_mail[0] == (MAIL_ANNOUNCEMENT, [posted.pk])
    assert [name for name, _ in announcement_mail[1:]] == [MAIL_ANNOUNCEMENT_TO] * 3
    assert {queue for _, _, queue in published} == {mail_queue}

    # exactly one message each to ana, ben, cai; none to quiet, the waiting team, the organiser
    wanted = ["ana@example.org", "ben@example.org", "cai@example.org"]
    assert sorted(to for rcpt, _ in smtp.received for to in rcpt) == wanted
    everyone = set(wanted) | {"quiet@example.org", "waiting@example.org"}
    for rcpt, raw in smtp.received:
        (own,) = rcpt
        message = email.message_from_string(raw, policy=email.policy.default)
        assert message["To"] == own
        assert message["Cc"] is None and message["Bcc"] is None
        for other in everyone - {own}:
            assert other not in raw
        assert message["Subject"] == "DSTC 12: Test data released"
        text = message.get_content()
        assert "The **test set** is out" in text
        assert f"{SITE}/challenges/{challenge.slug}/#announcement-{posted.pk}" in text
        assert f"{SITE}/accounts/profile/#mail" in text  # how to stop them

    # on the challenge page, rendered, with the feed linked
    page = client.get(reverse("challenges:detail", args=[challenge.slug])).text
    feed_url = reverse("challenges:announcements_feed", args=[challenge.slug])
    assert '<link rel="alternate" type="application/atom+xml"' in tight(page) and feed_url in page
    assert f'id="announcement-{posted.pk}"' in page
    assert "Test data released" in page and "<strong>test set</strong>" in page

    # in the API
    api = client.get(reverse("api:announcements", args=[challenge.slug])).json()
    assert api["count"] == 1
    (item,) = api["results"]
    assert item["title"] == "Test data released" and item["mailed"] is True
    assert "<strong>test set</strong>" in item["body_html"]
    assert item["url"].endswith(f"/challenges/{challenge.slug}/#announcement-{posted.pk}")

    # in the Atom feed
    feed = client.get(feed_url)
    assert feed["Content-Type"].startswith("application/atom+xml")
    root = ET.fromstring(feed.content)
    (entry,) = root.findall(f"{ATOM}entry")
    assert entry.findtext(f"{ATOM}title") == "Test data released"
    assert "<strong>test set</strong>" in entry.findtext(f"{ATOM}summary")
    assert entry.find(f"{ATOM}link").get("href").endswith(f"#announcement-{posted.pk}")


def test_a_refusing_mail_server_loses_no_announcement_and_the_mail_is_retried(
    challenge_with_teams, client, settings, published, monkeypatch,
    django_capture_on_commit_callbacks,
):  # fmt: skip
    challenge, organiser = challenge_with_teams
    use_smtp(settings, free_port())  # nothing listens there: every connection is refused
    retried: list[dict[str, Any]] = []
    monkeypatch.setattr(
        tasks.mail_announcement_to, "retry", lambda **kw: retried.append(kw) or RuntimeError()
    )
    failures: list[BaseException] = []

    def attempt(announcement_id: int, user_id: int) -> None:
        try:
            tasks.mail_announcement_to.run(announcement_id, user_id)
        except RuntimeError as exc:  # the retry the task raised
            failures.append(exc)

    published.run[MAIL_ANNOUNCEMENT] = lambda pk: tasks.mail_announcement.apply(args=[pk])
    published.run[MAIL_ANNOUNCEMENT_TO] = attempt
    log_in(client, organiser)
    with django_capture_on_commit_callbacks(execute=True):
        response = _post(client, challenge, title="Deadline moved", body="By a week.", mail="on")
    assert response.status_code == 302
    assert Announcement.objects.filter(title="Deadline moved").exists()
    # every person's message was tried, refused, and retried within the declared first delay
    assert len(failures) == len(retried) == 3
    assert all(isinstance(kw["exc"], OSError) and 0 <= kw["countdown"] <= 30 for kw in retried)


def test_only_organisers_post_and_delete_and_both_are_in_the_audit_log(
    challenge_with_teams, client, published, django_capture_on_commit_callbacks
):
    challenge, organiser = challenge_with_teams
    member = Participation.objects.filter(challenge=challenge).first().team.created_by
    url = reverse("challenges:announce", args=[challenge.slug])
    assert client.post(url, {"title": "x", "body": "y"}).status_code == 302  # to log in
    log_in(client, member)
    assert client.post(url, {"title": "Fake", "body": "Fake"}).status_code == 404
    assert client.get(reverse("challenges:organise", args=[challenge.slug])).status_code == 404
    assert not Announcement.objects.exists()

    log_in(client, organiser)
    with django_capture_on_commit_callbacks(execute=True):
        _post(client, challenge, title="Wrong date", body="Closes on the 31st.")
    posted = Announcement.objects.get()
    assert not posted.mailed and published == []  # not mailed: no task sent
    (entry,) = AuditEntry.objects.filter(action="announcement-posted")
    assert entry.actor == organiser and entry.subject == "Wrong date"
    dashboard = client.get(reverse("challenges:organise", args=[challenge.slug])).text
    assert "announcement posted" in dashboard and "Delete Wrong date" in dashboard

    delete = reverse("challenges:delete_announcement", args=[challenge.slug, posted.pk])
    log_in(client, member)
    assert client.post(delete).status_code == 404
    assert Announcement.objects.exists()
    log_in(client, organiser)
    assert client.post(delete).status_code == 302
    assert not Announcement.objects.exists()
    (gone,) = AuditEntry.objects.filter(action="announcement-deleted")
    assert gone.subject == "Wrong date" and gone.before["body"] == "Closes on the 31st."

    # an empty title is refused, the text typed kept
    refused = _post(client, challenge, title="  ", body="Kept text")
    assert refused.status_code == 400 and "Kept text" in refused.text
    assert not Announcement.objects.exists()


def test_markdown_is_sanitised_everywhere_and_the_newest_comes_first(challenge_with_teams, client):
    challenge, organiser = challenge_with_teams
    log_in(client, organiser)
    _post(client, challenge, title="First", body="<script>alert(1)</script> [x](javascript:f())")
    _post(client, challenge, title="Second <b>bold</b>", body="Second text")
    client.logout()  # readers: anyone may read a challenge, and so its announcements
    page = client.get(reverse("challenges:detail", args=[challenge.slug])).text
    section = page.split('id="announcements-heading"')[1].split("</section>")[0]
    assert section.index("Second &lt;b&gt;bold&lt;/b&gt;") < section.index(">First<")
    assert "<script>" not in page.split("<main")[1].split("</main>")[0]
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in section
    assert 'href="javascript:' not in section  # shown as text, never a link
    api = client.get(reverse("api:announcements", args=[challenge.slug])).json()
    assert [a["title"] for a in api["results"]] == ["Second <b>bold</b>", "First"]
    assert "<script>" not in api["results"][1]["body_html"]
    assert 'href="javascript:' not in api["results"][1]["body_html"]
    feed = client.get(reverse("challenges:announcements_feed", args=[challenge.slug])).content
    entries = ET.fromstring(feed).findall(f"{ATOM}entry")
    assert [e.findtext(f"{ATOM}title") for e in entries] == ["Second <b>bold</b>", "First"]
    assert "<script>" not in entries[1].findtext(f"{ATOM}summary")


def test_an_empty_state_and_unknown_challenges(client):
    challenge = ChallengeFactory()
    page = client.get(reverse("challenges:detail", args=[challenge.slug])).text
    assert "No announcements yet" in page
    assert client.get(reverse("api:announcements", args=[challenge.slug])).json()["count"] == 0
    feed = client.get(reverse("challenges:announcements_feed", args=[challenge.slug]))
    assert ET.fromstring(feed.content).findall(f"{ATOM}entry") == []
    assert client.get(reverse("api:announcements", args=["nowhere"])).status_code == 404
    assert client.get(reverse("challenges:announcements_feed", args=["nowhere"])).status_code == 404


def test_the_schema_describes_the_endpoint(client):
    schema = client.get(reverse("api:schema") + "?format=json").json()
    operation = schema["paths"]["/api/v1/challenges/{slug}/announcements/"]["get"]
    assert operation["summary"] == "The announcements of one challenge, newest first"
    listed = operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    page = schema["components"]["schemas"][listed.rsplit("/", 1)[1]]
    item = page["properties"]["results"]["items"]["$ref"].rsplit("/", 1)[1]
    assert set(schema["components"]["schemas"][item]["properties"]) == {
        "id", "title", "body", "body_html", "posted_at", "mailed", "url",
    }  # fmt: skip


def test_the_profile_turns_announcement_mail_off_and_on(client, challenge_with_teams):
    ana = UserFactory()
    log_in(client, ana)
    page = client.get(reverse("accounts:profile")).text
    assert re.search(r'name="announcement_mail"[^>]*checked', page)
    client.post(reverse("accounts:mail"), {"submission_mail": "on"})
    assert MailPreference.objects.get(user=ana).announcement_mail is False
    assert MailPreference.objects.get(user=ana).submission_mail is True
    page = client.get(reverse("accounts:profile")).text
    assert not re.search(r'name="announcement_mail"[^>]*checked', page)
    client.post(reverse("accounts:mail"), {"announcement_mail": "on"})
    assert MailPreference.objects.get(user=ana).announcement_mail is True


def test_the_reveal_can_post_the_final_results_with_the_snapshots_link(
    world, client, smtp, announcement_mail, settings, django_capture_on_commit_callbacks
):
    close(world.phase)
    challenge = world.phase.challenge
    url = reverse("rankings:reveal", args=[challenge.slug, world.phase.slug])
    log_in(client, world.organiser)
    page = client.get(url).text
    assert 'name="announce"' in page
    fingerprint = re.search(r'name="fingerprint" value="([0-9a-f]{64})"', page).group(1)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url, {"fingerprint": fingerprint, "announce": "yes"}, follow=True)
    assert "is posted and being mailed" in response.text
    link = SITE + reverse("rankings:snapshot", args=[challenge.slug, world.phase.slug, 1])
    posted = Announcement.objects.get(challenge=challenge)
    assert posted.title == f"{world.phase.name}: final results" and posted.mailed
    assert link in posted.body
    members = {
        m.user.email
        for team in world.teams.values()
        for m in team.memberships.select_related("user")
    }
    assert members and sorted(r for rcpt, _ in smtp.received for r in rcpt) == sorted(members)
    assert all(link in raw for _, raw in smtp.received)
    # rendered as a link on the challenge page
    detail = client.get(reverse("challenges:detail", args=[challenge.slug])).text
    assert f'<a href="{link}"' in detail
