"""Shared test set-up: the public fixture data (committed, compressed, in ``tests/data``),
service requirements, and how a transactional test's tables are emptied.

Tests that need Postgres, Redis or a real worker skip outside CI when it is missing, and fail
under ``CI=true``: CI must never go green by skipping them.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from django.db.backends.postgresql.operations import DatabaseOperations

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


@pytest.fixture(scope="session", autouse=True)
def _flush_by_delete() -> Iterator[None]:
    """A transactional test ends with Django's ``flush``, which on Postgres TRUNCATEs every
    table: new files for each table and index, about 0.3 s a test. The tables hold a test's
    few rows, which DELETE removes in milliseconds, in one transaction: the foreign keys Django
    makes on Postgres are checked at commit, when every table is empty. A flush that resets
    the sequences or cascades is left as Django writes it."""
    truncate = DatabaseOperations.sql_flush

    def sql_flush(
        ops: DatabaseOperations,
        style: Any,
        tables: Any,
        *,
        reset_sequences: bool = False,
        allow_cascade: bool = False,
    ) -> list[str]:
        if reset_sequences or allow_cascade:
            return truncate(
                ops, style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade
            )
        return [f"DELETE FROM {ops.quote_name(table)};" for table in tables]

    with mock.patch.object(DatabaseOperations, "sql_flush", sql_flush):
        yield
