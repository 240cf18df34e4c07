"""Pages for what went wrong, and what only applies somewhere: site-styled 400/403/404/500/503
pages (the 500 and 503 ones rendered without touching the database), the snapshots page before
a reveal, the final-selection button only where a private board exists, and one time format
with its zone on every page."""

from __future__ import annotations

import datetime as dt
import json
import re

import pytest
from django.contrib.auth.models import User
from django.db.utils import OperationalError
from django.test import Client, RequestFactory
from django.urls import reverse

from leaderboard.challenges.models import Phase
from leaderboard.challenges.templatetags.times import moment, when
from leaderboard.demo import dstc11
from leaderboard.rankings.snapshots import reveal
from leaderboard.submissions.models import Submission
from leaderboard.views import server_error
from tests.leaderboard.boards import built
from tests.leaderboard.factories import phase_with_references
from tests.leaderboard.submissions.test_result_page import _other_task_phase, _scored
from tests.leaderboard.task_data import DVD_PARTIAL, MWZ_PARTIAL
from tests.leaderboard.web import GOLD_BYTES, PREDICTION, log_in

LAYOUT = '<nav aria-label="Main">'
#: A time as every page writes it: day, month, year, 24-hour time and the zone.
TIME = re.compile(r"^\d{1,2} [A-Z][a-z]{2} \d{4} [0-2]\d:[0-5]\d [A-Z]{3,5}$")


def _site_page(response, status: int, *phrases: str) -> None:
    text = response.content.decode()
    assert response.status_code == status
    assert response["Content-Type"].startswith("text/html")
    assert LAYOUT in text and "trackboard.css" in text
    for phrase in phrases:
        assert phrase in text
    for leak in ("Traceback", "URLconf", "DEBUG = True", 'File "'):
        assert leak not in text


@pytest.mark.django_db
def test_an_unknown_address_is_the_site_styled_404(client):
    _site_page(client.get("/no-such-page/"), 404, "There is no such page", "Error 404")
    # A page the reader may not see is the same page (not a 403 that would confirm it exists).
    challenge = dstc11.build()
    client.force_login(User.objects.get(username="alice"))
    other = Submission.objects.filter(team__name="Team Beta").first()
    _site_page(client.get(f"/submissions/{other.pk}/"), 404, "There is no such page")
    assert challenge.slug == dstc11.SLUG


# No database mark: any query while rendering would fail the test.
def test_the_500_page_renders_without_the_database():
    request = RequestFactory().get("/challenges/")
    try:
        raise RuntimeError("secret detail of the failure")
    except RuntimeError:
        response = server_error(request)
    _site_page(response, 500, "The site failed to answer", "Error 500")
    assert "secret detail" not in response.content.decode()


def test_a_lost_database_is_the_site_styled_503_with_a_retry_hint():
    request = RequestFactory().get("/challenges/dstc11/test/leaderboard/")
    try:
        raise OperationalError("server closed the connection unexpectedly")
    except OperationalError:
        response = server_error(request)
    _site_page(response, 503, "unavailable for a moment", "could not reach its database")
    assert int(response["Retry-After"]) > 0
    assert "server closed" not in response.content.decode()
    # The API keeps its JSON error shape.
    api = RequestFactory().get("/api/v1/challenges/")
    try:
        raise OperationalError("gone")
    except OperationalError:
        answer = server_error(api)
    assert answer.status_code == 503
    assert json.loads(answer.content)["error"]["code"] == "unavailable"


@pytest.mark.django_db
def test_bad_requests_and_expired_forms_get_site_pages():
    _site_page(Client().get("/challenges/?q=%00"), 400, "contains a NUL character", "Error 400")
    strict = Client(enforce_csrf_checks=True)
    refused = strict.post(reverse("account_login"), {"login": "a", "password": "b"})
    _site_page(refused, 403, "The form had expired", "Error 403")


@pytest.mark.django_db
def test_the_snapshots_page_before_a_reveal_says_nothing_is_published(client):
    challenge = dstc11.build()
    hidden = challenge.phases.get(slug=dstc11.HIDDEN_SLUG)
    url = reverse("rankings:snapshots", args=[challenge.slug, hidden.slug])
    before = client.get(url)
    assert before.status_code == 200
    assert "Nothing is published yet" in before.text and "after the phase closes" in before.text
    assert "Snapshot 1" not in before.text
    # Closed and revealed by the organiser: the same page lists the snapshot for every reader.
    hidden.closes_at = hidden.opens_at + dt.timedelta(hours=1)
    hidden.save()
    Phase.changed(hidden.pk)  # as the admin marks its edits
    hidden = built(hidden)  # and the board's worker builds the boards once committed
    reveal(hidden, User.objects.get(username=dstc11.ORGANISER))
    after = client.get(url)
    assert after.status_code == 200 and "Snapshot 1" in after.text
    assert "Nothing is published yet" not in after.text


