"""The demo's public development reference: each demo challenge's page gives the scorer's
command, and that command, run on the files downloaded from the page, scores (the first local
score in a minute); the run uploaded to the Development phase gets the same numbers on the
site. The development dialogues are not the hidden test reference's."""

from __future__ import annotations

import html
import io
import json
import re
import shlex
from contextlib import redirect_stdout

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from leaderboard.challenges.models import Challenge, Reference
from leaderboard.demo import dev_reference, dstc11, other_tasks
from leaderboard.submissions.models import Result
from leaderboard.submissions.services import run_scoring, submit
from scoring.cli import main as score

pytestmark = pytest.mark.django_db

SLUGS = [dstc11.SLUG, other_tasks.MULTIWOZ_SLUG, other_tasks.DVD_SLUG]


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
    phase = challenge.phases.get(slug=dev_reference.PHASE_SLUG)
    dev = phase.files.get(title=f"{dev_reference.TITLE} reference")
    dev_ids = _dialogue_ids(json.loads(dev.file.read()))
    others = Reference.objects.filter(condition__phase__challenge=challenge).exclude(
        condition__phase=phase
    )
    assert others.exists()
    for reference in others:
        with reference.file.open("rb") as handle:
            assert not dev_ids & _dialogue_ids(json.loads(handle.read()))


@pytest.mark.parametrize("slug", SLUGS)
def test_the_run_uploaded_to_the_development_phase_gets_the_local_numbers(demo, slug):
    challenge = Challenge.objects.get(slug=slug)
    phase = challenge.phases.get(slug=dev_reference.PHASE_SLUG)
    assert phase.is_open() and phase.allow_partial
    files = {f.original_name: f.file.read() for f in phase.files.all()}
    gold = files[f"{challenge.task}-dev-gold.json"]
    run = files[f"{challenge.task}-dev-run.json"]
    condition = phase.conditions.order_by("order").first()
    # the local score, as the page's command gives it (--json)
    local = tmp_dir_score(challenge.task, gold, run, files.get("schema.json"))
    user = get_user_model().objects.get(username="alice")
    team = user.memberships.get().team
    facts = {"asr": "Whisper"} if challenge.system_facts else None
    submission = submit(
        team=team, phase=phase, user=user, method_name="dev run", enqueue=False, facts=facts,
        files={condition.key: SimpleUploadedFile("dev-run.json", run)},
    )  # fmt: skip
    assert run_scoring(submission.pk) == "scored"
    (result,) = Result.objects.filter(submission=submission, current=True)
    for metric, value in local["metrics"].items():
        assert result.metrics[metric] == pytest.approx(value, abs=1e-9), metric


def tmp_dir_score(task: str, gold: bytes, run: bytes, schema: bytes | None) -> dict:
    """``trackboard-score score --json`` of the page's files, in a directory of their own."""
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as where:
        folder = Path(where)
        (folder / "gold.json").write_bytes(gold)
        (folder / "run.json").write_bytes(run)
        args = ["score", "--task", task, "--gold", str(folder / "gold.json"),
                "--pred", str(folder / "run.json"), "--json"]  # fmt: skip
        if schema is not None:
            (folder / "schema.json").write_bytes(schema)
            args += ["--schema", str(folder / "schema.json")]
        out = io.StringIO()
        with redirect_stdout(out):
            assert score(args) == 0
    return json.loads(out.getvalue())


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
