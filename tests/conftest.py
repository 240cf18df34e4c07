"""Shared test set-up: where the public fixture data lives, and service requirements.

Tests that need Postgres, Redis, a real worker or the fixture data skip outside CI when it is
missing, and fail under ``CI=true``: CI must never go green by skipping them.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / ".." / "shared" / "fixtures"


def require(service: str, available: bool, how: str) -> None:
    if available:
        return
    if os.environ.get("CI"):
        pytest.fail(f"{service} is required under CI but is not available ({how})")
    pytest.skip(f"{service} not available ({how})")


@pytest.fixture(scope="session")
def fixtures_dir() -> Path:
    """The shared public fixture data beside the checkout (``../shared/fixtures``)."""
    require("../shared/fixtures", FIXTURES.is_dir(), f"no directory {FIXTURES.resolve()}")
    return FIXTURES


@pytest.fixture(autouse=True)
def reference_cache(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Each test's own folder for the scorer's reference cache (inherited by the commands a
    test runs): nothing is read from or written to the user's cache."""
    folder = tmp_path_factory.mktemp("reference-cache")
    monkeypatch.setenv("TRACKBOARD_CACHE_DIR", str(folder))
    return folder
