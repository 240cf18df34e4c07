"""Crawl every page, API endpoint and export of a hidden, split phase as an anonymous reader,
an outsider, a member of another team, a member of the team and a staff organiser of another
challenge (who crawls every admin page too): before the reveal no private-part or
whole-reference figure and no reference value appears anywhere; after it, readers see exactly
the published snapshot's private figures. Team A is anonymous: its name appears nowhere any of
them can reach, before or after the reveal. The boards' statistics are hidden with them: before
the reveal no rank interval, no detectable difference of either board and no shake-up (the
private board's, whose public scores are of the final selections) reaches anyone crawling;
after it, the snapshot's shake-up is on its page, its API and the exports.

URLs come from walking the URL resolver (every route, the API's included), with each path
parameter filled with every value of what it names that exists in the world (every submission
id after ``submissions/``, every team slug after ``teams/``, every phase id after
``phases/``, ...; one that names nothing when none exists, so the route is crawled all the
same); a route with a parameter this test cannot name fails the test, so a new page is
crawled as soon as it exists. The comparison of two submissions is asked for every pair of the
phase's submissions, on every board.
``admin/`` is crawled by the other challenge's organiser only: it serves
staff. The invite link of a team names the team to whoever holds its code (a secret the team
hands out), so the anonymous name check leaves those paths out.
"""

from __future__ import annotations

import itertools
import json
import re

import pytest
from allauth.mfa.models import Authenticator
from django.contrib import admin
from django.contrib.auth.models import Group
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from leaderboard.api.models import ApiToken
from leaderboard.challenges.announcements import Announcement
from leaderboard.challenges.models import Challenge, Phase, PhaseFile, Reference
from leaderboard.operations.heartbeat import beat, scheduler_beat
from leaderboard.rankings.boards import stored
from leaderboard.rankings.snapshots import reveal
from leaderboard.submissions.models import Submission
from leaderboard.teams.models import Participation, Team
from tests.leaderboard.boards import built
from tests.leaderboard.factories import (
    ConditionFactory,
    PhaseFactory,
    UserFactory,
    with_second_factor,
)
from tests.leaderboard.organiser import construction as c
from tests.leaderboard.organiser.conftest import close
from tests.leaderboard.web import log_in

#: team A's name, anonymous in this crawl
SECRET_NAME = "Zephyrine Lab"

pytestmark = pytest.mark.django_db

PARAM = re.compile(r"<(?:(\w+):)?(\w+)>")
SKIP_PREFIXES = ("admin/",)
#: Redoc's third-party script (served without its remote logo): code, whose constants are not
#: figures of any board
SKIP_ROUTES = ("api/v1/redoc/redoc.standalone.js",)
#: the API's catch-all, crawled as one unknown path
CATCH_ALL = "^(?P<rest>.+)$"
#: query strings worth crawling too, per route suffix
EXTRA_QUERIES = {
    "leaderboard/": ["?fragment=1", "?format=csv", "?condition=tts-verbatim",
                     "?condition=tts-verbatim&format=csv"],
    "table.tex": ["?board=public", "?board=final", "?snapshot=1", "?rank_intervals=yes"],
    "/table/": ["?as=markdown", "?board=public", "?board=final", "?rank_intervals=yes"],
    "/shakeup/": ["?snapshot=1", "?board=public"],
    "/pairwise/": ["?a=1&b=2", "?a=2&b=3"],
    "/robustness/": ["?board=public", "?board=final", "?board=final&snapshot=1"],
    "/errors/": ["?board=public", "?board=final", "?board=final&snapshot=1"],
}  # fmt: skip
#: the analyses of each board, on pairs of real submissions (``pairs``); ``snapshot=N`` is
#: crawled on the other analyses (``EXTRA_QUERIES``), read by the same function
BOARD_QUERIES = ("", "&board=public", "&board=final")


def _routes(patterns=None, prefix: str = ""):
    for entry in patterns if patterns is not None else get_resolver().url_patterns:
        route = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            yield from _routes(entry.url_patterns, route)
        elif isinstance(entry, URLPattern):
            yield route


def _values(world) -> dict[str, list[str]]:
    """The values of the parameters named the same on every route."""
    phase = world.phase
    return {
        "phase": [phase.slug],
        "number": ["1"],
        "suffix": ["tex", "md"],
        # each condition's sample and reference files: the sample holds no gold value, and
        # the gold is never a public file
        "condition": list(phase.conditions.values_list("key", flat=True)),
        "name": ["gold", "reference", "training_values", "schema"],
        "code": [t.invite_code for t in world.teams.values()],
        "uidb64": ["MQ"],
        "token": ["set-password"],
    }  # fmt: skip


