"""What the command does before (or without) talking to a server: local validation with the
scorer's messages, the config file, exit codes, and the documented examples."""

from __future__ import annotations

import json
import re
import shlex
import stat
import subprocess
from pathlib import Path

import pytest

import scoring
from tests.leaderboard.task_data import DVD_GOLD, DVD_PARTIAL, MWZ_GOLD, MWZ_PARTIAL, SCHEMA
from tests.leaderboard.web import GOLD_BYTES, MALFORMED, PREDICTION
from tests.trackboard_cli.conftest import trackboard_command
from trackboard_cli import config
from trackboard_cli.main import _parser
from trackboard_cli.validate import check_file

ROOT = Path(__file__).resolve().parents[2]


#: task -> (gold, reference files, a valid prediction and its format)
TASKS = {
    "dstc11": (GOLD_BYTES, {}, PREDICTION, "gold-json"),
    "multiwoz22": (
        json.dumps(MWZ_GOLD).encode(),
        {"schema": json.dumps(SCHEMA).encode()},
        MWZ_PARTIAL,
        "flat-states",
    ),
    "dvd": (json.dumps(DVD_GOLD).encode(), {}, DVD_PARTIAL, "token-sequence"),
}
#: (task, broken file, a phrase of the scorer's message)
BROKEN = [
    ("dstc11", *MALFORMED["bad-json"]),
    ("dstc11", *MALFORMED["wrong-value-type"]),
    ("multiwoz22", b'{"d1": [', "invalid JSON"),
    (
        "multiwoz22",
        json.dumps({"d1": [{"hotel-area": 5}, {}], "d2": [{}]}).encode(),
        "expected a string or a list of strings",
    ),
    (
        "dvd",
        json.dumps({"v1": ["<frame10> <obj1> SIZE large", ""], "v2": [""]}).encode(),
        "a segment needs two frame tokens",
    ),
]


def _server_message(task_name: str, content: bytes, name: str) -> str:
    """The server's message for the same bytes under the same name (its validation step)."""
    gold, files, *_ = TASKS[task_name]
    task = scoring.get_task(task_name)
    reference = task.load_reference(
        scoring.Source(gold, "gold.json"),
        {key: scoring.Source(data, f"{key}.json") for key, data in files.items()},
    )
    with pytest.raises(scoring.ScoringError) as server:
        task.load_prediction(scoring.Source(content, name), reference)
    return str(server.value)


@pytest.mark.parametrize(("task", "content", "phrase"), BROKEN)
def test_local_validation_gives_the_servers_message(tmp_path, task, content, phrase):
    path = tmp_path / "run.json"
    path.write_bytes(content)
    with pytest.raises(scoring.ScoringError) as local:
        check_file(path, task)
    assert str(local.value) == _server_message(task, content, "run.json")
    assert phrase in str(local.value)


@pytest.mark.parametrize("task", list(TASKS))
def test_a_well_formed_file_passes_and_its_format_is_named(tmp_path, task):
    *_, prediction, found = TASKS[task]
    path = tmp_path / "run.json"
    path.write_text(json.dumps(prediction))
    assert check_file(path, task) == found


def _challenge(task: str, options: dict | None = None, phase_id: int = 3) -> dict:
    """The parts of ``GET /api/v1/challenges/{slug}/`` the command reads."""
    return {
        "slug": "c",
        "phases": [{"id": phase_id, "slug": "test", "conditions": [{"key": "test"}]}],
        "scoring": {"task": task, "options": options or {}},
    }


@pytest.mark.parametrize(("task", "content", "phrase"), BROKEN)
def test_submit_with_an_invalid_file_exits_2_without_uploading(
    run_cli, fake_site, tmp_path, task, content, phrase
):
    challenge = _challenge(task)
    site = fake_site({"challenges/": {"results": [challenge]}, "challenges/c/": challenge})
    broken = tmp_path / "broken.json"
    broken.write_bytes(content)
    for target in ("3", "c/test"):
        result = run_cli("submit", target, "--file", f"test={broken}")
        assert result.returncode == 2
        assert f"test: {_server_message(task, content, 'broken.json')}" in result.stderr
        assert phrase in result.stderr
        assert "Nothing was uploaded" in result.stderr and "Traceback" not in result.stderr
    # The command read the challenge's task and nothing else: nothing was uploaded.
    assert site.posts() == []


