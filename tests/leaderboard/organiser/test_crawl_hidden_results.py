"""Crawl every page, API endpoint and export of a hidden, split phase as an anonymous reader,
an outsider, a member of another team and a member of the team: before the reveal no
private-part or whole-reference figure and no reference value appears anywhere; after it,
readers see exactly the published snapshot's private figures.

URLs come from walking the URL resolver (every route, the API's included), with each path
parameter filled with every value that exists in the world (every submission id, team slug,
...); a route with a parameter this test cannot fill fails the test, so a new page is crawled
as soon as it exists. Only ``admin/`` is left out: it serves staff, and none of these actors is.
"""

from __future__ import annotations

import itertools
import re

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from leaderboard.rankings.snapshots import reveal
from leaderboard.teams.models import Participation
from tests.leaderboard.organiser import construction as c
from tests.leaderboard.organiser.conftest import close
from tests.leaderboard.web import log_in

pytestmark = pytest.mark.django_db

PARAM = re.compile(r"<(?:(\w+):)?(\w+)>")
SKIP_PREFIXES = ("admin/",)
#: query strings worth crawling too, per route suffix
EXTRA_QUERIES = {
    "leaderboard/": ["?fragment=1", "?format=csv", "?condition=tts-verbatim",
                     "?condition=tts-verbatim&format=csv"],
}  # fmt: skip


def _routes(patterns=None, prefix: str = ""):
    for entry in patterns if patterns is not None else get_resolver().url_patterns:
        route = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            yield from _routes(entry.url_patterns, route)
        elif isinstance(entry, URLPattern):
            yield route


def _values(world) -> dict[str, list[str]]:
    phase = world.phase
    return {
        "slug": [phase.challenge.slug, *(t.slug for t in world.teams.values())],
        "phase": [phase.slug],
        "pk": [str(phase.pk), *(str(s.pk) for s in world.runs.values()),
               *(str(p) for p in Participation.objects.values_list("pk", flat=True))],
        "number": ["1"],
        "code": [t.invite_code for t in world.teams.values()],
        "uidb64": ["MQ"],
        "token": ["set-password"],
    }  # fmt: skip


def urls(world) -> list[str]:
    values = _values(world)
    out: list[str] = []
    for route in _routes():
        if route.startswith(SKIP_PREFIXES) or (route.startswith("^") and route != "^.*$"):
            continue
        if "^" in route or "$" in route:
            # the API's catch-all: one unknown path
            out.append("/api/v1/no-such-endpoint/")
            continue
        names = [m.group(2) for m in PARAM.finditer(route)]
        missing = [n for n in names if n not in values]
        assert not missing, f"the crawler cannot fill {missing} in {route}"
        for combo in itertools.product(*(values[n] for n in names)):
            filled = route
            for name, value in zip(names, combo, strict=True):
                filled = PARAM.sub(
                    lambda m, n=name, v=value: v if m.group(2) == n else m.group(0), filled
                )
            path = "/" + filled
            out.append(path)
            for suffix, queries in EXTRA_QUERIES.items():
                if path.endswith(suffix):
                    out.extend(path + q for q in queries)
    return sorted(set(out))


def actors(world) -> dict[str, Client]:
    clients = {"anonymous": Client()}
    for name, user in (
        ("outsider", world.outsider),
        ("other team", world.teams["C"].created_by),
        ("team member", world.teams["B"].created_by),
    ):
        clients[name] = Client()
        log_in(clients[name], user)
    return clients


def crawl(client: Client, paths: list[str]) -> dict[str, str]:
    pages = {}
    for path in paths:
        response = client.get(path)
        assert response.status_code < 500, path
        body = b"".join(response.streaming_content) if response.streaming else response.content
        pages[path] = body.decode("utf-8", "replace")
    return pages


def leaks(pages: dict[str, str], forbidden: set[str]) -> list[tuple[str, str]]:
    """Where a forbidden figure appears as the start of a number: not inside a longer number
    and not as the seconds of a time stamp ("05:18:18.181818" shows no score "18.18"), but
    a full-precision float ("18.181818...") does count."""
    patterns = {s: re.compile(r"(?<![\d.:])" + re.escape(s)) for s in forbidden}
    return [
        (path, s)
        for path, text in pages.items()
        for s, pattern in patterns.items()
        if pattern.search(text)
    ]


def test_nothing_private_before_the_reveal_and_exactly_the_snapshot_after(world):
    paths = urls(world)
    assert any("/leaderboard.csv" in p for p in paths) and any(
        "/api/v1/phases/" in p for p in paths
    )
    forbidden = c.private_strings() | {c.PRIVATE_VALUE}
    clients = actors(world)
    for name, client in clients.items():
        pages = crawl(client, paths)
        assert not leaks(pages, forbidden), name
        if name == "team member":
            # the organiser lets teams see their own public-part score: B's best is 75.00
            detail = pages[f"/submissions/{world.runs['B2'].pk}/"]
            assert "75.00" in detail
            # and nothing of another team's submission
            assert "run A1" not in pages[f"/submissions/{world.runs['A1'].pk}/"]

    close(world.phase)
    snapshot = reveal(world.phase, world.organiser)
    rows = snapshot.data["conditions"][0]["rows"]
    names = [column["name"] for column in snapshot.data["columns"]]
    assert names[:2] == ["jga", "ser"]
    published = {c.shown(r["cells"][0][0]) for r in rows}
    assert published == {"85.71", "42.86", "14.29"}
    # every value and interval bound of every column, and the overview's means
    numbers = [v for r in rows for cell in r["cells"] for v in cell if v is not None]
    numbers += [v for r in snapshot.data["overview"] for v in r["means"] if v is not None]
    in_snapshot = {f"{v:.2f}" for v in numbers} | {f"{v:.3f}"[:-1] for v in numbers}
    not_published = c.private_strings() - in_snapshot
    assert {"28.57", "71.43"} <= not_published  # B2's and C2's private JGA: not final selections
    # whole-reference figures of a team's own runs are its own after the reveal, so check the
    # readers (anonymous, outsider) for everything but the snapshot, and everyone for the gold.
    for name, client in clients.items():
        pages = crawl(client, paths)
        assert not leaks(pages, {c.PRIVATE_VALUE}), name
        board = pages[
            reverse("rankings:leaderboard", args=[world.phase.challenge.slug, world.phase.slug])
        ]
        assert all(value in board for value in published), name
        if name in ("anonymous", "outsider"):
            assert not leaks(pages, not_published), name
