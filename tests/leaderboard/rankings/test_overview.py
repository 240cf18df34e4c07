"""The overview for comparing teams: per condition the primary metric with its interval, the
secondary metric and the rank group; one signed change across the conditions; the method's
link and description; a snapshot published before these existed still loads.

The hand-worked numbers (tests/leaderboard/web.py): 2 dialogues, mul0001 with both turns
right and 3 reference slot values, sng0002 with one of two turns right and one substitution in
3 values. JGA 75.00, SER 16.67. A bootstrap resample draws the two dialogues with replacement:
both mul0001 (JGA 100, SER 0), both sng0002 (JGA 50, SER 2/6 = 33.33) or one of each (the
full scores), each of the first two a quarter of the time, so the 2.5th and 97.5th
percentiles of 200 resamples are the extremes: JGA [50.00, 100.00], SER [0.00, 33.33].
"""

from __future__ import annotations

import json
import re

import pytest
from django.urls import reverse

from leaderboard.challenges.models import Phase
from leaderboard.demo import other_tasks
from leaderboard.rankings.board import Leaderboard
from leaderboard.rankings.compute import compute
from leaderboard.rankings.serialised import expanded
from leaderboard.rankings.snapshots import load, serialise
from leaderboard.submissions.models import Submission
from tests.leaderboard.boards import built, leaderboard
from tests.leaderboard.factories import approved_team, phase_with_references
from tests.leaderboard.web import GOLD_BYTES, JGA, SER, scored_submission

pytestmark = pytest.mark.django_db

URL = "https://example.org/papers/tracker"
DESCRIPTION = "Cascade of <b>ASR</b> and a T5 tracker."


@pytest.fixture
def phase():
    return phase_with_references(GOLD_BYTES)


def _page(client, phase) -> str:
    return client.get(reverse("rankings:leaderboard", args=[phase.challenge.slug, phase.slug])).text


def _overview(page: str) -> str:
    return page.split('id="overview-table"', 1)[1].split("</table>", 1)[0]


def test_each_condition_shows_jga_with_its_interval_ser_and_the_rank_group(client, phase):
    scored_submission(approved_team(phase), phase, method="Tracker A")
    board = leaderboard(phase)
    overview = _overview(_page(client, phase))
    cells = re.findall(r'<td class="num condition".*?</td>', overview, flags=re.S)
    assert len(cells) == 3  # one team, three conditions
    for cell, condition in zip(cells, board.conditions, strict=True):
        text = re.sub(r"<[^>]+>", " ", cell)
        assert " ".join(text.split()).startswith(f"{JGA} [50.00, 100.00] SER {SER}")
        (row,) = condition.rows
        assert row.group and f'<span class="group">group {row.group}</span>' in cell
    # the same numbers behind the page, with the second column's interval
    (row,) = board.overview
    for key in (c.key for c in board.conditions):
        assert [[round(v, 2) for v in cell] for cell in row.cells[key]] == [
            [75.0, 50.0, 100.0],
            [16.67, 0.0, 33.33],
        ]
    # every condition scores the same prediction: no change from the first to the last
    assert row.change == 0.0
    assert '<td class="num change" data-value="0.000000">0.00</td>' in overview


def test_method_names_link_to_their_paper_and_descriptions_are_one_click_away(client, phase):
    scored_submission(
        approved_team(phase), phase, method="Tracker A", url=URL, method_description=DESCRIPTION
    )
    page = _page(client, phase)
    link = f'<a href="{URL}" rel="nofollow ugc noopener">Tracker A</a>'
    # the overview and three condition tables, each with the wide column and the phone's line
    assert page.count(link) == 8
    escaped = "Cascade of &lt;b&gt;ASR&lt;/b&gt; and a T5 tracker."
    about = (
        r'<details class="about">\s*<summary>About<span class="visually-hidden"> Tracker A</span>'
        rf"</summary>\s*<p>{re.escape(escaped)}</p>\s*</details>"
    )
    assert len(re.findall(about, page)) == 8
    assert "<b>ASR</b>" not in page


def test_an_anonymous_team_shows_neither_link_nor_description(client, phase):
    team = approved_team(phase)
    team.anonymous = True
    team.save()
    scored_submission(team, phase, method="Tracker A", url=URL, method_description=DESCRIPTION)
    page = _page(client, phase)
    assert "Tracker A" in page and team.anonymous_label in page
    assert URL not in page and "Cascade of" not in page and 'class="about"' not in page


def test_only_a_web_address_becomes_a_link(client, phase):
    submission = scored_submission(approved_team(phase), phase, method="Tracker A", url=URL)
    Submission.objects.filter(pk=submission.pk).update(url="javascript:alert(1)")
    # an organiser's edit in the admin: a change of the phase's boards, then built
    Phase.changed(phase.pk)
    built(phase)
    page = _page(client, phase)
    assert "javascript:" not in page
    # text, not a link
    assert len(re.findall(r'<td class="wide-only method">\s*Tracker A\s*</td>', page)) == 4


def test_a_snapshot_published_before_the_change_column_still_loads(phase):
    first = scored_submission(approved_team(phase), phase, method="Tracker A")
    board = compute(Phase.objects.get(pk=phase.pk), "public")
    # as a snapshot of the first format stored it: no format, each row with its entry's
    # facts, a gap (first minus last condition), no method link or description, no
    # per-condition cells or groups
    data = expanded(json.loads(json.dumps(serialise(board))))
    data.pop("format")
    for row in data["overview"]:
        row["gap"] = 2.5
        for key in ("change", "method_url", "method_description", "cells", "groups"):
            row.pop(key)
    for condition in data["conditions"]:
        for row in condition["rows"]:
            row.pop("method_url")
            row.pop("method_description")

    class Stored:
        pass

    stored = Stored()
    stored.data = data  # type: ignore[attr-defined]
    loaded = load(stored)  # type: ignore[arg-type]
    assert isinstance(loaded, Leaderboard)
    (row,) = loaded.overview
    assert row.submission_id == first.pk
    assert row.change == -2.5 and row.method_url == "" and row.cells == {}
    assert "chart-robustness" in loaded.charts


def test_a_single_condition_board_has_no_change_and_no_robustness_chart(client):
    from leaderboard.demo import dstc11

    dstc11.build()  # the other demos' teams
    for challenge in other_tasks.build():
        built(challenge.phases.get(slug="test"))  # as the demo command builds its boards
        page = client.get(reverse("rankings:leaderboard", args=[challenge.slug, "test"])).text
        assert "Change (" not in page and 'id="chart-robustness"' not in page
        charts = json.loads(page.split('id="chart-data" type="application/json">')[1].split("<")[0])
        assert "chart-robustness" not in charts and "chart-scatter" in charts
        # its one table is the ranking: no overview repeating it
        assert 'id="overview-table"' not in page and page.count('<table class="ranking"') == 1
        assert len(re.findall(r'<td class="rank">', page)) == 3  # three teams, one condition
