"""Two distributions and a lock: the participant package ("trackboard": the scorer and the
client, numpy and rapidfuzz as ranges, no web framework) and the server ("trackboard-server",
the Django app, depending on the first at the same version), both built here from this
checkout; requirements/ pins the whole tree with hashes, within pyproject's ranges, and the
image and scripts/setup-env install from it. The participant package is built as release
workflows build it, its sdist from participant/ alone and the wheel from that sdist.
(scripts/participant-check, run by .ci/run, does it with ``python -m build`` and installs the
wheel beside the oldest and newest numpy and rapidfuzz.)"""

from __future__ import annotations

import email
import re
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from scoring.version import __version__
from tests.conftest import ROOT

LOCKS = ("server", "server-s3", "dev")


#: what the two distributions are built from
SOURCES = ("pyproject.toml", "README.md", "LICENSE", "participant", "leaderboard")

#: PEP 517's build_sdist hook, as ``python -m build`` calls it (without that tool's own
#: isolated environment: the setuptools of the development tree builds here).
BUILD_SDIST = (
    "import sys; from setuptools import build_meta; print(build_meta.build_sdist(sys.argv[1]))"
)


@pytest.fixture(scope="module")
def source(tmp_path_factory) -> Path:
    """A copy of the sources (a build leaves folders behind)."""
    source = tmp_path_factory.mktemp("source")
    for name in SOURCES:
        path = ROOT / name
        if path.is_dir():
            ignore = shutil.ignore_patterns("__pycache__", "*.egg-info")
            shutil.copytree(path, source / name, symlinks=True, ignore=ignore)
        else:
            shutil.copy2(path, source / name)
    return source


@pytest.fixture(scope="module")
def sdist(source, tmp_path_factory) -> Path:
    """The participant package's sdist, built from ``participant/`` alone."""
    out = tmp_path_factory.mktemp("sdist")
    done = subprocess.run(
        [sys.executable, "-c", BUILD_SDIST, str(out)], cwd=source / "participant", check=True,
        capture_output=True, text=True,
    )  # fmt: skip
    return out / done.stdout.strip().splitlines()[-1]


@pytest.fixture(scope="module")
def wheels(source, sdist, tmp_path_factory) -> dict[str, Path]:
    """The participant wheel built from its sdist, and the server's built from the sources."""
    out = tmp_path_factory.mktemp("wheels")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--disable-pip-version-check",
         "--no-deps", "--no-build-isolation", "--wheel-dir", str(out), str(sdist), "."],
        cwd=source, check=True, capture_output=True,
    )  # fmt: skip
    found = {path.name.split("-")[0]: path for path in out.glob("*.whl")}
    assert set(found) == {"trackboard", "trackboard_server"}
    return found


def test_the_participant_sdist_carries_the_scorer_and_the_client(sdist):
    assert sdist.name == f"trackboard-{__version__}.tar.gz"
    with tarfile.open(sdist) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    for name in ("pyproject.toml", "README.md", "LICENSE", "scoring/__init__.py",
                 "scoring/__main__.py", "scoring/py.typed", "scoring/dstc11/task.py",
                 "trackboard_cli/__init__.py", "trackboard_cli/main.py"):  # fmt: skip
        assert name in names, name
    # everything of the package's two folders, and nothing of the server
    assert not [n for n in names if n.startswith(("leaderboard/", "tests/"))]
    in_checkout = {
        str(path.relative_to(ROOT / "participant"))
        for top in ("scoring", "trackboard_cli")
        for path in (ROOT / "participant" / top).rglob("*.py")
    }
    assert in_checkout <= names


def _contents(wheel: Path) -> tuple[set[str], email.message.Message]:
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        meta = next(n for n in names if n.endswith(".dist-info/METADATA"))
        metadata = email.message_from_bytes(archive.read(meta))
    return {name.split("/")[0] for name in names if "/" in name}, metadata


