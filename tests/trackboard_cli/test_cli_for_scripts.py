"""The command as scripts use it: one JSON object on standard output for every outcome with
``--json`` (the API's error and its details for a failure), the documented exit codes, "not
found" messages that name what, ``--version`` and ``--token`` on every command, help for
every option, and the shell completion script."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest

from scoring.cli import _parser as scorer_parser
from scoring.version import __version__ as scorer_version
from tests.leaderboard.task_data import DVD_PARTIAL
from tests.trackboard_cli.conftest import trackboard_command
from tests.trackboard_cli.test_cli_offline import _challenge
from trackboard_cli import __version__
from trackboard_cli.main import _parser

REJECTED = {
    "code": "submission_rejected",
    "message": "The upload was rejected and does not count against your quota; see details.",
    "details": {
        "conditions": {"test": "a prediction file is required for this condition."},
        "kinds": {"test": "missing"},
        "valid": [],
    },
}
BAD_TOKEN = {"code": "authentication_failed", "message": "Invalid token.", "details": {}}


def _commands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """Every command by the words that run it, the actions of a command with actions (``team
    create``) included."""
    found: dict[str, argparse.ArgumentParser] = {}
    for name, command in next(a for a in parser._actions if a.dest == "command").choices.items():
        found[name] = command
        for action in command._actions:
            if isinstance(action, argparse._SubParsersAction):
                found.update({f"{name} {sub}": p for sub, p in action.choices.items()})
    return found


def _good_file(tmp_path: Path) -> Path:
    path = tmp_path / "run.json"
    path.write_text(json.dumps(DVD_PARTIAL))
    return path


def test_a_refused_upload_prints_the_apis_error_with_its_reasons(run_cli, fake_site, tmp_path):
    challenge = _challenge("dvd")
    fake_site({"challenges/": {"results": [challenge]}, "challenges/c/": challenge,
               "POST phases/3/submissions/": [(400, {"error": REJECTED})]})  # fmt: skip
    result = run_cli("submit", "c/test", "--file", f"test={_good_file(tmp_path)}", "--json")
    assert result.returncode == 2, result.stderr
    assert json.loads(result.stdout) == {"error": REJECTED, "status": 400, "exit_code": 2}
    # the person at the terminal reads the same reasons
    assert "test: a prediction file is required for this condition." in result.stderr


def test_a_bad_token_prints_the_apis_error(run_cli, fake_site):
    fake_site({"submissions/": [(401, {"error": BAD_TOKEN})]})
    result = run_cli("status", "--json")
    assert result.returncode == 1
    assert json.loads(result.stdout) == {"error": BAD_TOKEN, "status": 401, "exit_code": 1}
    assert "trackboard: Invalid token." in result.stderr


def test_a_file_refused_before_the_upload_is_a_json_error_naming_the_condition(
    run_cli, fake_site, tmp_path
):
    challenge = _challenge("dvd")
    site = fake_site({"challenges/": {"results": [challenge]}, "challenges/c/": challenge})
    missing = tmp_path / "absent.json"
    result = run_cli("submit", "c/test", "--file", f"test={missing}", "--json")
    assert result.returncode == 2
    error = json.loads(result.stdout)["error"]
    assert error["code"] == "invalid_files"
    assert set(error["details"]["conditions"]) == {"test"}
    assert str(missing) in error["details"]["conditions"]["test"]
    assert site.posts() == []


def test_wrong_arguments_are_a_json_error_too(run_cli):
    result = run_cli("submit", "c/test", "--json")
    assert result.returncode == 2
    found = json.loads(result.stdout)
    assert found["exit_code"] == 2 and found["error"]["code"] == "usage"
    assert "--file" in found["error"]["message"]


def test_not_logged_in_is_a_json_error(run_cli):
    result = run_cli("challenges", "--json")
    assert result.returncode == 1
    assert json.loads(result.stdout)["error"]["code"] == "not_logged_in"


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (("submit", "nope/nope"), "There is no challenge 'nope' on this site"),
        (("submit", "999"), "there is no phase 999 on this site"),
        (("submit", "c/nope"), "challenge 'c' has no phase 'nope'"),
        (("status", "999"), "There is no submission 999 of your teams on this site"),
        (("results", "999"), "There is no submission 999 of your teams on this site"),
        (("leaderboard", "999"), "There is no phase 999 on this site"),
        (("table", "999"), "There is no phase 999 on this site"),
        (("sample", "c/test", "--condition", "nope"), "the phase has no condition 'nope'"),
    ],
)
def test_every_not_found_names_what_and_exits_2(run_cli, fake_site, tmp_path, args, named):
    challenge = _challenge("dvd")
    site = fake_site({"challenges/": {"results": [challenge]}, "challenges/c/": challenge})
    extra = ["--file", f"test={_good_file(tmp_path)}"] if args[0] == "submit" else []
    result = run_cli(*args, *extra)
    assert result.returncode == 2, result.stderr
    assert named in result.stderr and "Traceback" not in result.stderr
    found = json.loads(run_cli(*args, *extra, "--json").stdout)
    assert found["error"]["code"] == "not_found" and named in found["error"]["message"]
    assert site.posts() == []


def test_every_command_answers_version_with_the_packages_version():
    for name in _commands(_parser()):
        result = subprocess.run(
            [*trackboard_command(), *name.split(), "--version"], capture_output=True, text=True
        )
        assert (result.returncode, result.stdout) == (0, f"trackboard {__version__}\n"), name
    script = Path(sys.executable).with_name("trackboard-score")
    for program, command in (
        ("trackboard-score", [str(script)]),
        ("python -m scoring", [sys.executable, "-m", "scoring"]),
    ):
        for words in ([], ["score"], ["compare"], ["example"]):
            result = subprocess.run([*command, *words, "--version"], capture_output=True, text=True)
            assert (result.returncode, result.stdout) == (0, f"{program} {scorer_version}\n")


def test_every_command_that_sends_the_token_takes_token():
    for name, command in _commands(_parser()).items():
        flags = {flag for action in command._actions for flag in action.option_strings}
        assert "--token" in flags or name == "completion", name


def test_token_is_sent_in_place_of_the_stored_one(run_cli, fake_site):
    site = fake_site({"submissions/": {"results": []}, "submissions/4/": {"id": 4}})
    assert run_cli("status", "--token", "tb_given").returncode == 0
    assert run_cli("status", "4", "--token", "tb_given", "--json").returncode == 0
    assert run_cli("status").returncode == 0
    sent = [headers.get("Authorization") for headers in site.headers]
    assert sent == ["Bearer tb_given", "Bearer tb_given", "Bearer tb_x"]


@pytest.mark.parametrize("parser", [_parser, scorer_parser], ids=["trackboard", "scorer"])
def test_every_option_and_argument_has_help(parser):
    for name, command in _commands(parser()).items():
        for action in command._actions:
            assert action.help, (name, action.dest)


def test_compare_help_says_pred_comes_twice():
    compare = _commands(scorer_parser())["compare"]
    assert "twice" in compare.format_help()


def _complete(line: str, tmp_path: Path) -> list[str]:
    """What bash offers for ``line`` (the cursor at its end), through the script that
    ``trackboard completion bash`` prints."""
    script = tmp_path / "trackboard.bash"
    script.write_text(
        subprocess.run(
            [*trackboard_command(), "completion", "bash"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )
    words = line.split(" ")
    program = (
        f"source {script}\n"
        f"COMP_LINE='{line}'; COMP_POINT=${{#COMP_LINE}}\n"
        f"COMP_WORDS=({' '.join(repr(w) for w in words)}); COMP_CWORD={len(words) - 1}\n"
        f"_python_argcomplete trackboard '{words[-1]}' '{words[-2]}'\n"
        'printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    path = str(Path(trackboard_command()[0]).parent) + ":/usr/bin:/bin"
    found = subprocess.run(
        ["bash", "-c", program], capture_output=True, text=True, env={"PATH": path}, check=True
    )
    return sorted(word.strip() for word in found.stdout.splitlines() if word.strip())


def test_bash_completes_commands_and_options(tmp_path):
    names = sorted(name for name in _commands(_parser()) if " " not in name)
    assert _complete("trackboard ", tmp_path) == ["--help", "--version", "-h", *names]
    assert _complete("trackboard team ", tmp_path) == [
        "--allow-insecure-http", "--help", "--token", "--version", "-h",
        "create", "invite", "join", "leave", "show",
    ]  # fmt: skip
    assert _complete("trackboard su", tmp_path) == ["submit"]
    assert _complete("trackboard submit --to", tmp_path) == ["--token"]
    assert _complete("trackboard table 3 --format ", tmp_path) == ["latex", "markdown"]


def test_the_completion_scripts_name_the_command(run_cli):
    bash = run_cli("completion", "bash")
    zsh = run_cli("completion", "zsh")
    assert bash.returncode == zsh.returncode == 0
    assert "complete " in bash.stdout and "-F _python_argcomplete trackboard" in bash.stdout
    assert zsh.stdout.startswith("#compdef trackboard")
    found = json.loads(run_cli("completion", "zsh", "--json").stdout)
    assert found == {"shell": "zsh", "script": zsh.stdout}


def test_a_404_with_the_sites_own_message_stays_its_refusal(run_cli, fake_site):
    hidden = {"code": "not_found", "message": "There is no table of this phase you may see.",
              "details": {}}  # fmt: skip
    fake_site({"phases/3/table/": [(404, {"error": hidden})]})
    result = run_cli("table", "3", "--json")
    assert result.returncode == 1
    assert json.loads(result.stdout) == {"error": hidden, "status": 404, "exit_code": 1}
