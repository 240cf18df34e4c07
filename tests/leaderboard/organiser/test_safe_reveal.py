"""The reveal is previewed, then confirmed: the preview's table rows are the published
snapshot's, a ranking that changed after the preview is not published, nor is a stored
private board the worker has not yet built from the phase's current version, and only the
challenge's organisers see the preview. Figures from ``construction``'s table: the private
board is B 85.71, C 42.86, A 14.29."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from leaderboard.challenges.models import Phase
from leaderboard.rankings.serialised import expanded
from leaderboard.rankings.snapshots import RevealError, preview, reveal
from leaderboard.submissions import services
from tests.leaderboard.boards import built
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
    # the condition's table (one condition: no overview repeating it) in the private order;
    # then the shake-up's tables of each entry's move (the overview's, the condition's)
    names = [re.search(r"run [ABC]\d", r).group(0) for r in ranked]
    assert names == ["run B1", "run C1", "run A1"] * 3
    assert 'id="shakeup-table"' in page and 'id="chart-shakeup"' in page
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

    # the reveal changed the phase (it is revealed now): until the board's worker has built
    # its boards again the preview offers nothing to publish; then it is of snapshot 2
    waiting = client.get(_url(world)).text
    assert "being brought up to date" in waiting and 'name="fingerprint"' not in waiting
    built(world.phase)
    again = client.get(_url(world)).text
    assert "Publish this ranking as snapshot 2" in again


def test_a_ranking_changed_since_the_preview_is_not_published(world, client):
    close(world.phase)
    log_in(client, world.organiser)
    seen = _fingerprint(client.get(_url(world)).text)
    # after the organiser looked, an organiser re-scores B's final selection (B1): while it
    # is queued, B ranks by its default final, its best public run B2 (selections froze at
    # the close): the private board changes
    assert services.rescore(world.runs["B1"], enqueue=False, actor=world.organiser)
    built(world.phase)  # and the board's worker has built the new private board
    response = client.post(_url(world), {"fingerprint": seen}, follow=True)
    assert not world.phase.snapshots.exists()
    assert "changed since your preview" in response.text
    assert "nothing was published" in response.text
    # the page shown again is the new preview, with the new fingerprint
    assert _fingerprint(response.text) != seen
    client.post(_url(world), {"fingerprint": _fingerprint(response.text)})
    assert world.phase.snapshots.count() == 1


def test_a_reveal_is_refused_while_the_private_board_is_behind_the_phase(world, client):
    """What is published is the stored private board, and only one built from the phase's
    current version: while the worker has not built the change yet, nothing is published,
    by the page or the service, whatever fingerprint is sent; once built, it is."""
    close(world.phase)
    log_in(client, world.organiser)
    seen = _fingerprint(client.get(_url(world)).text)
    # B's final selection B1 is queued for re-scoring after the preview: B ranks by its
    # default final, its best public run B2 (private 2/7 = 28.57)
    assert services.rescore(world.runs["B1"], enqueue=False, actor=world.organiser)
    phase = Phase.objects.select_related("challenge").get(pk=world.phase.pk)
    shown = preview(phase)
    # the stored board is the one built before the change: not ready, nothing to confirm
    assert shown.stored.built and shown.stored.behind
    assert not shown.ready and shown.fingerprint == ""
    assert "run B1" in [r.method_name for r in shown.board.overview]
    page = client.get(_url(world)).text
    assert "being brought up to date" in page and 'name="fingerprint"' not in page
    # the preview's fingerprint (still the stored board's) or none: each refused, nothing
    # published
    response = client.post(_url(world), {"fingerprint": seen}, follow=True)
    assert "being brought up to date" in response.text
    assert "nothing was published" in response.text
    with pytest.raises(RevealError, match="being brought up to date"):
        reveal(phase, world.organiser)
    with pytest.raises(RevealError, match="being brought up to date"):
        reveal(phase, world.organiser, expected=seen)
    assert not world.phase.snapshots.exists()
    phase.refresh_from_db()
    assert not phase.revealed

    phase = built(phase)
    shown = preview(phase)
    assert shown.ready and len(shown.fingerprint) == 64 and shown.fingerprint != seen
    # by construction: B2 is B's final now, 28.57 on the private part, behind C1's 42.86
    assert [(r.method_name, round(r.means[0], 2)) for r in shown.board.overview] == [
        ("run C1", 42.86),
        ("run B2", 28.57),
        ("run A1", 14.29),
    ]
    page = client.get(_url(world)).text
    assert _fingerprint(page) == shown.fingerprint
    response = client.post(_url(world), {"fingerprint": shown.fingerprint}, follow=True)
    assert "Published snapshot 1 of" in response.text
    snapshot = world.phase.snapshots.get()
    overview = expanded(snapshot.data)["overview"]
    assert [r["method_name"] for r in overview] == ["run C1", "run B2", "run A1"]


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
