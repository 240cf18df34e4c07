"""The challenge page names the task, every scorer setting with this challenge's value, the
accepted formats and the phases with their states; and the local command it prints, run on the
same files, gives the site's numbers, signature included (every task, settings away from the
defaults)."""

from __future__ import annotations

import contextlib
import datetime as dt
import io
import json
import re
import shlex
from html import unescape

import pytest
from django.urls import reverse
from django.utils import timezone

from leaderboard.challenges.services import add_reference
from leaderboard.submissions.services import run_scoring, submit
from scoring.cli import main as scorer
from tests.leaderboard.factories import (
    ChallengeFactory,
    ConditionFactory,
    PhaseFactory,
    approved_team,
    upload,
)
from tests.leaderboard.task_data import DVD_GOLD, DVD_PARTIAL, MWZ_GOLD, MWZ_PARTIAL, SCHEMA
from tests.leaderboard.web import GOLD, PREDICTION, tight

pytestmark = pytest.mark.django_db

#: task -> (gold, schema or None, a prediction, options away from every default, the task's
#: label, the settings rows expected: label, value, default, flag)
TASKS = {
    "dstc11": (
        GOLD,
        None,
        PREDICTION,
        {"profile": "strict", "missing": "empty", "n_boot": 300, "level": 0.9, "seed": 7},
        "DSTC11",
        [
            ("Normalisation", "strict", "default", "--profile"),
            ("Missing turns", "empty", "reject", "--missing"),
        ],
    ),
    "multiwoz22": (
        MWZ_GOLD,
        SCHEMA,
        MWZ_PARTIAL,
        {"match": "fuzzy", "missing": "empty", "n_boot": 300, "level": 0.9, "seed": 7},
        "MultiWOZ 2.2",
        [
            ("Value matching", "fuzzy", "exact", "--match"),
            ("Missing turns", "empty", "reject", "--missing"),
        ],
    ),
    "dvd": (
        DVD_GOLD,
        None,
        DVD_PARTIAL,
        {"missing": "empty", "n_boot": 300, "level": 0.9, "seed": 7},
        "DVD",
        [("Missing turns", "empty", "reject", "--missing")],
    ),
}
BOOTSTRAP_ROWS = [
    ("Bootstrap resamples", "300", "1000", "--bootstrap"),
    ("Confidence level", "0.9", "0.95", "--level"),
    ("Seed", "7", "12345", "--seed"),
]


def _challenge(task: str):
    gold, schema, _, options, _, _ = TASKS[task]
    challenge = ChallengeFactory(task=task, scorer_options=options)
    now = timezone.now()
    day = dt.timedelta(days=1)
    phase = PhaseFactory(challenge=challenge, name="Test", opens_at=now - day, closes_at=now + day)
    PhaseFactory(challenge=challenge, name="Later", slug="later", opens_at=now + 2 * day,
                 closes_at=now + 9 * day)  # fmt: skip
    condition = ConditionFactory(phase=phase, key="test", label="Test set")
    files = {"schema": (json.dumps(schema).encode(), "schema.json")} if schema else None
    add_reference(condition, json.dumps(gold).encode(), "gold.json", files)
    return challenge, phase


def _settings_rows(page: str) -> list[tuple[str, ...]]:
    table = tight(page).split('<table id="scorer-settings">')[1].split("</table>")[0]
    rows = re.findall(
        r'<tr><th scope="row">([^<]+)</th><td><code>([^<]*)</code></td><td><code>([^<]*)</code>'
        r"</td><td><code>([^<]*)</code></td>",
        table,
    )
    return [tuple(unescape(cell) for cell in row) for row in rows]


@pytest.mark.parametrize("task", list(TASKS))
def test_the_page_lists_every_setting_and_the_phases(client, task):
    challenge, _ = _challenge(task)
    page = client.get(reverse("challenges:detail", args=[challenge.slug])).text
    label = TASKS[task][4]
    assert re.search(rf"<h2 id=\"task-heading\">Task: {re.escape(label)}", page)
    assert _settings_rows(page) == TASKS[task][5] + BOOTSTRAP_ROWS
    for name in challenge.scoring_task().formats:
        assert f"<dt><code>{name}</code>" in page
    # The phases with their state and a countdown.
    assert re.search(r'state-open">open</span>\s+<span class="countdown">\(closes in ', page)
    assert re.search(r'state-upcoming">upcoming</span>\s+<span class="countdown">\(opens in ', page)


@pytest.mark.parametrize("task", list(TASKS))
def test_the_printed_command_gives_the_sites_numbers(client, task, tmp_path):
    challenge, phase = _challenge(task)
    gold, schema, prediction = TASKS[task][:3]
    team = approved_team(phase)
    made = submit(team=team, phase=phase, user=team.created_by,
                  files={"test": upload(prediction)}, method_name="run", enqueue=False)  # fmt: skip
    assert run_scoring(made.pk) == "scored"
    (result,) = made.results.all()

    page = client.get(reverse("challenges:detail", args=[challenge.slug])).text
    command = unescape(re.search(r'<code id="local-command">([^<]+)</code>', page).group(1))
    script = unescape(re.search(r'<code id="script-command">([^<]+)</code>', page).group(1))
    assert command.startswith("python -m scoring score --task ")
    assert script == command.replace("python -m scoring", "trackboard-score", 1)
    (tmp_path / "gold.json").write_text(json.dumps(gold))
    (tmp_path / "predictions.json").write_text(json.dumps(prediction))
    if schema:
        (tmp_path / "schema.json").write_text(json.dumps(schema))
    args = [
        str(tmp_path / word) if word.endswith(".json") else word
        for word in shlex.split(command)[3:]
    ]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert scorer([*args, "--json"]) == 0
    local = json.loads(out.getvalue())
    assert local["signature"] == result.signature
    assert local["metrics"] == pytest.approx(result.metrics)
    assert set(local["intervals"]) == set(result.intervals)
    for name, bounds in result.intervals.items():
        assert local["intervals"][name] == pytest.approx(bounds)
