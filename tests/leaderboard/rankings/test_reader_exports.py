"""The readers' exports of a phase (``leaderboard.json``, ``leaderboard.csv``) and the page's
links to them, for an anonymous reader, a participant and an organiser, on a hidden phase and a
public one: a reader who may not see the results is offered no download, and the exports
answer them as the page does ("hidden until the organisers reveal them", here a 404), never a
file of headers; ``?snapshot=N`` serves published snapshot N of the phase, the way the paper
tables and the analyses take it, and nothing else (404).

One team's run scores JGA 75.00 on the gold of ``tests/leaderboard/web.py`` (``JGA``), so a
leak of the hidden board would show ``75.0`` or the run's method name."""

from __future__ import annotations

import csv
import io

import pytest
from django.test import Client
from django.urls import reverse

from leaderboard.challenges.models import Phase
from leaderboard.rankings.models import Snapshot
from leaderboard.rankings.snapshots import reveal
from tests.leaderboard.boards import built
from tests.leaderboard.factories import (
    UserFactory,
    approved_team,
    phase_with_references,
    with_second_factor,
)
from tests.leaderboard.organiser.conftest import close
from tests.leaderboard.web import GOLD_BYTES, log_in, scored_submission, shows_hand_worked

pytestmark = pytest.mark.django_db

METHOD = "Kestrel tracker"
HIDDEN_MESSAGE = "Results are hidden until the organisers reveal them."


def _world(visibility: str) -> tuple[Phase, dict[str, Client]]:
    """A phase with one team's scored run, and a client per reader: anonymous, a member of
    that team, an organiser of the challenge."""
    phase = phase_with_references(GOLD_BYTES, results_visibility=visibility)
    team = approved_team(phase)
    scored_submission(team, phase, method=METHOD)
    organiser = UserFactory()
    phase.challenge.organisers.add(with_second_factor(organiser))
    clients = {"anonymous": Client(), "participant": Client(), "organiser": Client()}
    log_in(clients["participant"], team.created_by)
    log_in(clients["organiser"], organiser)
    return phase, clients


def _urls(phase: Phase) -> dict[str, str]:
    args = [phase.challenge.slug, phase.slug]
    return {
        "json": reverse("rankings:export-json", args=args),
        "csv": reverse("rankings:export-csv", args=args),
    }


def _page(client: Client, phase: Phase) -> str:
    return client.get(reverse("rankings:leaderboard", args=[phase.challenge.slug, phase.slug])).text


@pytest.mark.parametrize("who", ["anonymous", "participant"])
def test_a_hidden_board_offers_readers_no_download_and_answers_them_404(who):
    phase, clients = _world(Phase.Visibility.HIDDEN)
    client = clients[who]
    # twice: the page's header is kept per rights, and the second one comes from the cache
    for _ in range(2):
        page = _page(client, phase)
        assert HIDDEN_MESSAGE in page
        for url in _urls(phase).values():
            assert url not in page
    for kind, url in _urls(phase).items():
        response = client.get(url)
        assert response.status_code == 404, kind
        text = response.content.decode()
        assert HIDDEN_MESSAGE in text, kind
        assert METHOD not in text and not shows_hand_worked(text), kind
        assert "Content-Disposition" not in response, kind
        control = {part.strip() for part in response["Cache-Control"].split(",")}
        assert "private" in control and "public" not in control, kind
        assert "Access-Control-Allow-Origin" not in response, kind


def test_organisers_keep_the_downloads_of_a_hidden_board():
    phase, clients = _world(Phase.Visibility.HIDDEN)
    client = clients["organiser"]
    page = _page(client, phase)
    urls = _urls(phase)
    assert urls["csv"] in page and urls["json"] in page
    data = client.get(urls["json"]).json()
    (row,) = data["public"]["overview"]
    assert row["method_name"] == METHOD
    lines = list(csv.DictReader(io.StringIO(client.get(urls["csv"]).text)))
    assert [line["method"] for line in lines if line["condition"] == "overview"] == [METHOD]
    # and the readers after the organiser are still refused: nothing of theirs was kept
    for who in ("anonymous", "participant"):
        assert urls["csv"] not in _page(clients[who], phase), who
        assert clients[who].get(urls["json"]).status_code == 404, who


