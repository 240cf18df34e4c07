"""The files a project is expected to carry: its licence, its changelog (with the version every
signature names), how to report a vulnerability and how to contribute."""

from __future__ import annotations

import re
import tomllib

from scoring.version import __version__
from tests.conftest import ROOT


def test_the_licence_is_the_apache_licence_the_package_declares():
    text = (ROOT / "LICENSE").read_text()
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert "END OF TERMS AND CONDITIONS" in text  # the whole text, not a pointer to it
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == "Apache-2.0"
    assert "LICENSE" in project["license-files"]


def test_the_changelog_has_the_scoring_version_with_what_it_does_to_scores():
    text = (ROOT / "CHANGELOG.md").read_text()
    sections = re.split(r"^## ", text, flags=re.MULTILINE)
    release = next((s for s in sections if s.startswith(f"{__version__}\n")), None)
    if release is None:  # a version not released yet says what it does under "Unreleased"
        release = next((s for s in sections if s.startswith("Unreleased\n")), None)
    assert release is not None, f"CHANGELOG.md has no section for version {__version__}"
    assert "### Scores" in release
    assert f"v:{__version__}" in release


def test_security_and_contributing_say_what_they_are_for():
    security = (ROOT / "SECURITY.md").read_text()
    assert "Report it privately" in security
    contributing = (ROOT / "CONTRIBUTING.md").read_text()
    for command in ("scripts/run", "scripts/test"):
        assert command in contributing
    assert "tests/test_import_graph.py" in contributing
    assert "participant/scoring/tasks.py" in contributing