def test_submit_checks_with_the_challenges_options(run_cli, fake_site, tmp_path):
    """The challenge's options reach the task's check: a profile this installation knows is
    used; one it does not know leaves the check to the server, and says why."""
    good = tmp_path / "run.json"
    good.write_text(json.dumps(PREDICTION))
    strict = _challenge("dstc11", {"profile": "strict", "missing": "reject"})
    site = fake_site({"challenges/": {"results": [strict]}, "challenges/c/": strict})
    result = run_cli("submit", "c/test", "--file", f"test={good}")
    assert "test: run.json looks valid (gold-json)." in result.stdout
    assert site.posts() == ["/api/v1/phases/3/submissions/"]
    unknown = _challenge("dstc11", {"profile": "lenient"})
    site = fake_site({"challenges/": {"results": [unknown]}, "challenges/c/": unknown})
    result = run_cli("submit", "c/test", "--file", f"test={good}")
    assert "looks valid" not in result.stdout
    assert "'lenient'" in result.stderr and "the server checks them" in result.stderr
    assert site.posts() == ["/api/v1/phases/3/submissions/"]


def test_submit_to_an_unknown_phase_id_exits_2_without_uploading(run_cli, fake_site, tmp_path):
    challenge = _challenge("dvd")
    site = fake_site({"challenges/": {"results": [challenge]}, "challenges/c/": challenge})
    good = tmp_path / "run.json"
    good.write_text(json.dumps(DVD_PARTIAL))
    result = run_cli("submit", "99", "--file", f"test={good}")
    assert result.returncode == 2 and "no phase 99" in result.stderr
    assert site.posts() == []


def test_condition_keys_are_checked_against_the_phase_before_anything_is_uploaded(
    run_cli, fake_site, tmp_path
):
    challenge = _challenge("dvd")
    challenge["phases"][0]["conditions"] = [{"key": "test"}, {"key": "dev"}]
    site = fake_site({"challenges/": {"results": [challenge]}, "challenges/c/": challenge})
    good = tmp_path / "run.json"
    good.write_text(json.dumps(DVD_PARTIAL))
    for target in ("3", "c/test"):
        result = run_cli("submit", target, "--file", f"tts={good}", "--file", f"test={good}")
        assert result.returncode == 2 and "Traceback" not in result.stderr
        assert "the phase has no condition 'tts' (its conditions: test, dev)" in result.stderr
        assert "missing: --file dev=PATH" in result.stderr
        assert "Nothing was uploaded" in result.stderr
    assert site.posts() == []
    # a phase taking partial submissions takes one condition
    challenge["phases"][0]["allow_partial"] = True
    result = run_cli("submit", "c/test", "--file", f"test={good}")
    assert "missing:" not in result.stderr and "no condition" not in result.stderr
    assert site.posts() == ["/api/v1/phases/3/submissions/"]  # (the stand-in site answers 404)


def test_without_method_the_name_comes_from_the_file_and_is_said(run_cli, fake_site, tmp_path):
    challenge = _challenge("dvd")
    site = fake_site({"challenges/": {"results": [challenge]}, "challenges/c/": challenge})
    good = tmp_path / "bert-tracker.json"
    good.write_text(json.dumps(DVD_PARTIAL))
    result = run_cli("submit", "c/test", "--file", f"test={good}")
    assert "the method is named 'bert-tracker' after the file" in result.stderr
    assert "Pass --method NAME" in result.stderr
    assert site.bodies[-1].count(b'name="method_name"\r\n\r\nbert-tracker\r\n') == 1


def test_a_task_this_installation_does_not_know_is_left_to_the_server(run_cli, fake_site, tmp_path):
    challenge = _challenge("a-future-task")
    site = fake_site({"challenges/": {"results": [challenge]}, "challenges/c/": challenge})
    path = tmp_path / "run.json"
    path.write_text("{}")
    result = run_cli("submit", "c/test", "--file", f"test={path}")
    assert "the server checks them" in result.stderr and "Traceback" not in result.stderr
    assert site.posts() == ["/api/v1/phases/3/submissions/"]
    missing = run_cli("submit", "c/test", "--file", f"test={tmp_path / 'missing.json'}")
    assert missing.returncode == 2 and "missing.json: no such file" in missing.stderr
    assert "Nothing was uploaded" in missing.stderr and "Traceback" not in missing.stderr
    assert site.posts() == ["/api/v1/phases/3/submissions/"]


