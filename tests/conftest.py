"""Shared test configuration: where the public fixture data lives."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT.parent / "shared" / "fixtures"


@pytest.fixture(scope="session")
def fixtures() -> Path:
    """The shared fixture folder; skipped outside the workspace, an error under CI."""
    if not FIXTURES.is_dir():
        if os.environ.get("CI") == "true":
            pytest.fail(f"fixture data not found at {FIXTURES}; CI must provide ../shared")
        pytest.skip("the shared fixture data (../shared/fixtures) is not beside this checkout")
    return FIXTURES
