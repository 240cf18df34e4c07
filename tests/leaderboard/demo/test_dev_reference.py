"""The demo's public development reference: each demo challenge's page gives the scorer's
command, and that command, run on the files downloaded from the page, scores (the first local
score in a minute). The development dialogues are not the hidden test reference's."""

from __future__ import annotations

import html
import io
import json
import re
import shlex
from contextlib import redirect_stdout

import pytest
from django.core.management import call_command
from django.test import Client

from leaderboard.challenges.models import Challenge, Reference
from leaderboard.demo import dev_reference, dstc11, other_tasks
from scoring.cli import main as score

pytestmark = pytest.mark.django_db

SLUGS = [dstc11.SLUG, other_tasks.MULTIWOZ_SLUG, other_tasks.DVD_SLUG]


@pytest.fixture
def demo():
    call_command("demo", verbosity=0, stdout=io.StringIO())


@pytest.mark.parametrize("slug", SLUGS)
def test_the_command_on_the_challenge_page_scores_the_files_it_names(demo, slug, tmp_path):
    page = Client().get(f"/challenges/{slug}/").content.decode()
    commands = [
        html.unescape(code)
        for code in re.findall(r"<code[^>]*>(trackboard-score score [^<]+)</code>", page)
        if "-dev-gold.json" in code
    ]
    assert len(commands) == 1, commands
    words = shlex.split(commands[0])
    # every file the command names is a download of the page
    links = dict(
        (html.unescape(name), href)
        for href, name in re.findall(
            r'<a href="([^"]+/data/files/\d+/)" download>([^<]+)</a>', page
        )
    )
    challenge = Challenge.objects.get(slug=slug)
    files = {f.original_name: f.title for p in challenge.phases.all() for f in p.files.all()}
    named = [w for w in words if w.endswith(".json")]
    assert named and set(named) <= set(files)
    for name in named:
        answer = Client().get(links[files[name]])
        assert answer.status_code == 200
        (tmp_path / name).write_bytes(b"".join(answer.streaming_content))
    out = io.StringIO()
    args = [str(tmp_path / w) if w in named else w for w in words[1:]]
    with redirect_stdout(out):
        assert score(args) == 0
    assert f"task        {challenge.task}" in out.getvalue()
    assert "signature" in out.getvalue()


@pytest.mark.parametrize("slug", SLUGS)
def test_the_development_dialogues_are_not_the_test_references(demo, slug):
    challenge = Challenge.objects.get(slug=slug)
    phase = challenge.phases.order_by("order").first()
    dev = phase.files.get(title=f"{dev_reference.TITLE} reference")
    dev_ids = _dialogue_ids(json.loads(dev.file.read()))
    for reference in Reference.objects.filter(condition__phase__challenge=challenge):
        with reference.file.open("rb") as handle:
            assert not dev_ids & _dialogue_ids(json.loads(handle.read()))


def test_the_demo_ships_them_once(demo):
    assert dev_reference.ship_all() == []
    for slug in SLUGS:
        challenge = Challenge.objects.get(slug=slug)
        assert challenge.data.count("Score locally in a minute") == 1


def _dialogue_ids(gold: object) -> set[str]:
    """Dialogue ids of a gold in the generators' shapes: a mapping by id, or a list of
    dialogues with ``dialogue_id``."""
    if isinstance(gold, dict):
        return set(gold)
    return {str(d["dialogue_id"]) for d in gold if isinstance(d, dict)}
