"""A signed-in read of the leaderboard page (and of every other view that reads a phase's
numbers): whether the reader organises the challenge is answered by the phase's own query
(``Phase.objects.asked_by``, ``read_by``), and the page's header
(``rankings/_header.html``) is rendered once per phase and rights and kept, so a reader of
other rights never gets it, and the phase's dates, state and countdown are never stale."""

from __future__ import annotations

import datetime as dt

import pytest
from django.contrib.auth.models import AnonymousUser
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from leaderboard.challenges.models import Challenge, Phase
from leaderboard.challenges.visibility import access
from tests.leaderboard.factories import (
    UserFactory,
    approved_team,
    phase_with_references,
    with_second_factor,
)
from tests.leaderboard.web import GOLD_BYTES, log_in, scored_submission

pytestmark = pytest.mark.django_db

HEADER = "rankings/_header.html"


@pytest.fixture
def phase():
    return phase_with_references(GOLD_BYTES)


@pytest.fixture
def readers(phase):
    """A participant with a scored submission on the built board, and an organiser."""
    team = approved_team(phase)
    scored_submission(team, phase)
    organiser = UserFactory()
    phase.challenge.organisers.add(with_second_factor(organiser))
    return {"participant": team.created_by, "organiser": organiser, "team": team}


def _url(phase):
    return reverse("rankings:leaderboard", args=[phase.challenge.slug, phase.slug])


def _read(client, phase):
    """(the page's header: everything before the tables; whether the header was rendered)"""
    response = client.get(_url(phase))
    assert response.status_code == 200
    rendered = HEADER in [t.name for t in response.templates]
    return response.text.split('<div id="leaderboard-tables"')[0], rendered


@pytest.mark.parametrize("visibility", [Phase.Visibility.PUBLIC, Phase.Visibility.HIDDEN])
@pytest.mark.parametrize("first", ["organiser", "participant"])
def test_a_kept_header_never_reaches_a_reader_of_other_rights(
    client, phase, readers, visibility, first
):
    Phase.objects.filter(pk=phase.pk).update(results_visibility=visibility)
    second = "participant" if first == "organiser" else "organiser"
    seen: list[str] = []
    for who in (first, second, first, second):
        log_in(client, readers[who])
        header, rendered = _read(client, phase)
        # rendered on each rights class's first read only, then the kept one
        assert rendered == (who not in seen)
        seen.append(who)
        organiser = who == "organiser"
        assert ("Organiser dashboard" in header) is organiser
        # a hidden board's links (the pairwise comparison) are the organiser's only
        shown = organiser or visibility == Phase.Visibility.PUBLIC
        assert ("compare two entries" in header) is shown
        assert "My submissions" in header and "Submit</a>" in header
    client.logout()
    header, rendered = _read(client, phase)
    assert rendered  # anonymous readers are a class of their own
    assert "Organiser dashboard" not in header and "My submissions" not in header
    assert ("compare two entries" in header) is (visibility == Phase.Visibility.PUBLIC)


def test_a_participants_page_asks_whether_they_organise_in_the_phases_query(client, phase, readers):
    log_in(client, readers["participant"])
    client.get(_url(phase))  # warm: the board decoded, the tables and header kept
    with CaptureQueriesContext(connection) as captured:
        assert client.get(_url(phase)).status_code == 200
    # the session, its user, the phase (with the organiser's answer), the stored board's
    # version: four, where the organiser's question was a fifth query of its own
    queries = [q["sql"] for q in captured.captured_queries]
    assert len(queries) == 4, queries
    (asked,) = [sql for sql in queries if "challenge_organisers" in sql]
    assert 'FROM "challenges_phase"' in asked and "EXISTS" in asked.upper()


#: every other page and API view that reads a phase's numbers for a signed-in reader: the
#: analyses, the paper tables, the shake-up and the team's own runs
READ_BY = [
    ("rankings:table", {"suffix": "tex"}),
    ("rankings:pairwise", {}),
    ("rankings:robustness", {}),
    ("rankings:errors", {}),
    ("submissions:mine", {}),
    ("api:table", {}),
    ("api:pairwise", {}),
    ("api:robustness", {}),
    ("api:errors", {}),
    ("api:shakeup", {}),
]


@pytest.mark.parametrize(("name", "extra"), READ_BY, ids=[name for name, _ in READ_BY])
def test_every_reading_view_asks_whether_they_organise_in_the_phases_query(
    client, phase, readers, name, extra
):
    log_in(client, readers["participant"])
    # the API names a phase by its id, the pages by the challenge's and the phase's slugs
    if name.startswith("api:"):
        url = reverse(name, kwargs={"pk": phase.pk})
    else:
        url = reverse(name, kwargs={"slug": phase.challenge.slug, "phase": phase.slug, **extra})
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code < 500
    # the question is asked, and only inside the query that loads the phase
    asked = [q["sql"] for q in captured.captured_queries if "challenge_organisers" in q["sql"]]
    assert asked, url
    assert all('FROM "challenges_phase"' in sql for sql in asked), asked