#: What a ``slug`` or ``pk`` names (the field of that name), by the path segment before it.
NAMED = {
    ("challenges", "slug"): Challenge,
    ("teams", "slug"): Team,
    ("phases", "pk"): Phase,
    ("submissions", "pk"): Submission,
    ("registrations", "pk"): Participation,
    ("announcements", "pk"): Announcement,
    ("references", "pk"): Reference,
    ("files", "pk"): PhaseFile,
    ("tokens", "pk"): ApiToken,
    ("keys", "pk"): Authenticator,
}
#: A value no row has: a route whose kind has no row yet is crawled with it.
NOTHING = {"slug": "no-such-thing", "pk": "999999"}


def _named(route: str, name: str, values: dict[str, list[str]]) -> list[str]:
    """Every value of parameter ``name`` of ``route``: of its name, or of every row of what
    the segment before it names."""
    if name in values:
        return values[name]
    before = re.split(r"<(?:\w+:)?" + name + ">", route)[0]
    segment = before.rstrip("/").rsplit("/", 1)[-1]
    assert (segment, name) in NAMED, f"the crawler cannot fill {name} in {route}"
    rows = NAMED[segment, name].objects.order_by(name)
    found = [str(v) for v in rows.values_list(name, flat=True)]
    return found or [NOTHING[name]]


def urls(world) -> list[str]:
    values = _values(world)
    phase = world.phase
    own = {
        reverse("rankings:pairwise", args=[phase.challenge.slug, phase.slug]),
        reverse("api:pairwise", args=[phase.pk]),
    }
    out: list[str] = []
    for route in _routes():
        if route.startswith(SKIP_PREFIXES) or route in SKIP_ROUTES:
            continue
        if route.startswith("^") and not route.endswith(CATCH_ALL):
            continue
        if "^" in route or "$" in route:
            # the API's catch-all: one unknown path
            out.append("/api/v1/no-such-endpoint/")
            continue
        names = [m.group(2) for m in PARAM.finditer(route)]
        for combo in itertools.product(*(_named(route, n, values) for n in names)):
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
            if path.endswith("/pairwise/"):
                out.extend(path + q for q in pairs(world))
    assert own <= set(out), "the phase's comparisons are crawled with every pair"
    return sorted(set(out))


def pairs(world) -> list[str]:
    """Every pair of the world's submissions once (B against A is A against B with the signs
    turned), on every board."""
    ids = sorted(s.pk for s in world.runs.values())
    return [f"?a={a}&b={b}{board}" for a, b in itertools.combinations(ids, 2)
            for board in BOARD_QUERIES]  # fmt: skip


def other_organiser():
    """A staff user in the "Organisers" group who organises another challenge, whose
    conditions carry the same labels."""
    phase = PhaseFactory(challenge__slug="other-challenge", name="Other test")
    ConditionFactory(phase=phase, key="tts-verbatim", label="Tts-Verbatim")
    user = with_second_factor(UserFactory(is_staff=True))
    user.groups.add(Group.objects.get(name="Organisers"))
    phase.challenge.organisers.add(with_second_factor(user))
    return user


def admin_urls() -> list[str]:
    """Every admin list, and the change page of every row of every registered model."""
    out = ["/admin/"]
    for model, _model_admin in admin.site._registry.items():
        info = (model._meta.app_label, model._meta.model_name)
        out.append(reverse("admin:{}_{}_changelist".format(*info)))
        for pk in model._default_manager.values_list("pk", flat=True):
            out.append(reverse("admin:{}_{}_change".format(*info), args=[pk]))
    return out


def actors(world) -> dict[str, Client]:
    clients = {"anonymous": Client()}
    for name, user in (
        ("outsider", world.outsider),
        ("other team", world.teams["C"].created_by),
        ("team member", world.teams["B"].created_by),
        ("other organiser", other_organiser()),
    ):
        clients[name] = Client()
        log_in(clients[name], user)
    return clients


def paths_of(name: str, paths: list[str]) -> list[str]:
    return paths + admin_urls() if name == "other organiser" else paths


def named(pages: dict[str, str]) -> list[str]:
    """Pages that name anonymous team A (the invite links aside: see the module's text)."""
    return [p for p, text in pages.items() if SECRET_NAME in text and "/join/" not in p]


def crawl(client: Client, paths: list[str]) -> dict[str, str]:
    # a running worker beats every few seconds: keep /readyz's worker fresh through the crawl
    beat("celery@crawl")
    scheduler_beat()  # and beat sends its periodic tasks
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
    if not forbidden:
        return []
    # one pass over each page for all of them; the longest first, so that where one is the
    # start of another, the longer is the one named
    found = re.compile(
        r"(?<![\d.:])(?:" + "|".join(map(re.escape, sorted(forbidden, key=len, reverse=True))) + ")"
    )
    return [
        (path, s)
        for path, text in pages.items()
        for s in sorted({match.group() for match in found.finditer(text)})
    ]


