"""The embeddable public board (``rankings:embed``): each condition's first rows with rank, team
and the ranked metric, no navigation; framed only by the sites its challenge lists
(``Challenge.embed_origins``), ``frame-ancestors 'none'`` everywhere else; the public board's
caching (public, 304); hidden results stay hidden; for every task.

Expected figures are the hand-worked ones of tests/leaderboard/api/test_api_every_task.py: JGA
75.00 for dstc11's tiny run, 66.67 for multiwoz22's (two of three turns), Joint Acc 66.67 for
dvd's (two of three turns).
"""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from leaderboard.challenges.models import Challenge, Phase
from tests.leaderboard.factories import phase_with_references
from tests.leaderboard.task_data import (
    DVD_GOLD,
    DVD_PARTIAL,
    MWZ_GOLD,
    MWZ_PARTIAL,
    SCHEMA,
    make_phase,
    submit_through_the_page,
)
from tests.leaderboard.web import GOLD_BYTES, JGA, PREDICTION, figures

pytestmark = pytest.mark.django_db

CASES = {
    "dstc11": (GOLD_BYTES, None, PREDICTION, "75.00"),
    "multiwoz22": (MWZ_GOLD, {"schema": (SCHEMA, "schema.json")}, MWZ_PARTIAL, "66.67"),
    "dvd": (DVD_GOLD, None, DVD_PARTIAL, "66.67"),
}


def _scored_phase(client, task: str) -> tuple[Phase, str]:
    import json

    gold, files, run, figure = CASES[task]
    if task == "dstc11":
        phase = phase_with_references(gold, keys=("test",))
    else:
        encoded = {k: (json.dumps(v).encode(), name) for k, (v, name) in (files or {}).items()}
        phase = make_phase(task, json.dumps(gold).encode(), encoded or None)
    submit_through_the_page(client, phase, run, "Embedded tracker")
    client.logout()
    return phase, figure


def _url(phase: Phase, name: str = "rankings:embed") -> str:
    return reverse(name, args=[phase.challenge.slug, phase.slug])


def _ancestors(response) -> str:
    policy = response["Content-Security-Policy"]
    return next(p.strip() for p in policy.split(";") if p.strip().startswith("frame-ancestors"))


@pytest.mark.parametrize("task", list(CASES))
def test_the_embed_shows_rank_team_and_ranked_metric_without_navigation(client, task):
    phase, figure = _scored_phase(client, task)
    response = client.get(_url(phase))
    assert response.status_code == 200
    page = response.text
    team = phase.challenge.participations.get().team.name
    assert team in page and figure in page
    assert "My teams" not in page and "<nav" not in page  # no site navigation
    assert 'name="viewport"' in page  # laid out for a phone's width too


def test_without_listed_sites_the_embed_may_be_framed_by_none(client):
    phase, _ = _scored_phase(client, "dstc11")
    response = client.get(_url(phase))
    assert _ancestors(response) == "frame-ancestors 'none'"
    assert response["X-Frame-Options"] == "DENY"


def test_the_sites_the_organiser_lists_may_frame_the_embed_and_nothing_else(client):
    phase, _ = _scored_phase(client, "dstc11")
    Challenge.objects.filter(pk=phase.challenge_id).update(
        embed_origins="https://workshop.example.org\n\nhttp://127.0.0.1:8443\n"
    )
    response = client.get(_url(phase))
    assert _ancestors(response) == (
        "frame-ancestors https://workshop.example.org http://127.0.0.1:8443"
    )
    assert "X-Frame-Options" not in response
    # the rest of the policy is the site's
    assert "script-src 'self'" in response["Content-Security-Policy"]
    # every other page keeps 'none'
    board = client.get(_url(phase, "rankings:leaderboard"))
    assert _ancestors(board) == "frame-ancestors 'none'" and board["X-Frame-Options"] == "DENY"


def test_the_embed_is_public_and_revalidated_and_a_new_list_is_a_new_validator(client):
    phase, _ = _scored_phase(client, "dstc11")
    first = client.get(_url(phase))
    assert "public" in first["Cache-Control"]
    again = client.get(_url(phase), HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304
    Challenge.objects.filter(pk=phase.challenge_id).update(embed_origins="https://a.example")
    changed = client.get(_url(phase), HTTP_IF_NONE_MATCH=first["ETag"])
    assert changed.status_code == 200
    assert _ancestors(changed) == "frame-ancestors https://a.example"


def test_hidden_results_stay_hidden_in_the_embed(client):
    phase, _ = _scored_phase(client, "dstc11")
    Phase.objects.filter(pk=phase.pk).update(results_visibility=Phase.Visibility.HIDDEN)
    response = client.get(_url(phase))
    assert response.status_code == 200
    team = phase.challenge.participations.get().team.name
    assert team not in response.text and JGA not in figures(response.text)
    assert "hidden until the organisers reveal them" in response.text
    assert "public" not in response["Cache-Control"]


@pytest.mark.parametrize(
    "text,line",
    [
        ("https://a.example/path", 1),
        ("https://a.example\n*", 2),
        ("javascript:alert(1)", 1),
        ("https://a.example; script-src *", 1),
    ],
)
def test_only_origins_may_be_listed_each_error_naming_its_line(text, line):
    challenge = Challenge(slug="c", title="C", embed_origins=text)
    with pytest.raises(ValidationError) as raised:
        challenge.full_clean()
    assert f"Line {line} " in str(raised.value.message_dict["embed_origins"])
