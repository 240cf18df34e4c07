"""The reveal is previewed, then confirmed: the preview's table rows are the published
snapshot's, a ranking that changed after the preview is not published, and only the
challenge's organisers see the preview. Figures from ``construction``'s table: the private
board is B 85.71, C 42.86, A 14.29."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from leaderboard.submissions.services import select_final
from tests.leaderboard.organiser.conftest import close
from tests.leaderboard.web import log_in

pytestmark = pytest.mark.django_db

ROW = re.compile(r"<tr[ >].*?</tr>", re.S)


def _url(world) -> str:
    return reverse("rankings:reveal", args=[world.phase.challenge.slug, world.phase.slug])


def _fingerprint(page: str) -> str:
    found = re.search(r'name="fingerprint" value="([0-9a-f]{64})"', page)
    assert found, "the preview carries no publish form"
    return found.group(1)


def test_the_preview_shows_the_rows_the_snapshot_publishes(world, client):
    close(world.phase)
    log_in(client, world.organiser)
    page = client.get(_url(world)).text
    assert "preview of the final ranking (snapshot 1, not published)" in page
    assert "Publish this ranking as snapshot 1" in page
    rows = ROW.findall(page)
    ranked = [r for r in rows if "run " in r]
    # the overview table, then the condition's table: each in the private order
    names = [re.search(r"run [ABC]\d", r).group(0) for r in ranked]
    assert names == ["run B1", "run C1", "run A1"] * 2
    for value in ("85.71", "42.86", "14.29"):
        assert value in page
    assert not world.phase.snapshots.exists()  # looking publishes nothing

    response = client.post(_url(world), {"fingerprint": _fingerprint(page)}, follow=True)
    snapshot = world.phase.snapshots.get()
    assert response.redirect_chain[-1][0] == reverse(
        "rankings:snapshot", args=[world.phase.challenge.slug, world.phase.slug, 1]
    )
    assert "Published snapshot 1 of" in response.text
    assert "now public at this permanent address" in response.text
    assert ROW.findall(response.text) == rows
    assert snapshot.number == 1
    world.phase.refresh_from_db()
    assert world.phase.revealed

    # the next preview is of snapshot 2, and says so
    again = client.get(_url(world)).text
    assert "Publish this ranking as snapshot 2" in again


def test_a_ranking_changed_since_the_preview_is_not_published(world, client):
    close(world.phase)
    log_in(client, world.organiser)
    seen = _fingerprint(client.get(_url(world)).text)
    # team B selects its other run after the organiser looked: the private board changes
    select_final(world.runs["B1"], world.teams["B"].created_by, False)
    select_final(world.runs["B2"], world.teams["B"].created_by, True)
    response = client.post(_url(world), {"fingerprint": seen}, follow=True)
    assert not world.phase.snapshots.exists()
    assert "changed since your preview" in response.text
    assert "nothing was published" in response.text
    # the page shown again is the new preview, with the new fingerprint
    assert _fingerprint(response.text) != seen
    client.post(_url(world), {"fingerprint": _fingerprint(response.text)})
    assert world.phase.snapshots.count() == 1


def test_publishing_without_a_preview_publishes_nothing(world, client):
    close(world.phase)
    log_in(client, world.organiser)
    response = client.post(_url(world), follow=True)
    assert "preview the ranking first" in response.text
    assert not world.phase.snapshots.exists()


def test_only_organisers_see_the_preview_and_only_once_the_phase_closed(world, client):
    # open: the organiser sees the ranking so far but cannot publish
    log_in(client, world.organiser)
    page = client.get(_url(world)).text
    assert "is still open: it can be revealed once it closes" in page
    assert 'name="fingerprint"' not in page
    close(world.phase)
    for user in (world.outsider, world.teams["A"].created_by):
        log_in(client, user)
        assert client.get(_url(world)).status_code == 404
        assert client.post(_url(world), {"fingerprint": "0" * 64}).status_code == 404
    client.logout()
    response = client.get(_url(world))
    assert response.status_code == 302 and "login" in response["Location"]
    assert not world.phase.snapshots.exists()