@pytest.mark.parametrize("who", ["anonymous", "participant", "organiser"])
def test_a_public_board_offers_every_reader_its_downloads(who):
    phase, clients = _world(Phase.Visibility.PUBLIC)
    client = clients[who]
    page = _page(client, phase)
    urls = _urls(phase)
    assert urls["csv"] in page and urls["json"] in page
    data = client.get(urls["json"]).json()
    assert [r["method_name"] for r in data["public"]["overview"]] == [METHOD]
    assert data["final"] is None
    text = client.get(urls["csv"]).text
    assert METHOD in text and len(text.splitlines()) > 1


def _revealed_twice() -> tuple[Phase, dict[str, Client]]:
    """The hidden phase, closed and revealed twice: snapshots 1 and 2."""
    phase, clients = _world(Phase.Visibility.HIDDEN)
    close(phase)
    organiser = phase.challenge.organisers.get()
    for _ in range(2):
        reveal(phase, organiser)
        built(phase)  # as the board's worker builds them after the reveal
    phase.refresh_from_db()
    return phase, clients


@pytest.mark.parametrize("who", ["anonymous", "participant", "organiser"])
def test_the_snapshot_parameter_chooses_a_published_snapshot(who):
    phase, clients = _revealed_twice()
    client = clients[who]
    urls = _urls(phase)
    # without it, the latest; asked first so that a kept answer would show
    assert client.get(urls["json"]).json()["final"]["snapshot"] == 2
    data = client.get(urls["json"] + "?snapshot=1").json()
    assert data["final"]["snapshot"] == 1
    assert [r["method_name"] for r in data["final"]["overview"]] == [METHOD]
    lines = list(csv.DictReader(io.StringIO(client.get(urls["csv"] + "?snapshot=1").text)))
    shows = {line["shows"] for line in lines if line["board"] == "final"}
    assert shows and all(s.startswith("final ranking (snapshot 1)") for s in shows)
    assert client.get(urls["json"] + "?snapshot=2").json()["final"]["snapshot"] == 2


@pytest.mark.parametrize("who", ["anonymous", "participant", "organiser"])
def test_a_snapshot_that_is_not_one_of_this_phase_is_a_404(who):
    phase, clients = _revealed_twice()
    other = phase_with_references(GOLD_BYTES)
    Snapshot.objects.create(phase=other, number=3, data=phase.snapshots.get(number=1).data)
    client = clients[who]
    for value in ("3", "0", "abc", "-1", "1.5"):
        for kind, url in _urls(phase).items():
            response = client.get(f"{url}?snapshot={value}")
            assert response.status_code == 404, (kind, value)
            assert "Content-Disposition" not in response, (kind, value)


@pytest.mark.parametrize("who", ["anonymous", "participant"])
def test_a_snapshot_readers_may_not_see_is_never_served(who):
    phase, clients = _revealed_twice()
    # the phase hidden again (the organisers took the reveal back in the admin)
    Phase.objects.filter(pk=phase.pk).update(revealed=False)
    Phase.changed(phase.pk)
    for kind, url in _urls(phase).items():
        response = clients[who].get(f"{url}?snapshot=1")
        assert response.status_code == 404, kind
        text = response.content.decode()
        assert METHOD not in text and not shows_hand_worked(text), kind
    # the organisers still have it
    organiser = clients["organiser"].get(_urls(phase)["json"] + "?snapshot=1")
    assert organiser.status_code == 200 and organiser.json()["final"]["snapshot"] == 1


@pytest.mark.parametrize("who", ["anonymous", "participant", "organiser"])
def test_a_public_phase_without_a_snapshot_answers_404_for_one(who):
    phase, clients = _world(Phase.Visibility.PUBLIC)
    for kind, url in _urls(phase).items():
        assert clients[who].get(f"{url}?snapshot=1").status_code == 404, kind