def test_the_participant_wheel_is_the_scorer_and_the_client_with_ranges(wheels):
    assert wheels["trackboard"].name == f"trackboard-{__version__}-py3-none-any.whl"
    tops, metadata = _contents(wheels["trackboard"])
    assert tops == {"scoring", "trackboard_cli", f"trackboard-{__version__}.dist-info"}
    assert metadata["Version"] == __version__
    needs = {Requirement(r).name: Requirement(r) for r in metadata.get_all("Requires-Dist")}
    assert set(needs) == {"numpy", "rapidfuzz", "argcomplete"}
    for requirement in needs.values():
        operators = {spec.operator for spec in requirement.specifier}
        assert operators == {">=", "<"}, requirement  # a range, never a pin
    assert "1.26.0" in needs["numpy"].specifier and "2.4.6" in needs["numpy"].specifier
    with zipfile.ZipFile(wheels["trackboard"]) as archive:
        assert not [n for n in archive.namelist() if n.endswith(".pyc")]
        scripts = archive.read(f"trackboard-{__version__}.dist-info/entry_points.txt").decode()
    assert "trackboard-score = scoring.__main__:run" in scripts
    assert "trackboard = trackboard_cli.main:main" in scripts


def test_the_server_wheel_is_the_app_on_the_participant_package_of_its_version(wheels):
    tops, metadata = _contents(wheels["trackboard_server"])
    assert tops == {"leaderboard", f"trackboard_server-{__version__}.dist-info"}
    needs = [Requirement(r) for r in metadata.get_all("Requires-Dist")]
    (own,) = [r for r in needs if r.name == "trackboard"]
    assert str(own.specifier) == f"=={__version__}"
    assert "django" in {r.name for r in needs}
    extras = metadata.get_all("Provides-Extra")
    # development tools are a dependency group, not an extra; serve: scripts/serve's supervisor
    assert extras == ["s3", "serve"]


def _pins(lock: str) -> dict[str, str]:
    text = (ROOT / "requirements" / f"{lock}.txt").read_text()
    return dict(re.findall(r"^([a-z0-9][a-z0-9._-]*)==([^\s;\\]+)", text, re.MULTILINE))


def test_every_lock_pins_every_package_with_hashes_within_the_ranges():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    wanted = {
        "server": project["project"]["dependencies"],
        "server-s3": [*project["project"]["dependencies"],
                      *project["project"]["optional-dependencies"]["s3"]],
        "dev": [*project["project"]["dependencies"],
                *project["project"]["optional-dependencies"]["s3"],
                *project["project"]["optional-dependencies"]["serve"],
                *project["dependency-groups"]["dev"]],
    }  # fmt: skip
    participant = tomllib.loads((ROOT / "participant" / "pyproject.toml").read_text())
    for lock in LOCKS:
        text = (ROOT / "requirements" / f"{lock}.txt").read_text()
        entries = re.split(r"\n(?=[a-z0-9])", text.strip())
        assert entries and all("--hash=sha256:" in entry for entry in entries), lock
        pins = _pins(lock)
        for line in [*wanted[lock], *participant["project"]["dependencies"]]:
            requirement = Requirement(line)
            if requirement.name == "trackboard":
                assert "trackboard" not in pins  # this repository's, never an index's
                continue
            assert requirement.name in pins, (lock, requirement.name)
            assert pins[requirement.name] in requirement.specifier, (lock, line)


def test_the_locks_agree_so_the_tests_run_what_the_image_runs():
    server, s3, dev = (_pins(lock) for lock in LOCKS)
    assert {name: s3[name] for name in server} == server
    assert {name: dev[name] for name in s3} == s3


def test_the_image_and_the_development_setup_install_from_the_locks():
    dockerfile = (ROOT / "docker" / "Dockerfile").read_text()
    assert '-r "requirements/${lock}.txt"' in dockerfile and "--require-hashes" in dockerfile
    setup = (ROOT / "scripts" / "setup-env").read_text()
    assert "--require-hashes" in setup and "-r requirements/dev.txt" in setup
    lock = (ROOT / "scripts" / "lock").read_text()
    for name in LOCKS:
        assert f"requirements/{name}.txt" in lock
