"""A client generated from the schema the site serves (by the generator pinned in the
development lock) takes part in the DSTC11 demo: with a token it creates a team, registers it,
uploads a submission and reads its result; it downloads a sample and the board as CSV. What it
cannot do, the schema declares wrongly."""

from __future__ import annotations

import csv
import importlib
import io
import json
import os
import subprocess
import sys
from io import BytesIO
from pathlib import Path

import pytest
from django.core.management import call_command

from leaderboard.api.services import create_token
from leaderboard.challenges.models import Condition
from leaderboard.demo import dstc11
from leaderboard.submissions import services
from scoring.synth import make_gold
from tests.leaderboard.factories import UserFactory

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

PACKAGE = "trackboard_generated_api"


@pytest.fixture
def generated(live_server, tmp_path: Path):
    """The client package, generated into ``tmp_path`` from the live site's schema."""
    generator = Path(sys.executable).with_name("openapi-python-client")
    subprocess.run(
        [str(generator), "generate", "--url", f"{live_server.url}/api/v1/schema/?format=json",
         "--output-path", str(tmp_path / PACKAGE), "--meta", "none"],
        check=True, capture_output=True, text=True, cwd=tmp_path, timeout=300,
        env={**os.environ, "NO_PROXY": "*"},
    )  # fmt: skip
    sys.path.insert(0, str(tmp_path))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(tmp_path))
        for name in [n for n in sys.modules if n == PACKAGE or n.startswith(f"{PACKAGE}.")]:
            del sys.modules[name]


def test_a_generated_client_takes_part_in_the_demo(live_server, generated, enqueued):
    call_command("demo", stdout=open(os.devnull, "w"))  # noqa: SIM115
    _, key = create_token(UserFactory(), "generated client", scope="team")
    api = importlib.import_module(f"{PACKAGE}.api")
    teams = importlib.import_module(f"{PACKAGE}.api.teams")
    submissions = importlib.import_module(f"{PACKAGE}.api.submissions")
    challenges = importlib.import_module(f"{PACKAGE}.api.challenges")
    models = importlib.import_module(f"{PACKAGE}.models")
    File = importlib.import_module(f"{PACKAGE}.types").File
    assert api is not None
    client = generated.AuthenticatedClient(base_url=live_server.url, token=key)

    create = importlib.import_module(f"{teams.__name__}.teams_create")
    team = create.sync(client=client, body=models.TeamCreateRequest(name="Generated Trackers"))
    assert (team.slug, team.name, team.role) == (
        "generated-trackers",
        "Generated Trackers",
        "owner",
    )

    register = importlib.import_module(f"{teams.__name__}.challenges_register_create")
    answer = register.sync_detailed(
        slug=dstc11.SLUG, client=client, body=models.RegisterRequest(team=team.slug)
    )
    assert answer.status_code == 201
    assert (answer.parsed.team.slug, answer.parsed.status.value) == (team.slug, "approved")
    again = register.sync_detailed(
        slug=dstc11.SLUG, client=client, body=models.RegisterRequest(team=team.slug)
    )
    assert (again.status_code, again.parsed.error.code) == (409, "already_registered")
    state = importlib.import_module(f"{teams.__name__}.challenges_registrations_list")
    rows = state.sync(slug=dstc11.SLUG, client=client)
    assert [(r.team.slug, r.status.value) for r in rows] == [(team.slug, "approved")]

    detail = importlib.import_module(f"{challenges.__name__}.challenges_retrieve")
    challenge = detail.sync(slug=dstc11.SLUG, client=client)
    phase = next(p for p in challenge.phases if p.slug == "test")
    keys = [c.key for c in phase.conditions]
    assert keys == [k for k, _, _ in dstc11.CONDITIONS]

    # the demo's reference itself for every condition (each scores 100 JGA, 0 SER), and the
    # system fact the demo requires (a text part: no file name)
    gold = json.dumps(make_gold()).encode()
    body = models.PhasesSubmissionsCreateBody(method_name="Gold copy")
    for key_name in keys:
        body[key_name] = File(BytesIO(gold), f"{key_name}.json", "application/json")
    body["fact.asr"] = File(BytesIO(b"Whisper"))
    upload = importlib.import_module(f"{submissions.__name__}.phases_submissions_create")
    created = upload.sync_detailed(id=phase.id, client=client, body=body)
    assert created.status_code == 201, created.content
    assert services.run_scoring(created.parsed.id) == "scored"

    read = importlib.import_module(f"{submissions.__name__}.submissions_retrieve")
    submission = read.sync(id=created.parsed.id, client=client).to_dict()
    assert submission["status"] == "scored"
    assert submission["team"]["slug"] == team.slug
    assert submission["facts"]["asr"] == "Whisper"
    assert sorted(submission["results"]) == sorted(keys)
    for result in submission["results"].values():
        assert result["metrics"]["jga"]["value"] == 100.0
        assert result["metrics"]["ser"]["value"] == 0.0


def test_a_generated_client_downloads_a_sample_and_the_board_as_csv(live_server, generated):
    call_command("demo", stdout=open(os.devnull, "w"))  # noqa: SIM115
    client = generated.Client(base_url=live_server.url)
    challenges = importlib.import_module(f"{PACKAGE}.api.challenges")
    boards = importlib.import_module(f"{PACKAGE}.api.leaderboards")
    detail = importlib.import_module(f"{challenges.__name__}.challenges_retrieve")
    phase = next(p for p in detail.sync(slug=dstc11.SLUG, client=client).phases if p.slug == "test")
    key = phase.conditions[0].key

    # the sample: a JSON document (DSTC11's: an empty state for every user turn of every
    # dialogue the reference holds)
    sample = importlib.import_module(f"{challenges.__name__}.phases_samples_retrieve")
    answer = sample.sync_detailed(id=phase.id, condition=key, client=client)
    assert answer.status_code == 200
    summary = Condition.objects.get(phase_id=phase.id, key=key).active_reference().summary
    assert isinstance(answer.parsed, dict) and len(answer.parsed) == summary["dialogues"]
    assert sum(len(turns) for turns in answer.parsed.values()) == summary["turns"]
    assert all(state == {} for turns in answer.parsed.values() for state in turns)

    # the board as CSV, its own operation: the rows of the JSON board, every one
    as_json = importlib.import_module(f"{boards.__name__}.phases_leaderboard_retrieve")
    board = as_json.sync(id=phase.id, client=client, page_size=1000)
    as_csv = importlib.import_module(f"{boards.__name__}.phases_leaderboard_csv_retrieve")
    text = as_csv.sync(id=phase.id, client=client)
    rows = list(csv.DictReader(io.StringIO(text)))
    assert board.count > 1 and len(rows) == board.count
    assert [r["method"] for r in rows] == [r.method_name for r in board.results]
    one = as_csv.sync(id=phase.id, client=client, condition=key)
    assert len(list(csv.DictReader(io.StringIO(one)))) == board.count
    # an error of the CSV operation is the API's JSON error, read as such
    missing = as_csv.sync_detailed(id=phase.id, client=client, condition="no-such-condition")
    assert (missing.status_code, missing.parsed.error.code) == (400, "invalid")
