"""``trackboard submit --fact KEY=VALUE``: the values sent as the upload's ``fact.KEY``
fields; a required fact left out is refused by the site naming it, nothing kept or charged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from leaderboard.submissions import services
from leaderboard.submissions.models import Submission
from tests.leaderboard.factories import KEYS, phase_with_references
from tests.leaderboard.web import GOLD_BYTES, PREDICTION
from tests.trackboard_cli.test_cli_against_a_live_server import _logged_in

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

DECLARED = [
    {
        "key": "asr",
        "label": "ASR system",
        "kind": "choice",
        "required": True,
        "choices": ["provided ASR", "Whisper", "other"],
    },
    {"key": "params", "label": "Parameters", "kind": "number", "unit": "billion"},
]


def test_submit_sends_the_facts_and_a_missing_required_one_is_refused_naming_it(
    live_server, run_cli, tmp_path: Path, enqueued
):
    phase = phase_with_references(GOLD_BYTES)
    phase.challenge.system_facts = DECLARED
    phase.challenge.save()
    team = _logged_in(run_cli, live_server, phase)
    prediction = tmp_path / "run.json"
    prediction.write_text(json.dumps(PREDICTION))
    files = [arg for k in KEYS for arg in ("--file", f"{k}={prediction}")]

    refused = run_cli("submit", str(phase.pk), *files, "--method", "m", "--fact", "params=0.77")
    assert refused.returncode != 0
    assert "nothing was stored or charged" in refused.stderr
    assert (
        "fact.asr: ASR system (asr) is required: give one of: provided ASR, Whisper, other"
        in refused.stderr
    )
    assert not Submission.objects.exists()
    assert services.quota_usage(team, phase) == (0, 0)

    sent = run_cli(
        "submit", str(phase.pk), *files, "--method", "m",
        "--fact", "asr=Whisper", "--fact", "params=0.77",
    )  # fmt: skip
    assert sent.returncode == 0, sent.stderr
    (row,) = Submission.objects.all()
    assert row.facts == {"asr": "Whisper", "params": 0.77}


def test_a_fact_without_a_value_separator_is_a_usage_error(run_cli, tmp_path: Path):
    prediction = tmp_path / "run.json"
    prediction.write_text("{}")
    found = run_cli("submit", "1", "--file", f"tts-verbatim={prediction}", "--fact", "asr")
    assert found.returncode == 2
    assert "--fact takes KEY=VALUE, e.g. asr=Whisper (got 'asr')" in found.stderr