def test_an_organisers_page_costs_one_query_more_and_shows_them_as_organiser(
    client, phase, readers
):
    # the reader's four, and whether the organiser has a second factor (hidden numbers need
    # it): asked of organisers only, so no other reader pays for the question
    log_in(client, readers["organiser"])
    client.get(_url(phase))
    with CaptureQueriesContext(connection) as captured:
        header, _ = _read(client, phase)
    queries = [q["sql"] for q in captured.captured_queries]
    assert len(queries) == 5 and sum("mfa_authenticator" in sql for sql in queries) == 1
    assert "Organiser dashboard" in header


def test_an_anonymous_reader_does_not_pay_for_the_question(client, phase, readers):
    (query,) = [
        q["sql"]
        for q in _queries(lambda: client.get(_url(phase)))
        if 'FROM "challenges_phase"' in q["sql"]
    ]
    assert "challenge_organisers" not in query
    assert "challenge_organisers" not in str(Phase.objects.asked_by(AnonymousUser()).query)


def _queries(run):
    with CaptureQueriesContext(connection) as captured:
        run()
    return captured.captured_queries


def test_the_phases_answer_is_for_the_user_it_was_asked_for(phase, readers):
    organiser, participant = readers["organiser"], readers["participant"]
    for asker in (organiser, participant):
        loaded = Phase.objects.select_related("challenge").asked_by(asker).get(pk=phase.pk)
        # the answer the query has: no query of its own
        assert not _queries(lambda: loaded.is_organised_by(asker))  # noqa: B023
        assert loaded.is_organised_by(asker) is (asker == organiser)
        assert access(loaded, asker).organiser is (asker == organiser)
        # another user is asked about with a query, never given the asker's answer
        other = participant if asker == organiser else organiser
        assert len(_queries(lambda: loaded.is_organised_by(other))) == 1  # noqa: B023
        assert loaded.is_organised_by(other) is (other == organiser)
        assert access(loaded, other).board and access(loaded, other).organiser is (
            other == organiser
        )
        assert not loaded.is_organised_by(AnonymousUser())
    # the one definition, asked alone and in a query of challenges
    assert phase.challenge.is_organised_by(organiser)
    assert not phase.challenge.is_organised_by(participant)
    assert not phase.challenge.is_organised_by(UserFactory(is_staff=True, is_superuser=True))
    assert list(
        Challenge.objects.filter(Challenge.organised_by(organiser)).values_list("pk", flat=True)
    ) == [phase.challenge.pk]


def test_the_header_shows_the_phase_as_it_is_after_an_edit(client, phase, readers):
    log_in(client, readers["participant"])
    header, _ = _read(client, phase)
    assert f"{phase.closes_at:%-d %b %Y}" in header and "<h1>Test leaderboard</h1>" in header
    # edited as in the admin: the same stored board (no new build), another header
    edited = Phase.objects.get(pk=phase.pk)
    edited.name = "Renamed"
    edited.closes_at = phase.closes_at + dt.timedelta(days=400)
    edited.save()
    header, rendered = _read(client, phase)
    assert rendered
    assert "<h1>Renamed leaderboard</h1>" in header
    assert f"{edited.closes_at:%-d %b %Y}" in header
    assert f"{phase.closes_at:%-d %b %Y}" not in header
    # and the challenge's own fields too
    Challenge.objects.filter(pk=phase.challenge.pk).update(title="Another title")
    assert ">Another title</a>" in _read(client, phase)[0]


def test_the_state_follows_the_clock_and_the_countdown_is_never_kept(
    client, phase, readers, monkeypatch
):
    closes = timezone.now() + dt.timedelta(hours=2)
    Phase.objects.filter(pk=phase.pk).update(closes_at=closes)
    log_in(client, readers["participant"])
    header, rendered = _read(client, phase)
    assert rendered and "(closes in 1\xa0hour" in header and "Submit</a>" in header
    # the countdown is the page's own: an hour later it reads so, from the kept header
    monkeypatch.setattr("leaderboard.challenges.wording.timeuntil", lambda *a: "59\xa0minutes")
    header, rendered = _read(client, phase)
    assert not rendered and "(closes in 59\xa0minutes)" in header
    # past the close, without a write: the phase reads closed, with no link to submit
    later = closes + dt.timedelta(hours=1)
    monkeypatch.setattr("django.utils.timezone.now", lambda: later)
    header, rendered = _read(client, phase)
    assert rendered
    assert 'state-closed">closed</span>' in header
    assert "closes in" not in header and "Submit</a>" not in header
