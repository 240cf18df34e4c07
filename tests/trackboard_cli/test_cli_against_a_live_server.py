"""End to end through real HTTP: a token made on the profile page, ``trackboard login``,
``trackboard submit`` with ``--wait`` while the test scores the submission, the task's metrics
on the screen, and the leaderboard; for every task, and on a hidden phase with a split."""

from __future__ import annotations

import json
import re
import stat
import subprocess
import threading
import time
from pathlib import Path

import pytest
from django.test import Client

from leaderboard.challenges.models import Phase
from leaderboard.challenges.split import part_of
from leaderboard.submissions import services
from leaderboard.submissions.models import Submission
from tests.leaderboard.boards import built
from tests.leaderboard.factories import KEYS, UserFactory, approved_team, phase_with_references
from tests.leaderboard.task_data import (
    DVD_GOLD,
    DVD_PARTIAL,
    MWZ_GOLD,
    MWZ_PARTIAL,
    SCHEMA,
    make_phase,
)
from tests.leaderboard.web import GOLD, GOLD_BYTES, JGA, PREDICTION, SER, log_in
from tests.trackboard_cli.conftest import trackboard_command

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def _token_from_profile_page(user) -> str:
    client = Client()
    log_in(client, user)
    page = client.post("/accounts/profile/tokens/", {"name": "cli test"}).content.decode()
    return re.search(r'<code id="new-token">([^<]+)</code>', page).group(1)