@pytest.mark.django_db
def test_the_final_selection_button_shows_only_where_a_private_board_exists(client):
    challenge = dstc11.build()
    client.force_login(User.objects.get(username="alice"))
    mine = Submission.objects.filter(team__name="Team Alpha", status="scored")
    public = mine.get(phase__slug="test")  # public results, no split: no private board
    hidden = mine.get(phase__slug=dstc11.HIDDEN_SLUG)  # hidden, split: a private board
    assert not public.phase.has_private_board and hidden.phase.has_private_board
    button = "Select as final submission"
    assert button not in client.get(reverse("submissions:detail", args=[public.pk])).text
    assert button in client.get(reverse("submissions:detail", args=[hidden.pk])).text
    assert challenge.slug == dstc11.SLUG


def test_times_are_24_hour_with_their_zone(settings):
    moment_utc = dt.datetime(2026, 1, 5, 13, 7, tzinfo=dt.UTC)
    assert moment(moment_utc) == "5 Jan 2026 13:07 UTC"
    assert str(when(moment_utc)) == (
        '<time datetime="2026-01-05T13:07:00+00:00">5 Jan 2026 13:07 UTC</time>'
    )
    settings.TIME_ZONE = "Europe/Berlin"  # an hour ahead of UTC in January, 2 in July
    assert moment(moment_utc) == "5 Jan 2026 14:07 CET"
    assert moment(dt.datetime(2026, 7, 5, 13, 7, tzinfo=dt.UTC)) == "5 Jul 2026 15:07 CEST"
    assert moment(None) == "—"


@pytest.mark.django_db
def test_every_time_on_the_pages_has_one_format(client):
    challenge = dstc11.build()
    built(challenge.phases.get(slug="test"))  # as the demo command builds its boards
    submission = Submission.objects.filter(team__name="Team Alpha", phase__slug="test").first()
    client.force_login(User.objects.get(username="alice"))
    pages = [
        reverse("challenges:detail", args=[challenge.slug]),
        reverse("rankings:leaderboard", args=[challenge.slug, "test"]),
        reverse("submissions:mine", args=[challenge.slug, "test"]),
        reverse("submissions:detail", args=[submission.pk]),
        reverse("submissions:submit", args=[challenge.slug, "test"]),
        reverse("accounts:profile"),
    ]
    seen = 0
    for url in pages:
        page = client.get(url).text
        for text in re.findall(r"<time datetime=\"[^\"]+\">([^<]*)</time>", page):
            assert TIME.match(text), (url, text)
            seen += 1
        assert not re.search(r"\d(?: ?[ap]\.?m\.?)\b", page, re.I), url
    assert seen >= 10
    # Every page loads the script that writes these times in the reader's own zone.
    assert all('src="/static/js/times.js"' in client.get(url).text for url in pages)


@pytest.mark.django_db
@pytest.mark.parametrize("task", ["dstc11", "multiwoz22", "dvd"])
def test_every_task_the_button_and_the_snapshots_page_follow_the_phase(client, task):
    def phase(**kwargs):
        if task == "dstc11":
            return phase_with_references(GOLD_BYTES, keys=("first", "second"), **kwargs)
        return _other_task_phase(task, **kwargs)

    run = {"dstc11": PREDICTION, "multiwoz22": MWZ_PARTIAL, "dvd": DVD_PARTIAL}[task]
    button = "Select as final submission"
    for kwargs, shown in (
        ({}, False),  # public results, no split: the live board is the final one
        ({"split_fraction": 0.5}, True),
        ({"results_visibility": "hidden"}, True),
    ):
        made_phase = phase(**kwargs)
        team, made = _scored(made_phase, {"first": run, "second": run})
        log_in(client, team.created_by)
        page = client.get(reverse("submissions:detail", args=[made.pk])).text
        assert (button in page) is shown, (task, kwargs)
        client.logout()
        url = reverse("rankings:snapshots", args=[made_phase.challenge.slug, made_phase.slug])
        listing = client.get(url)
        assert listing.status_code == 200 and "Nothing is published yet" in listing.text
