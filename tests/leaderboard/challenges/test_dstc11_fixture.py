"""The published figures on the site: augpt.json against the DSTC11 test gold.

Expected numbers come from tests/data/README.md (computed independently): default
profile, JGA 17.93, SER 45.40, S/D/I 12,706 / 4,171 / 2,121, N_ref 41,843.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest
import yaml
from django.core.management import CommandError, call_command

from leaderboard.challenges.models import Challenge
from leaderboard.submissions import services, tasks
from tests.leaderboard.boards import built, leaderboard
from tests.leaderboard.factories import KEYS, ParticipationFactory, TeamFactory, upload

pytestmark = pytest.mark.django_db


def _config(tmp_path: Path, gold: Path, slug: str = "dstc11-test") -> Path:
    reference = os.path.relpath(gold, tmp_path)
    config = {
        "challenge": {"slug": slug, "title": "DSTC11 SA-DST", "registration": "auto"},
        "phases": [
            {
                "name": "Test",
                "slug": "test",
                "opens_at": "2020-01-01T00:00:00Z",
                "closes_at": "2100-01-01T00:00:00Z",
                "daily_quota": 5,
                "conditions": [
                    {"key": key, "label": key.title(), "reference": reference} for key in KEYS
                ],
            }
        ],
    }
    path = tmp_path / "challenge.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def test_augpt_scores_jga_17_93_and_ser_45_40_on_every_condition(fixtures_dir, tmp_path, enqueued):
    gold = fixtures_dir / "dstc11" / "test-dstc11.gold.json"
    call_command("create_challenge", str(_config(tmp_path, gold)))
    challenge = Challenge.objects.get(slug="dstc11-test")
    phase = challenge.phases.get()
    team = TeamFactory()
    ParticipationFactory(team=team, challenge=challenge)
    augpt = (fixtures_dir / "mwzeval-predictions" / "augpt.json").read_bytes()
    submission = services.submit(
        team=team,
        phase=phase,
        user=team.created_by,
        files={key: upload(augpt, "augpt.json") for key in KEYS},
        method_name="AuGPT",
    )
    assert tasks.score_submission(submission.pk) == "scored"

    board = leaderboard(phase)
    gold_hash = hashlib.sha256(gold.read_bytes()).hexdigest()
    assert [c.key for c in board.conditions] == list(KEYS)
    assert [c.name for c in board.columns][:2] == ["jga", "ser"]
    for condition in board.conditions:
        (row,) = condition.rows
        assert row.rank == 1
        (jga, jga_low, jga_high), (ser, ser_low, ser_high) = row.cells[:2]
        assert f"{jga:.2f}" == "17.93"
        assert f"{ser:.2f}" == "45.40"
        assert jga_low < jga < jga_high
        assert ser_low < ser < ser_high
        assert row.signature.startswith("dstc11|norm:default|")
        assert f"gold:sha256:{gold_hash[:8]}" in row.signature
    details = submission.results.first().breakdown["details"]
    assert (details["n_ref"], details["sub"], details["del"], details["ins"]) == (
        41843,
        12706,
        4171,
        2121,
    )
    (overview,) = board.overview
    assert f"{overview.means[0]:.2f}" == "17.93"


def test_create_challenge_refuses_an_existing_slug(fixtures_dir, tmp_path):
    path = _config(tmp_path, fixtures_dir / "dstc11" / "test-dstc11.gold.json")
    call_command("create_challenge", str(path))
    with pytest.raises(CommandError, match="already exists"):
        call_command("create_challenge", str(path))
    assert Challenge.objects.count() == 1


def test_create_challenge_rejects_an_invalid_reference_before_writing(tmp_path):
    bad = tmp_path / "gold.json"
    bad.write_text("{not json")
    with pytest.raises(CommandError, match="invalid JSON"):
        call_command("create_challenge", str(_config(tmp_path, bad, slug="broken")))
    assert not Challenge.objects.exists()


def test_augpt_uploaded_through_the_page_shows_17_93_and_45_40_on_each_row(
    fixtures_dir, tmp_path, client, enqueued, django_capture_on_commit_callbacks
):
    import re

    from django.urls import reverse

    from tests.leaderboard.web import log_in

    gold = fixtures_dir / "dstc11" / "test-dstc11.gold.json"
    call_command("create_challenge", str(_config(tmp_path, gold)))
    challenge = Challenge.objects.get(slug="dstc11-test")
    phase = challenge.phases.get()
    team = TeamFactory(name="AuGPT team")
    ParticipationFactory(team=team, challenge=challenge)
    log_in(client, team.created_by)
    augpt = (fixtures_dir / "mwzeval-predictions" / "augpt.json").read_bytes()
    payload = {"method_name": "AuGPT", "method_description": "", "url": ""}
    payload.update({f"file_{key}": upload(augpt, "augpt.json") for key in KEYS})
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("submissions:submit", args=[challenge.slug, phase.slug]), payload
        )
    assert response.status_code == 302
    (submission_id,) = enqueued
    with django_capture_on_commit_callbacks(execute=True):
        assert tasks.score_submission(submission_id) == "scored"
    built(phase)  # as the board's worker builds it once the scoring has committed

    page = client.get(reverse("rankings:leaderboard", args=[challenge.slug, phase.slug])).text
    gold_hash = hashlib.sha256(gold.read_bytes()).hexdigest()[:8]
    sections = re.split(r'<section aria-labelledby="condition-', page)[1:]
    assert [s.split('"', 1)[0] for s in sections] == list(KEYS)
    for section in sections:
        row = re.search(r"<tbody>(.*?)</tbody>", section, re.S).group(1)
        assert "AuGPT team" in row
        cells = re.sub(r"<[^>]+>", " ", row).split()
        assert "17.93" in cells and "45.40" in cells
        # each metric is followed by its interval, [low, high] around it
        interval = re.search(r"17\.93\s*\[(\d+\.\d+),\s*(\d+\.\d+)\]", " ".join(cells))
        assert interval and float(interval[1]) < 17.93 < float(interval[2])
        assert f"gold:sha256:{gold_hash}" in section


@pytest.mark.parametrize(
    ("prediction", "options", "jga", "ser"),
    [
        ("augpt.json", {"profile": "strict"}, "17.49", "45.72"),
        ("damd.json", {"missing": "empty"}, "12.72", "60.78"),
    ],
)
def test_the_published_figures_of_other_settings_reach_the_page(
    fixtures_dir, tmp_path, client, enqueued, django_capture_on_commit_callbacks, prediction,
    options, jga, ser,
):  # fmt: skip
    """The other two published settings, through the submit page and the leaderboard page:
    the strict profile on augpt, and damd (a dialogue missing) with missing turns empty."""
    import re

    from django.urls import reverse

    from tests.leaderboard.web import log_in

    gold = fixtures_dir / "dstc11" / "test-dstc11.gold.json"
    call_command("create_challenge", str(_config(tmp_path, gold)))
    challenge = Challenge.objects.get(slug="dstc11-test")
    Challenge.objects.filter(pk=challenge.pk).update(scorer_options=options)
    phase = challenge.phases.get()
    team = TeamFactory(name="Published team")
    ParticipationFactory(team=team, challenge=challenge)
    log_in(client, team.created_by)
    data = (fixtures_dir / "mwzeval-predictions" / prediction).read_bytes()
    payload = {"method_name": prediction, "method_description": "", "url": ""}
    payload.update({f"file_{key}": upload(data, prediction) for key in KEYS})
    url = reverse("submissions:submit", args=[challenge.slug, phase.slug])
    with django_capture_on_commit_callbacks(execute=True):
        assert client.post(url, payload).status_code == 302
    (submission_id,) = enqueued
    assert tasks.score_submission(submission_id) == "scored"
    built(phase)  # as the board's worker builds it once the scoring has committed
    page = client.get(reverse("rankings:leaderboard", args=[challenge.slug, phase.slug])).text
    rows = re.findall(r"<tbody>(.*?)</tbody>", page, re.S)[1:]  # the conditions' tables
    assert len(rows) == len(KEYS)
    for row in rows:
        cells = re.sub(r"<[^>]+>", " ", row).split()
        assert jga in cells and ser in cells