def _submit_and_wait(
    cli_env, args: list[str], outcome: str = "scored"
) -> tuple[int, str, str, int]:
    """``trackboard submit ... --wait`` while the test acts as the workers: once the command
    says the submission was received, the test scores it, and once the command has ended, it
    builds the phase's boards (as the board's worker does after the scoring). Returns (id,
    stdout, stderr, exit code).

    The test reads nothing from the database while the command uploads: on SQLite the live
    server shares the test's connection, which two threads cannot use at once. The command
    checks every second, so it is not reading while the submission is scored."""
    process = subprocess.Popen(
        [*trackboard_command(), "submit", *args, "--wait", "--interval", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=cli_env,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip
    lines: list[str] = []

    def read() -> None:
        for line in process.stdout:
            lines.append(line)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + 30
        pk = None
        while pk is None:
            found = [re.match(r"Submission (\d+) received", line) for line in list(lines)]
            pk = next((int(m[1]) for m in found if m), None)
            if pk is None and process.poll() is not None:
                reader.join(timeout=5)
                pytest.fail(f"the CLI ended early: {''.join(lines)}{process.stderr.read()}")
            if time.monotonic() > deadline:
                pytest.fail(f"no submission arrived: {''.join(lines)}")
            time.sleep(0.05)
        assert services.run_scoring(pk) == outcome
        code = process.wait(timeout=30)
        reader.join(timeout=5)
        built(Submission.objects.select_related("phase").get(pk=pk).phase)
        return pk, "".join(lines), process.stderr.read(), code
    finally:
        process.kill()


def test_login_submit_wait_and_leaderboard_through_the_cli(
    live_server, run_cli, cli_env, tmp_path: Path, enqueued
):
    phase = phase_with_references(GOLD_BYTES)
    team = approved_team(phase)
    key = _token_from_profile_page(team.created_by)

    login = run_cli("login", "--url", live_server.url, "--token", key)
    assert login.returncode == 0, login.stderr
    config = Path(cli_env["TRACKBOARD_CONFIG"])
    assert stat.S_IMODE(config.stat().st_mode) == 0o600
    assert json.loads(config.read_text()) == {"url": live_server.url, "token": key}

    listing = run_cli("challenges")
    assert listing.returncode == 0 and f"{phase.challenge.slug}/{phase.slug}" in listing.stdout

    files = []
    for key_name in KEYS:
        path = tmp_path / f"{key_name}.json"
        path.write_text(json.dumps(PREDICTION))
        files += ["--file", f"{key_name}={path}"]
    target = f"{phase.challenge.slug}/{phase.slug}"
    pk, out, err, code = _submit_and_wait(cli_env, [target, *files, "--method", "CLI run"])
    assert code == 0, (out, err)
    assert f"submission {pk}: queued" in out and f"submission {pk}: scored" in out
    assert "JGA" in out and "SER" in out
    for key_name in KEYS:
        cells = next(ln.split() for ln in out.splitlines() if ln.split()[:1] == [key_name])
        assert cells[1] == JGA and SER in cells

    board = run_cli("leaderboard", str(phase.pk), "--json")
    assert board.returncode == 0, board.stderr
    data = json.loads(board.stdout)
    (row,) = data["results"]
    assert row["method_name"] == "CLI run" and f"{row['means']['jga']:.2f}" == JGA
    assert [m["name"] for m in data["metrics"]] == ["jga", "ser"]
    by_slug = run_cli("leaderboard", target, "--condition", "tts-verbatim")
    assert by_slug.returncode == 0 and "CLI run" in by_slug.stdout

    results = run_cli("results", str(pk), "--json")
    metrics = json.loads(results.stdout)["results"]["tts-verbatim"]["metrics"]
    assert metrics["ser"]["value"] == pytest.approx(100 / 6)
    status = run_cli("status")
    assert status.returncode == 0 and str(pk) in status.stdout and "scored" in status.stdout
    assert run_cli("status", str(pk)).returncode == 0


def test_a_file_the_server_rejects_exits_2_with_the_scorers_message(
    live_server, run_cli, cli_env, tmp_path: Path, enqueued
):
    phase = phase_with_references(GOLD_BYTES)
    team = approved_team(phase)
    assert run_cli("login", "--url", live_server.url, "--token", _token_from_profile_page(
        team.created_by)).returncode == 0  # fmt: skip
    # Well-formed, so it passes the local check; the server finds a dialogue missing.
    partial = tmp_path / "partial.json"
    partial.write_text(json.dumps({"mul0001": PREDICTION["mul0001"]}))
    files = [arg for k in KEYS for arg in ("--file", f"{k}={partial}")]
    pk, out, err, code = _submit_and_wait(cli_env, [str(phase.pk), *files], outcome="invalid")
    assert code == 2, (out, err)
    assert f"submission {pk}: invalid" in out
    assert "sng0002" in err and "does not count" in err
    assert "Traceback" not in err


def _logged_in(run_cli, live_server, phase):
    team = approved_team(phase)
    login = run_cli("login", "--url", live_server.url, "--token", _token_from_profile_page(
        team.created_by))  # fmt: skip
    assert login.returncode == 0, login.stderr
    return team


def _cells(out: str, first: str) -> list[str]:
    return next(ln.split() for ln in out.splitlines() if ln.split()[:1] == [first])


def _figures(out: str) -> set[str]:
    """Every figure the output shows as a word of its own ("75.00"), so a figure is looked for
    where figures are printed, never among the digits of a time or an id."""
    return {word for word in out.split() if re.fullmatch(r"\d+\.\d\d", word)}


#: task -> (gold, reference files, a valid prediction, its format, a broken file, a phrase of
#: the scorer's message, {column label: value}); the values are worked by hand in
#: tests/leaderboard/api/test_api_every_task.py.
OTHER_TASKS = {
    "multiwoz22": (
        json.dumps(MWZ_GOLD).encode(),
        {"schema": (json.dumps(SCHEMA).encode(), "schema.json")},
        MWZ_PARTIAL,
        "flat-states",
        {"d1": [{"hotel-area": 5}, {}], "d2": [{}]},
        "expected a string or a list of strings",
        {"JGA": "66.67", "Cat. JGA": "100.00", "Avg. non-cat. acc.": "50.00"},
    ),
    "dvd": (
        json.dumps(DVD_GOLD).encode(),
        None,
        DVD_PARTIAL,
        "token-sequence",
        {"v1": ["<frame10> <obj1> SIZE large", ""], "v2": [""]},
        "a segment needs two frame tokens",
        {"Joint Acc": "66.67", "Joint Acc IoU@0.5": "66.67", "State F1": "80.00"},
    ),
}


@pytest.mark.parametrize("task", list(OTHER_TASKS))
def test_submit_accepts_a_valid_file_of_another_task_and_refuses_a_broken_one(
    live_server, run_cli, cli_env, tmp_path: Path, enqueued, task
):
    gold, files, prediction, found, broken, phrase, shown = OTHER_TASKS[task]
    phase = make_phase(task, gold, files)
    _logged_in(run_cli, live_server, phase)
    target = f"{phase.challenge.slug}/{phase.slug}"

    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(broken))
    refused = run_cli("submit", target, "--file", f"test={bad}")
    assert refused.returncode == 2
    assert "test: bad.json: " in refused.stderr and phrase in refused.stderr
    assert "Nothing was uploaded" in refused.stderr and "Traceback" not in refused.stderr
    assert not Submission.objects.exists()

    good = tmp_path / "good.json"
    good.write_text(json.dumps(prediction))
    pk, out, err, code = _submit_and_wait(cli_env, [str(phase.pk), "--file", f"test={good}"])
    assert code == 0, (out, err)
    assert f"test: good.json looks valid ({found})." in out
    assert f"submission {pk}: scored" in out
    for label, value in shown.items():
        assert label in out
        assert value in _cells(out, "test")
    assert f"signature: {task}|" in out
    status = run_cli("status", str(pk))
    assert status.returncode == 0
    assert set(shown.values()) <= set(_cells(status.stdout, "test"))

    board = run_cli("leaderboard", str(phase.pk), "--condition", "test")
    assert board.returncode == 0, board.stderr
    assert all(label in board.stdout for label in shown)
    assert set(shown.values()) <= set(_cells(board.stdout, "1"))
    # The overview: the means of the board's first two columns, the primary one first, then
    # the count of scored submissions (this one).
    overview = run_cli("leaderboard", target)
    label = phase.challenge.scoring_task().metrics[0].label
    assert overview.returncode == 0 and label in overview.stdout
    assert _cells(overview.stdout, "1")[-3:][0] == shown[label]
    assert _cells(overview.stdout, "1")[-1] == "1"


def _split_in_two(phase) -> dict[str, str]:
    """Give ``phase`` a split seed that puts one of GOLD's two dialogues in each part."""
    for seed in range(100):
        Phase.objects.filter(pk=phase.pk).update(split_fraction=0.5, split_seed=seed)
        phase.refresh_from_db()
        parts = {d: part_of(phase, d) for d in GOLD}
        if sorted(parts.values()) == ["private", "public"]:
            return parts
    raise AssertionError("no seed splits the two dialogues")


@pytest.mark.parametrize("own_public", [True, False])
def test_submit_wait_and_status_on_a_hidden_phase_with_a_split(
    live_server, run_cli, cli_env, tmp_path: Path, enqueued, own_public
):
    phase = phase_with_references(GOLD_BYTES)
    parts = _split_in_two(phase)
    Phase.objects.filter(pk=phase.pk).update(
        results_visibility=Phase.Visibility.HIDDEN, show_own_public_score=own_public
    )
    _logged_in(run_cli, live_server, phase)
    path = tmp_path / "run.json"
    path.write_text(json.dumps(PREDICTION))
    files = [arg for k in KEYS for arg in ("--file", f"{k}={path}")]
    pk, out, err, code = _submit_and_wait(cli_env, [str(phase.pk), *files])
    assert code == 0, (out, err)
    assert "Traceback" not in err
    # mul0001 alone: JGA 100, SER 0; sng0002 alone: JGA 50 (one of two turns), SER 33.33.
    public = next(d for d, p in parts.items() if p == "public")
    jga, ser = {"mul0001": ("100.00", "0.00"), "sng0002": ("50.00", "33.33")}[public]
    for output in (out, run_cli("status", str(pk)).stdout, run_cli("results", str(pk)).stdout):
        assert JGA not in _figures(output)  # the whole reference's figures stay hidden
        if own_public:
            assert "Public part of the split only" in output
            for key in KEYS:
                cells = _cells(output, key)
                assert cells[1] == jga and ser in cells
        else:
            assert "hidden until the organisers reveal them" in output
            assert not any(line.split()[:1] == [KEYS[0]] for line in output.splitlines())
    board = run_cli("leaderboard", str(phase.pk))
    assert board.returncode == 1 and "hidden" in board.stderr and "Traceback" not in board.stderr


def test_a_hidden_phase_without_a_split_shows_no_figure_even_with_own_public_score(
    live_server, run_cli, cli_env, tmp_path: Path, enqueued
):
    # No split: there is no public part to show, so the CLI says what the pages say.
    phase = phase_with_references(
        GOLD_BYTES, results_visibility=Phase.Visibility.HIDDEN, show_own_public_score=True
    )
    _logged_in(run_cli, live_server, phase)
    path = tmp_path / "run.json"
    path.write_text(json.dumps(PREDICTION))
    files = [arg for k in KEYS for arg in ("--file", f"{k}={path}")]
    pk, out, err, code = _submit_and_wait(cli_env, [str(phase.pk), *files])
    assert code == 0, (out, err)
    for output in (out, run_cli("status", str(pk)).stdout, run_cli("results", str(pk)).stdout):
        assert JGA not in _figures(output) and SER not in _figures(output)
        assert "hidden until the organisers reveal them" in output


def test_an_unconfirmed_account_is_told_to_confirm_before_it_submits(
    live_server, run_cli, tmp_path: Path
):
    phase = phase_with_references(GOLD_BYTES)
    team = approved_team(phase)
    newcomer = UserFactory(confirmed=False)
    team.memberships.create(user=newcomer)
    token = _token_from_profile_page(newcomer)  # an unconfirmed account can make tokens
    assert run_cli("login", "--url", live_server.url, "--token", token).returncode == 0
    prediction = tmp_path / "prediction.json"
    prediction.write_text(json.dumps(PREDICTION))
    files = [arg for k in KEYS for arg in ("--file", f"{k}={prediction}")]
    result = run_cli("submit", str(phase.pk), *files)
    assert result.returncode == 1
    assert "Confirm your e-mail address first" in result.stderr
    assert "/accounts/profile/" in result.stderr and "Traceback" not in result.stderr
    assert not Submission.objects.filter(team=team).exists()


def test_sample_then_submit_with_the_token_only_in_the_environment(
    live_server, run_cli, cli_env, tmp_path: Path, enqueued
):
    # tests/scoring/test_samples.py: three user turns, one with an empty gold state: the
    # sample (every state empty) scores JGA 1/3 = 33.33
    from tests.scoring.test_samples import DSTC11_GOLD

    phase = make_phase("dstc11", json.dumps(DSTC11_GOLD).encode())
    team = approved_team(phase)
    cli_env["TRACKBOARD_URL"] = live_server.url
    cli_env["TRACKBOARD_TOKEN"] = _token_from_profile_page(team.created_by)
    assert not Path(cli_env["TRACKBOARD_CONFIG"]).exists()
    target = f"{phase.challenge.slug}/{phase.slug}"

    sample = run_cli("sample", target, "--output-dir", str(tmp_path), "--json")
    assert sample.returncode == 0, sample.stderr
    (written,) = json.loads(sample.stdout)
    path = Path(written["path"])
    assert written["condition"] == "test" and path.parent == tmp_path
    assert json.loads(path.read_bytes()) == {"MUL0001.json": [{}, {}], "PMUL0002.json": [{}]}

    args = [target, "--file", f"test={path}", "--method", "empty states"]
    pk, out, err, code = _submit_and_wait(cli_env, args)
    assert code == 0, (out, err)
    results = json.loads(run_cli("results", str(pk), "--json").stdout)
    assert results["results"]["test"]["metrics"]["jga"]["value"] == pytest.approx(100 / 3)
    assert not Path(cli_env["TRACKBOARD_CONFIG"]).exists()