#: What the boards' statistics look like with a value on a page, an answer or an export (the
#: names alone are in every CSV header and in the API's schema).
STATISTICS = tuple(
    re.compile(pattern)
    for pattern in (
        r'class="rank-ci"', r'id="shakeup-table"', r"not resolvable", r",detectable_difference,",
        r'"rank_interval":\s*\[\d', r'"rank_low":\s*\d', r'"detectable":\s*\d',
        r'"(kendall_)?tau":\s*-?\d', r'"shakeups":\s*\[\s*\{',
    )
)  # fmt: skip


def statistics_strings(phase) -> set[str]:
    """The boards' own figures: each board's detectable differences (as shown) and the
    private board's shake-up correlations (as the API gives them)."""
    found: set[str] = set()
    for part in ("public", "private"):
        board = stored(phase, part).board
        found |= {f"{c.detectable:.2f}" for c in board.conditions if c.detectable is not None}
        for shakeup in board.shakeups:
            found |= {repr(v) for v in (shakeup.tau, shakeup.rho, shakeup.mean_shift) if v}
    return found


def test_nothing_private_before_the_reveal_and_exactly_the_snapshot_after(world):
    paths = urls(world)
    assert any("/leaderboard.csv" in p for p in paths) and any(
        "/api/v1/phases/" in p for p in paths
    )
    assert any(p.endswith("/shakeup/") for p in paths)
    forbidden = c.private_strings() | {c.PRIVATE_VALUE} | statistics_strings(world.phase)
    Team.objects.filter(pk=world.teams["A"].pk).update(name=SECRET_NAME, anonymous=True)
    Phase.changed(world.phase.pk)  # as the admin does for its edits
    built(world.phase)  # and the board's worker once the edit has committed
    beat("celery@crawl")  # a worker is running: /readyz answers 200
    scheduler_beat()
    clients = actors(world)
    for name, client in clients.items():
        pages = crawl(client, paths_of(name, paths))
        assert not leaks(pages, forbidden), name
        assert not named(pages), name
        # no statistic of either board, in any form (the admin's own pages aside)
        shown = {p: t for p, t in pages.items() if not p.startswith("/admin/")}
        assert not [(p, s.pattern) for p, t in shown.items() for s in STATISTICS if s.search(t)]
        shakeup = f"/api/v1/phases/{world.phase.pk}/shakeup/"
        assert pages[shakeup].startswith('{"error"') and '"not_found"' in pages[shakeup], name
        if name == "other organiser":
            # it reached the admin, and the admin showed it nothing of this challenge
            assert pages["/admin/"].count("<tr") >= 1
            assert not any(world.phase.challenge.slug in t for p, t in pages.items()
                           if p.startswith("/admin/")), name  # fmt: skip
        if name == "team member":
            # the organiser lets teams see their own public-part score: B's best is 75.00
            detail = pages[f"/submissions/{world.runs['B2'].pk}/"]
            assert "75.00" in detail
            # and nothing of another team's submission
            assert "run A1" not in pages[f"/submissions/{world.runs['A1'].pk}/"]

    close(world.phase)
    snapshot = reveal(world.phase, world.organiser)
    snapshot_path = reverse(
        "rankings:snapshot", args=[world.phase.challenge.slug, world.phase.slug, 1]
    )
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
    primary = [r["cells"][0][0] for r in rows]
    gaps = [abs(x - y) for x, y in itertools.combinations(primary, 2)]
    differences = {f"{v:.2f}" for v in gaps} | {f"{v:.3f}"[:-1] for v in gaps}
    # whole-reference figures of a team's own runs are its own after the reveal, so check the
    # readers (anonymous, outsider) for everything but the snapshot, and everyone for the gold.
    for name, client in clients.items():
        pages = crawl(client, paths_of(name, paths))
        assert not leaks(pages, {c.PRIVATE_VALUE}), name
        assert not named(pages), name
        board = pages[
            reverse("rankings:leaderboard", args=[world.phase.challenge.slug, world.phase.slug])
        ]
        assert all(value in board for value in published), name
        # the snapshot's shake-up, for everyone now
        shakeup = json.loads(pages[f"/api/v1/phases/{world.phase.pk}/shakeup/"])
        assert shakeup["snapshot"] == 1 and len(shakeup["rankings"]) == 2, name
        assert 'id="shakeup-table"' in pages[f"{snapshot_path}"], name
        # and every kind of statistic the crawl looked for before is on some page now: the
        # patterns would have found them
        matched = {s.pattern for t in pages.values() for s in STATISTICS if s.search(t)}
        assert matched == {s.pattern for s in STATISTICS}, name
        if name in ("anonymous", "outsider", "other organiser"):
            # the pairwise comparison of two published entries shows their difference, which
            # here may read as another run's private figure (all are multiples of 100/7)
            compared = {p: t for p, t in pages.items() if "/pairwise/" in p}
            others = {p: t for p, t in pages.items() if p not in compared}
            assert not leaks(others, not_published), name
            assert not leaks(compared, not_published - differences), name
