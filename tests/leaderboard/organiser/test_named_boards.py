"""Requests name what they get: a snapshot that does not exist, or a malformed number, is a
404 on every page, export and API view that takes one (never another board), and every paper
table and export states its board: the live board's public part, the private part of
snapshot N, or the whole reference.

The world (``construction``): a hidden phase with a split, revealed once (snapshot 1)."""

from __future__ import annotations

import csv
import io

import pytest
from django.urls import reverse

from leaderboard.analyses.papers import statement
from leaderboard.rankings.snapshots import reveal
from tests.leaderboard.boards import built
from tests.leaderboard.organiser.conftest import close

pytestmark = pytest.mark.django_db

PUBLIC = "live board, public part of the split"
FINAL = "final ranking (snapshot 1), private part of the split"


@pytest.fixture
def revealed(world):
    close(world.phase)
    reveal(world.phase, world.organiser)
    world.phase.refresh_from_db()
    world.phase = built(world.phase)
    return world


def _pages(world) -> list[str]:
    phase = world.phase
    args = [phase.challenge.slug, phase.slug]
    # two entries of snapshot 1 (B1, its final selection, and C1)
    pair = {"a": world.runs["B1"].pk, "b": world.runs["C1"].pk}
    return [
        reverse("rankings:table", args=[*args, "tex"]),
        reverse("rankings:table", args=[*args, "md"]),
        reverse("rankings:pairwise", args=args) + f"?a={pair['a']}&b={pair['b']}",
        reverse("rankings:robustness", args=args),
        f"/api/v1/phases/{phase.pk}/table/",
        f"/api/v1/phases/{phase.pk}/pairwise/?a={pair['a']}&b={pair['b']}",
        f"/api/v1/phases/{phase.pk}/robustness/",
        f"/api/v1/phases/{phase.pk}/shakeup/",
    ]


@pytest.mark.parametrize("value", ["99", "abc", "-1", "1.5", "0", "\uff11"])  # last: full-width 1
def test_an_unknown_or_malformed_snapshot_is_a_404_everywhere(revealed, client, value):
    for url in _pages(revealed):
        glue = "&" if "?" in url else "?"
        assert client.get(f"{url}{glue}snapshot={value}").status_code == 404, url
    # the snapshot that exists is found on each of them
    for url in _pages(revealed):
        glue = "&" if "?" in url else "?"
        assert client.get(f"{url}{glue}snapshot=1").status_code == 200, url


def test_a_snapshot_asked_for_with_the_public_board_is_a_404(revealed, client):
    for url in _pages(revealed)[:2]:
        assert client.get(f"{url}?board=public&snapshot=1").status_code == 404


def test_the_paper_tables_state_their_board(revealed, client):
    phase = revealed.phase
    args = [phase.challenge.slug, phase.slug]
    for suffix in ("tex", "md"):
        url = reverse("rankings:table", args=[*args, suffix])
        public = client.get(url + "?board=public").content.decode()
        final = client.get(url + "?board=final").content.decode()
        assert PUBLIC in public and FINAL not in public
        assert FINAL in final and PUBLIC not in final
    api = client.get(f"/api/v1/phases/{phase.pk}/table/?as=markdown&snapshot=1").json()
    assert FINAL in api["table"]


def test_the_exports_state_their_boards(revealed, client):
    phase = revealed.phase
    args = [phase.challenge.slug, phase.slug]
    data = client.get(reverse("rankings:export-json", args=args)).json()
    assert data["public"]["shows"] == PUBLIC and data["final"]["shows"] == FINAL
    text = client.get(reverse("rankings:export-csv", args=args)).content.decode()
    rows = list(csv.DictReader(io.StringIO(text)))
    shows = {(r["board"], r["shows"]) for r in rows if r["board"] in ("public", "final")}
    assert shows == {("public", PUBLIC), ("final", FINAL)}


def test_a_phase_without_a_split_states_the_whole_reference():
    assert statement(False, "public", None) == "live board, whole reference"
    assert statement(False, "private", 2) == "final ranking (snapshot 2), whole reference"
    assert statement(True, "public", None) == PUBLIC
    assert statement(True, "private", 1) == FINAL
