"""What the command does before (or without) talking to a server: local validation with the
scorer's messages, the config file, exit codes, and the documented examples."""

from __future__ import annotations

import json
import re
import shlex
import stat
from pathlib import Path

import pytest

import scoring
from tests.leaderboard.web import GOLD_BYTES, MALFORMED, PREDICTION
from trackboard_cli import config
from trackboard_cli.main import _parser
from trackboard_cli.validate import check_file

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("kind", ["bad-json", "wrong-value-type"])
def test_local_validation_gives_the_servers_message(tmp_path, kind):
    content, phrase = MALFORMED[kind]
    path = tmp_path / "run.json"
    path.write_bytes(content)
    with pytest.raises(scoring.ScoringError) as local:
        check_file(path)
    # The server's message for the same bytes under the same name (its validation step).
    with pytest.raises(scoring.ScoringError) as server:
        scoring.load_prediction(content, scoring.load_reference(GOLD_BYTES), "run.json")
    assert str(local.value) == str(server.value)
    assert phrase in str(local.value)


def test_a_well_formed_file_passes_and_its_format_is_named(tmp_path):
    path = tmp_path / "run.json"
    path.write_text(json.dumps(PREDICTION))
    assert check_file(path) == "gold-json"


def test_submit_with_an_invalid_file_exits_2_without_uploading(run_cli, tmp_path, cli_env):
    config_path = Path(cli_env["TRACKBOARD_CONFIG"])
    config_path.parent.mkdir(parents=True)
    # A URL nothing listens on: the command must stop before any request.
    config_path.write_text(json.dumps({"url": "http://127.0.0.1:9", "token": "tb_x"}))
    broken = tmp_path / "broken.json"
    broken.write_bytes(b'{"mul0001": [')
    result = run_cli("submit", "1", "--file", f"tts-verbatim={broken}")
    assert result.returncode == 2
    assert "tts-verbatim: broken.json: line 1" in result.stderr
    assert "Nothing was uploaded" in result.stderr and "Traceback" not in result.stderr


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
        args = parser.parse_args(shlex.split(line)[1:])
        assert callable(args.handler), line


def test_every_path_in_the_api_docs_is_served(client):
    from django.urls import resolve

    text = (ROOT / "docs" / "api.md").read_text()
    paths = set(re.findall(r"`(?:GET|POST) (/api/v1/[^`]*)`", text))
    assert len(paths) == 8
    for path in paths:
        concrete = re.sub(r"\{slug\}", "dstc11", re.sub(r"\{id\}", "3", path))
        assert resolve(concrete).url_name != "not-found", path
