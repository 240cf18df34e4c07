"""Shared test set-up: the public fixture data (committed, compressed, in ``tests/data``), and
service requirements.

Tests that need Postgres, Redis or a real worker skip outside CI when it is missing, and fail
under ``CI=true``: CI must never go green by skipping them.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.fixturedata import extract_all

ROOT = Path(__file__).resolve().parents[1]


def require(service: str, available: bool, how: str) -> None:
    if available:
        return
    if os.environ.get("CI"):
        pytest.fail(f"{service} is required under CI but is not available ({how})")
    pytest.skip(f"{service} not available ({how})")


@pytest.fixture(scope="session")
def fixtures_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The public fixture data of ``tests/data`` (see its README.md), decompressed once per
    session into a temporary folder: same layout, names without ``.gz``."""
    return extract_all(tmp_path_factory.mktemp("fixtures"))