def test_a_leaderboard_piped_into_head_ends_quietly(run_cli, fake_site, cli_env):
    """Enough rows to fill the pipe: the command is still writing when ``head`` leaves."""
    rows = [
        {
            "rank": n + 1,
            "team": {"slug": f"t{n}", "name": f"Team {n}"},
            "method_name": f"method {n}",
            "metrics": {"joint": {"value": 50.0, "ci": [40.0, 60.0]}},
        }
        for n in range(5000)
    ]
    board = {
        "phase": {"id": 3, "slug": "test", "challenge": "c"},
        "metrics": [{"name": "joint", "label": "Joint Acc", "direction": "higher"}],
        "condition": "test",
        "conditions": [{"key": "test"}],
        "results": rows,
        "next": None,
    }
    fake_site({"phases/3/leaderboard/": board})
    command = " ".join(shlex.quote(word) for word in trackboard_command())
    done = subprocess.run(
        ["bash", "-o", "pipefail", "-c", f"{command} leaderboard 3 --condition test | head -1"],
        capture_output=True, text=True, env=cli_env, timeout=60, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.stdout == "c/test: test\n"
    assert done.stderr == ""
    # The reader stopped early: the output was not all written, which is not a success.
    assert done.returncode == 1
    whole = run_cli("leaderboard", "3", "--condition", "test")
    assert whole.returncode == 0 and len(whole.stdout.splitlines()) == 5002


def test_commands_need_a_login_first(run_cli):
    result = run_cli("challenges")
    assert result.returncode == 1
    assert "trackboard login --url URL" in result.stderr and "Traceback" not in result.stderr


def test_an_unreachable_server_is_a_message_not_a_traceback(run_cli):
    result = run_cli("login", "--url", "http://127.0.0.1:9", "--token", "tb_x")
    assert result.returncode == 1
    assert "Cannot reach" in result.stderr and "Traceback" not in result.stderr


def test_a_malformed_file_option_exits_2(run_cli):
    result = run_cli("submit", "1", "--file", "no-equals-sign")
    assert result.returncode == 2 and "CONDITION=PATH" in result.stderr


def test_the_config_file_is_private(tmp_path, monkeypatch):
    monkeypatch.setenv("TRACKBOARD_CONFIG", str(tmp_path / "sub" / "config.json"))
    path = config.save(config.Config(url="https://x.example", token="tb_secret"))
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert config.load() == config.Config(url="https://x.example", token="tb_secret")


def test_the_config_lives_in_the_xdg_config_directory(tmp_path, monkeypatch):
    monkeypatch.delenv("TRACKBOARD_CONFIG", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert config.config_path() == tmp_path / "trackboard" / "config.json"


def test_every_command_in_the_cli_docs_parses():
    text = (ROOT / "docs" / "cli.md").read_text()
    commands = re.findall(r"^trackboard .+$", text, flags=re.MULTILINE)
    assert len(commands) >= 10
    parser = _parser()
    for line in commands:
        words = shlex.split(line)
        # a pipe into another command (``| head``) and a redirection are the shell's
        for shell in ("|", ">"):
            words = words[: words.index(shell)] if shell in words else words
        args = parser.parse_args(words[1:])
        assert callable(args.handler), line


def test_every_path_in_the_api_docs_is_served(client):
    from django.urls import resolve

    text = (ROOT / "docs" / "api.md").read_text()
    paths = set(re.findall(r"`(?:GET|POST) (/api/v1/[^`]*)`", text))
    # 25 for every user (announcements the sixteenth, teams and registration the next six, a
    # team's history the twenty-third, your data's export the twenty-fourth, the board's CSV
    # the twenty-fifth), 6 for organisers (the audit log the sixth)
    assert len(paths) == 31
    for path in paths:
        concrete = re.sub(r"\{slug\}", "dstc11", re.sub(r"\{id\}", "3", path))
        concrete = concrete.replace("{condition}", "tts-verbatim")
        assert resolve(concrete).url_name != "not-found", path


def test_table_prints_the_sites_table_and_sends_the_options(run_cli, fake_site):
    table = "\\begin{table}[t]\n\\toprule\nAuGPT & 17.93 \\\\\n\\end{table}\n"
    site = fake_site({"phases/3/table/": {"format": "latex", "table": table}})
    result = run_cli(
        "table", "3", "--format", "latex", "--board", "final", "--conditions", "a,b",
        "--metrics", "jga",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout == table
    ((method, path),) = site.requests
    assert method == "GET" and path.startswith("/api/v1/phases/3/table/?")
    assert set(path.split("?")[1].split("&")) == {
        "as=latex", "board=final", "conditions=a%2Cb", "metrics=jga"
    }  # fmt: skip
    refused = run_cli("table", "4", "--format", "markdown")
    # the phase the user named does not exist: said by name, invalid input
    assert refused.returncode == 2 and "There is no phase 4 on this site." in refused.stderr


def test_the_leaderboard_shows_rank_intervals_scored_submissions_and_the_detectable_difference(
    run_cli, fake_site
):
    rows = [
        {"rank": 1, "rank_interval": [1, 2], "team": {"slug": "a", "name": "Alpha"},
         "method_name": "m1", "submissions": 12, "group": "1\u20132",
         "metrics": {"jga": {"value": 45.1, "ci": [43.0, 47.2]}}},
        {"rank": 2, "rank_interval": [1, 2], "team": {"slug": "b", "name": "Beta"},
         "method_name": "m2", "submissions": 3, "group": "1\u20132",
         "metrics": {"jga": {"value": 44.9, "ci": [42.8, 47.0]}}},
        {"rank": 3, "rank_interval": [3, 3], "team": {"slug": "c", "name": "Gamma"},
         "method_name": "m3", "submissions": 1,
         "metrics": {"jga": {"value": 30.0, "ci": [28.0, 32.0]}}},
    ]  # fmt: skip
    board = {
        "phase": {"id": 3, "slug": "test", "challenge": "c"},
        "metrics": [{"name": "jga", "label": "JGA", "direction": "higher", "primary": True}],
        "condition": "tts",
        "conditions": [{"key": "tts"}],
        "ladder": False,
        "detectable_difference": {"tts": {"value": 1.904, "note": ""}},
        "results": rows,
        "next": None,
    }
    fake_site({"phases/3/leaderboard/": board})
    result = run_cli("leaderboard", "3", "--condition", "tts")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[1].split() == [
        "RANK", "95%", "RANKS", "GROUP", "TEAM", "METHOD", "JGA", "95%", "CI", "SCORED"
    ]  # fmt: skip
    assert lines[2].split() == [
        "1",
        "1-2",
        "1\u20132",
        "Alpha",
        "m1",
        "45.10",
        "[43.00,",
        "47.20]",
        "12",
    ]
    assert lines[4].split() == ["3", "3", "-", "Gamma", "m3", "30.00", "[28.00,", "32.00]", "1"]
    assert "GROUP: the ranks of the entries it is statistically tied with" in result.stdout
    assert "differences under 1.90 JGA points are not resolvable on this test set" in (
        result.stdout
    )
    shown = json.loads(run_cli("leaderboard", "3", "--condition", "tts", "--json").stdout)
    assert shown["detectable_difference"] == {"tts": {"value": 1.904, "note": ""}}
    assert shown["results"][0]["rank_interval"] == [1, 2]


def test_table_asks_for_rank_intervals(run_cli, fake_site):
    site = fake_site({"phases/3/table/": {"format": "markdown", "table": "| x |\n"}})
    result = run_cli("table", "3", "--format", "markdown", "--rank-intervals")
    assert result.returncode == 0, result.stderr
    ((_, path),) = site.requests
    assert set(path.split("?")[1].split("&")) == {"as=markdown", "rank_intervals=yes"}


def test_table_asks_for_the_per_condition_view(run_cli, fake_site):
    site = fake_site({"phases/3/table/": {"format": "markdown", "table": "| x |\n"}})
    result = run_cli("table", "3", "--format", "markdown", "--per-condition")
    assert result.returncode == 0, result.stderr
    ((_, path),) = site.requests
    assert set(path.split("?")[1].split("&")) == {"as=markdown", "view=per-condition"}


def test_table_refuses_an_unknown_format_before_asking_the_site(run_cli, fake_site):
    site = fake_site({})
    result = run_cli("table", "3", "--format", "docx")
    assert result.returncode == 2 and "invalid choice: 'docx'" in result.stderr
    assert site.requests == []


def test_the_environment_comes_before_the_saved_file(cli_env, monkeypatch, tmp_path):
    from trackboard_cli import config

    path = tmp_path / "saved.json"
    path.write_text(json.dumps({"url": "https://saved.example", "token": "tb_saved"}))
    monkeypatch.setenv("TRACKBOARD_CONFIG", str(path))
    monkeypatch.setenv("TRACKBOARD_TOKEN", "tb_env")
    monkeypatch.delenv("TRACKBOARD_URL", raising=False)
    assert config.load() == config.Config("https://saved.example", "tb_env")
    monkeypatch.setenv("TRACKBOARD_URL", "https://ci.example")
    path.unlink()
    assert config.load() == config.Config("https://ci.example", "tb_env")
    monkeypatch.delenv("TRACKBOARD_TOKEN")
    monkeypatch.delenv("TRACKBOARD_URL")
    with pytest.raises(config.ConfigError, match="or set TRACKBOARD_URL and TRACKBOARD_TOKEN"):
        config.load()


def test_every_command_takes_json():
    parser = _parser()
    commands = dict(next(a for a in parser._actions if a.dest == "command").choices)
    # a command with actions of its own (``team create``, ...): each action takes it
    for name in [n for n, c in commands.items() if c._subparsers is not None]:
        group = commands.pop(name)
        actions = next(a for a in group._actions if a.dest == f"{name}_command").choices
        commands.update({f"{name} {action}": found for action, found in actions.items()})
    assert {"team create", "team join", "team leave", "team show", "register"} <= set(commands)
    for name, command in commands.items():
        flags = {flag for action in command._actions for flag in action.option_strings}
        assert "--json" in flags, name


def test_submit_json_prints_the_submission_and_keeps_progress_on_stderr(
    run_cli, fake_site, tmp_path
):
    challenge = _challenge("dvd")
    answer = {"id": 7, "status": "queued", "method_name": "run"}
    fake_site({"challenges/": {"results": [challenge]}, "challenges/c/": challenge,
               "POST phases/3/submissions/": answer})  # fmt: skip
    good = tmp_path / "run.json"
    good.write_text(json.dumps(DVD_PARTIAL))
    result = run_cli("submit", "c/test", "--file", f"test={good}", "--method", "run", "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == answer
    assert "Submission 7 received (queued)." in result.stderr


def test_help_texts_are_plain_and_name_the_program_as_started():
    import sys

    help_text = subprocess.run(
        [*trackboard_command(), "--help"], capture_output=True, text=True, check=True
    ).stdout
    assert "``" not in help_text and "The trackboard command:" in help_text
    script = Path(sys.executable).with_name("trackboard-score")
    scorer = subprocess.run([str(script), "--help"], capture_output=True, text=True, check=True)
    assert scorer.stdout.startswith("usage: trackboard-score ")
    module = subprocess.run(
        [sys.executable, "-m", "scoring", "--help"], capture_output=True, text=True, check=True
    )
    assert module.stdout.startswith("usage: python -m scoring ")


def test_results_of_a_revealed_split_phase_label_each_part(run_cli, fake_site):
    def values(jga):
        return {"jga": {"value": jga, "ci": [jga - 1, jga + 1]}}

    submission = {
        "id": 5, "status": "scored", "results_visible": True, "ci_level": 0.95,
        "metrics": [{"name": "jga", "label": "JGA"}],
        "results": {"tts": {"part": "all", "signature": "dstc11|x", "metrics": values(40.0),
                            "parts": {"public": values(50.0), "private": values(30.0)}}},
    }  # fmt: skip
    fake_site({"submissions/5/": submission})
    result = run_cli("results", "5")
    assert result.returncode == 0, result.stderr
    rows = [line.split() for line in result.stdout.splitlines()]
    assert ["CONDITION", "PART", "JGA", "95%", "CI"] in rows
    assert ["tts", "whole", "40.00", "[39.00,", "41.00]"] in rows
    assert ["tts", "public", "50.00", "[49.00,", "51.00]"] in rows
    assert ["tts", "private", "30.00", "[29.00,", "31.00]"] in rows
    assert "private = the part the final ranking ranks" in result.stdout


def test_an_upload_whose_reply_was_lost_is_sent_again_with_the_same_key(
    run_cli, fake_site, tmp_path, cli_env
):
    cli_env["TRACKBOARD_RETRY_PAUSE"] = "0"
    challenge = _challenge("dvd")
    unavailable = {"error": {"code": "unavailable", "message": "Try again.", "details": {}}}
    answer = {"id": 8, "status": "queued"}
    pages = {"challenges/": {"results": [challenge]}, "challenges/c/": challenge}
    site = fake_site({**pages, "POST phases/3/submissions/": [(503, unavailable), (201, answer)]})
    good = tmp_path / "run.json"
    good.write_text(json.dumps(DVD_PARTIAL))
    result = run_cli("submit", "c/test", "--file", f"test={good}", "--method", "m")
    assert result.returncode == 0, result.stderr
    assert "Sending the upload again (same key)" in result.stderr
    assert "Submission 8 received" in result.stdout
    posts = [
        h for (method, _), h in zip(site.requests, site.headers, strict=True) if method == "POST"
    ]
    keys = [h.get("Idempotency-Key") for h in posts]
    assert len(keys) == 2 and keys[0] == keys[1] and len(keys[0]) == 32
