"""Every shell command in docs/*.md works as written.

The ```sh blocks of each page are extracted line by line (a trailing backslash joins lines,
`#` starts a comment) and every command is handled by exactly one rule below; a command no
rule covers fails the test, so a new kind of command needs a new rule. What each rule does:

- ``python -m scoring ...``: RUN for real (a subprocess) in a temporary directory holding the
  page's example files (blocks preceded by ``<!-- file: NAME -->``) and a synthetic reference
  for every ``*.gold.json`` a config names; it must exit 0.
- ``python manage.py ...``: RUN for real with ``call_command`` in that directory, against this
  test's database and private storage, in the order of the page.
- ``trackboard ...`` and any ``python manage.py ...`` inside a ``docker compose`` line:
  CHECKED with the real argument parser (the client's; the management command's). The client
  runs for real against a live server in tests/leaderboard/operations/test_production_flow.py.
- ``docker-compose -p NAME -f docker/compose.yml SUB ...`` (Compose 1.29) and ``docker compose
  [-p NAME] -f docker/compose.yml SUB ...`` (v2): CHECKED against docker/compose.yml (no
  Docker engine here): the file exists, SUB and its options are known, every named service
  exists, and a command run inside a service is checked by the rules above (or is ``cat``
  copying a file out of or into it). scripts/containers-test runs these commands for real.
- ``curl ... URL``: CHECKED: the URL's path resolves in the site's URL map.
- ``cp A B``: RUN in a copy of A's directory. ``git pull --ff-only``: accepted as is.
- ``kubectl ...``: CHECKED (no cluster here): every ``-f`` file is a manifest of
  deploy/kubernetes (or a file an earlier ``cp`` of the page made), and a ``wait`` names a
  Job those manifests define. tests/leaderboard/operations/test_kubernetes.py validates them.
- ``scripts/NAME ...``: CHECKED: the script exists and is executable.
- ``pip install ...`` of the participant package and ``python -m build participant``: CHECKED:
  a git URL names a release's tag of the package's version and ``subdirectory=participant``,
  a wheel is the one that build makes of that version, and ``participant/`` builds the package.
  scripts/participant-check (run by .ci/run) builds and installs it for real.
- ``[NAME=value ...] scripts/serve`` and ``[NAME=value ...] docker/nginx/render TEMPLATE OUT``:
  CHECKED: the script exists and is executable, it reads every variable the line sets, and
  the template exists. scripts/serve runs for real in
  tests/leaderboard/operations/test_front_door.py (the render inside it).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
import yaml
from django.core.management import call_command, get_commands, load_command_class
from django.urls import Resolver404, resolve
from packaging.requirements import Requirement

from scoring.synth import make_gold
from tests.conftest import ROOT
from trackboard_cli.main import _parser as trackboard_parser

DOCS = ROOT / "docs"
PAGES = ["organisers.md", "participants.md", "operators.md", "api.md", "cli.md", "scoring.md"]
COMPOSE = yaml.safe_load((ROOT / "docker" / "compose.yml").read_text())


def commands(page: Path) -> list[str]:
    out: list[str] = []
    for block in re.findall(r"```sh\n(.*?)```", page.read_text(), re.DOTALL):
        pending = ""
        for raw in block.splitlines():
            line = raw.rstrip()
            if line.endswith("\\"):
                pending += line[:-1] + " "
                continue
            line = (pending + line).strip()
            pending = ""
            if line and not line.startswith("#"):
                out.append(line)
    return out


def example_files(page: Path) -> dict[str, str]:
    pattern = r"<!-- file: (\S+) -->\n```\w*\n(.*?)```"
    return dict(re.findall(pattern, page.read_text(), re.DOTALL))


def argv(line: str) -> list[str]:
    words = shlex.split(line, comments=True)
    # Output redirection, and a pipe into another command, are the shell's, not the command's.
    for mark in (">", "<", "|"):
        if mark in words:
            words = words[: words.index(mark)]
    return words


# --- checks with the real parsers -----------------------------------------------------------


class ParserExit(Exception):
    pass


def check_manage(args: list[str]) -> None:
    name, rest = args[0], args[1:]
    app = get_commands().get(name)
    assert app is not None, f"no management command {name!r}"
    command = load_command_class(app, name)
    parser = command.create_parser("manage.py", name)
    parser.exit = lambda status=0, message=None: (_ for _ in ()).throw(ParserExit(message))  # type: ignore[method-assign]
    parser.error = lambda message: (_ for _ in ()).throw(ParserExit(message))  # type: ignore[method-assign]
    parser.parse_args(rest)


def check_trackboard(args: list[str]) -> None:
    parser = trackboard_parser()
    try:
        parser.parse_args(args)
    except SystemExit as exc:
        raise AssertionError(f"trackboard {' '.join(args)}: refused by the parser") from exc


def check_url(url: str) -> None:
    path = urlsplit(url).path
    try:
        resolve(path)
    except Resolver404:
        raise AssertionError(f"{url}: no such path on the site") from None


COMPOSE_OPTIONS = {
    "config": {"-q": 0},
    "up": {"-d": 0, "--build": 0, "--no-deps": 0, "--scale": 1},
    "ps": {},
    "build": {},
    "logs": {"-f": 0},
    "down": {"--volumes": 0},
    "run": {"--rm": 0},
    "exec": {"-T": 0},
    "cp": {},
    "restart": {},
}


def check_compose(args: list[str]) -> None:
    v1 = args[0] == "docker-compose"  # Compose 1.29
    if v1:
        args = ["docker", "compose", *args[1:]]
    assert args[:2] == ["docker", "compose"], args
    if args[2] == "-p":
        assert re.fullmatch(r"[a-z0-9][a-z0-9_-]*", args[3]), args[3]
        args = args[:2] + args[4:]
    assert args[2] == "-f", args
    assert (ROOT / args[3]).is_file(), f"{args[3]} does not exist"
    sub, rest = args[4], args[5:]
    assert not (v1 and sub == "cp"), "docker-compose 1.29 has no cp"
    assert sub in COMPOSE_OPTIONS, f"docker compose {sub}: not a sub-command these docs use"
    options = COMPOSE_OPTIONS[sub]
    services = COMPOSE["services"]
    positional: list[str] = []
    i = 0
    while i < len(rest):
        word = rest[i]
        if word.startswith("-") and not positional:
            assert word in options, f"docker compose {sub}: unknown option {word}"
            if word == "--scale":
                service, _, count = rest[i + 1].partition("=")
                assert service in services and count.isdigit(), rest[i + 1]
            i += 1 + options[word]
            continue
        positional.append(word)
        i += 1
    if sub == "cp":
        named = [p.split(":", 1)[0] for p in positional if ":" in p]
        assert len(named) == 1 and named[0] in services, positional
    elif sub in ("run", "exec"):
        service, inner = positional[0], positional[1:]
        assert service in services, f"no service {service!r} in compose.yml"
        if not inner:
            assert sub == "run", "exec needs a command"  # run: the service's own command
        elif inner[:2] == ["python", "manage.py"]:
            check_manage(inner[2:])
        elif inner[:1] == ["pg_dump"]:
            assert service == "postgres"
        elif inner[:1] == ["cat"] or inner[:2] == ["sh", "-c"]:
            # A file copied out (cat PATH > file) or in (sh -c 'cat > PATH' < file), with -T.
            assert sub == "exec" and "-T" in rest, "copying through exec needs -T"
            assert len(inner) == 2 or re.fullmatch(r"cat > /\S+", inner[2]), inner
        else:
            raise AssertionError(f"no rule checks {' '.join(inner)!r} inside {service}")
    else:
        for service in positional:
            assert service in services, f"no service {service!r} in compose.yml"


#: The participant package's own project table (name, version).
PARTICIPANT = tomllib.loads((ROOT / "participant" / "pyproject.toml").read_text())["project"]


def check_build(args: list[str]) -> None:
    assert args == ["participant"], f"python -m build {' '.join(args)}: only participant is built"
    assert "build-system" in tomllib.loads((ROOT / "participant" / "pyproject.toml").read_text())


def check_install(args: list[str]) -> None:
    """The participant package as it installs before it is on the package index: from a git
    URL at a release's tag (the version's, ``v`` before it) with ``subdirectory=participant``,
    or the wheel ``python -m build participant`` makes in ``participant/dist/``."""
    name, version = PARTICIPANT["name"], PARTICIPANT["version"]
    (target,) = args
    if target.endswith(".whl"):
        assert target == f"participant/dist/{name}-{version}-py3-none-any.whl", target
        return
    requirement = Requirement(target)
    assert requirement.name == name and requirement.url, (
        f"pip install {target}: {name} is not on the package index yet; give a git URL or a wheel"
    )
    url = urlsplit(requirement.url)
    assert url.scheme == "git+https" and url.path.endswith(f".git@v{version}"), target
    (subdirectory,) = parse_qs(url.fragment)["subdirectory"]
    found = tomllib.loads((ROOT / subdirectory / "pyproject.toml").read_text())["project"]
    assert found["name"] == name, f"{subdirectory} is not the {name} package"


# --- running for real -------------------------------------------------------------------------


def prepare(directory: Path, page: Path) -> None:
    # The participants' page holds the example files the other pages' commands use too.
    examples = {**example_files(DOCS / "participants.md"), **example_files(page)}
    for name, text in examples.items():
        (directory / name).write_text(text)
    # Reference files a config names: synthetic gold under the same name.
    for config in directory.glob("*.yaml"):
        for ref in set(re.findall(r"reference: (\S+?\.gold\.json)", config.read_text())):
            (directory / ref).write_text(json.dumps(make_gold(8, seed=len(ref))))


#: The repository's scripts a page may run with variables before them.
SCRIPTS = ("scripts/serve", "docker/nginx/render")


def _script(args: list[str]) -> str | None:
    words = [a for a in args if not re.fullmatch(r"[A-Z_][A-Z0-9_]*=.*", a)]
    return words[0] if words and words[0] in SCRIPTS else None


def check_script(script: str, args: list[str]) -> None:
    path = ROOT / script
    assert path.is_file() and os.access(path, os.X_OK), f"{script} is not an executable file"
    text = path.read_text()
    for word in args:
        if (name := re.fullmatch(r"([A-Z_][A-Z0-9_]*)=.*", word)) is not None:
            assert re.search(rf"\${{?{name[1]}\b", text), f"{script} does not read {name[1]}"
    rest = args[args.index(script) + 1 :]
    if script == "docker/nginx/render":
        assert len(rest) == 2 and (ROOT / rest[0]).is_file(), rest


def run(line: str, directory: Path) -> None:
    raw = argv(line)
    args = list(raw)
    # Environment variables set for the one command (TRACKBOARD_TOKEN=... trackboard ...).
    while args and re.fullmatch(r"[A-Z_]+=\S*", args[0]):
        args = args[1:]
    if args[:3] == ["python", "-m", "scoring"]:
        done = subprocess.run(
            [sys.executable, *args[1:]], cwd=directory, capture_output=True, text=True,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )  # fmt: skip
        assert done.returncode == 0, f"{line}\n{done.stdout}{done.stderr}"
    elif args[:2] == ["python", "manage.py"]:
        check_manage(args[2:])
        call_command(*args[2:], stdout=open(os.devnull, "w"))  # noqa: SIM115
    elif args[0] == "trackboard":
        check_trackboard(args[1:])
    elif args[:2] == ["docker", "compose"] or args[0] == "docker-compose":
        check_compose(args)
    elif args[0] == "curl":
        urls = [a for a in args if a.startswith("http")]
        assert len(urls) == 1, line
        check_url(urls[0])
    elif args[0] == "cp":
        source = ROOT / args[1]
        assert source.is_file(), f"{args[1]} does not exist"
        copy = directory / "checkout"
        shutil.copytree(source.parent, copy / source.parent.relative_to(ROOT))
        shutil.copy(copy / args[1], copy / args[2])
    elif args == ["git", "pull", "--ff-only"]:
        pass
    elif args[:2] == ["pip", "install"]:
        check_install(args[2:])
    elif args[:3] == ["python", "-m", "build"]:
        check_build(args[3:])
    elif args[0] == "kubectl":
        check_kubectl(args[1:], directory)
    elif (script := _script(raw)) is not None:
        check_script(script, raw)
    elif args[0].startswith("scripts/"):
        script_path = ROOT / args[0]
        assert script_path.is_file() and os.access(script_path, os.X_OK), (
            f"{args[0]} is not a script"
        )
    else:
        raise AssertionError(f"no rule runs or checks {line!r}; add one to this test")


def check_kubectl(args: list[str], directory: Path) -> None:
    files = [args[i + 1] for i, a in enumerate(args) if a == "-f"]
    for name in files:
        found = ROOT / name
        copied = directory / "checkout" / name
        assert found.exists() or copied.exists(), f"kubectl: {name} does not exist"
        if found.is_dir():
            assert list(found.glob("*.yaml")), f"kubectl: {name} has no manifest"
    if "wait" in args:
        (target,) = [a for a in args if a.startswith("job/")]
        manifests = ROOT / "deploy" / "kubernetes"
        jobs = {
            doc["metadata"]["name"]
            for path in manifests.glob("*.yaml")
            for doc in yaml.safe_load_all(path.read_text())
            if doc and doc["kind"] == "Job"
        }
        assert target.removeprefix("job/") in jobs, f"kubectl: no Job {target}"
    else:
        assert args[0] == "apply" and files, f"kubectl {' '.join(args)}: only apply -f is expected"


@pytest.mark.django_db
@pytest.mark.parametrize("name", PAGES)
def test_every_command_of_the_page_runs_or_parses_as_written(name, tmp_path, monkeypatch):
    page = DOCS / name
    lines = commands(page)
    assert lines, f"{name} has no ```sh block"
    prepare(tmp_path, page)
    monkeypatch.chdir(tmp_path)
    for line in lines:
        run(line, tmp_path)


@pytest.mark.django_db
def test_the_organisers_walkthrough_leaves_a_working_challenge(tmp_path, monkeypatch):
    """After organisers.md's commands: the challenge, its three conditions per phase, and a
    backup that holds the private references."""
    from leaderboard.challenges.models import Challenge

    test_every_command_of_the_page_runs_or_parses_as_written("organisers.md", tmp_path, monkeypatch)
    challenge = Challenge.objects.get(slug="dstc11")
    assert [p.slug for p in challenge.phases.order_by("order", "opens_at")] == ["dev", "test"]
    for phase in challenge.phases.all():
        assert sorted(c.key for c in phase.conditions.all()) == [
            "human-paraphrased", "human-verbatim", "tts-verbatim",
        ]  # fmt: skip
    assert (tmp_path / "dstc11-backup.zip").stat().st_size > 0
    # the config's organiser, and the co-organiser of section 8 with the "Organisers" group
    assert sorted(challenge.organisers.values_list("username", flat=True)) == [
        "coorganiser",
        "organiser",
    ]
    co = challenge.organisers.get(username="coorganiser")
    assert co.is_staff and not co.is_superuser
    assert list(co.groups.values_list("name", flat=True)) == ["Organisers"]


def test_the_new_pages_link_each_other_and_the_existing_ones():
    links = {name: (DOCS / name).read_text() for name in PAGES[:3]}
    assert "(cli.md)" in links["participants.md"] and "(api.md)" in links["participants.md"]
    assert "(api.md)" in links["operators.md"] and "(cli.md)" in links["operators.md"]
    assert (
        "(operators.md" in links["organisers.md"] and "(participants.md" in links["organisers.md"]
    )


def test_a_command_without_a_rule_fails_the_check(tmp_path):
    with pytest.raises(AssertionError, match="no rule"):
        run("rm -rf /", tmp_path)
    with pytest.raises(AssertionError, match="no service"):
        check_compose(["docker", "compose", "-f", "docker/compose.yml", "up", "-d", "haproxy"])
    with pytest.raises(ParserExit):
        check_manage(["backup_challenge", "only-a-slug"])
    with pytest.raises(AssertionError, match="not on the package index"):
        run("pip install trackboard", tmp_path)
    with pytest.raises(AssertionError, match=re.escape("trackboard-0.1.9-py3-none-any.whl")):
        run("pip install participant/dist/trackboard-0.1.9-py3-none-any.whl", tmp_path)
    with pytest.raises(AssertionError, match=re.escape("v0.1.9")):
        run('pip install "trackboard @ git+https://git.example.org/t.git@v0.1.9'
            '#subdirectory=participant"', tmp_path)  # fmt: skip


def test_participants_page_has_a_scored_example_of_every_accepted_format(tmp_path):
    """Each format the scorer accepts has an example file on the page, introduced by its
    name in bold, and a command of the page scores it and detects exactly that format."""
    from scoring.tasks import TASKS, get_task

    page = DOCS / "participants.md"
    text = page.read_text()
    prepare(tmp_path, page)
    # "**`format`**: ... <!-- file: NAME -->": the format named right before the example.
    examples = dict(re.findall(r"\*\*`([\w-]+)`\*\*[^<]*?<!-- file: (\S+) -->", text, re.DOTALL))
    wanted = {fmt for task in TASKS for fmt in get_task(task).formats}
    assert set(examples) == wanted
    lines = [argv(line) for line in commands(page)]
    for fmt, name in examples.items():
        scoring = [a for a in lines if a[:4] == ["python", "-m", "scoring", "score"]]
        using = [a for a in scoring if name in a]
        assert using, f"no command of the page scores {name}"
        done = subprocess.run(
            [sys.executable, *using[0][1:], "--json"], cwd=tmp_path, capture_output=True,
            text=True, env={**os.environ, "PYTHONPATH": str(ROOT)},
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["format"] == fmt, name


def test_the_figures_the_participants_page_quotes_are_the_scorers(tmp_path):
    page = DOCS / "participants.md"
    prepare(tmp_path, page)
    quoted = re.search(r"JGA (\d+\.\d+) and SER (\d+\.\d+)", page.read_text())
    first = argv(next(c for c in commands(page) if c.startswith("python -m scoring")))
    done = subprocess.run(
        [sys.executable, *first[1:], "--json"], cwd=tmp_path, capture_output=True, text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)}, check=True,
    )  # fmt: skip
    metrics = json.loads(done.stdout)["metrics"]
    assert f"{metrics['jga']:.2f}" == quoted[1] and f"{metrics['ser']:.2f}" == quoted[2]
