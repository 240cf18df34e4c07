"""The operations tests' shared fixture: a test of a module that starts one stack for all its
tests (``processes.module_stack``) works on that stack's storage, cache and queue."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.leaderboard.operations.processes import Stack


@pytest.fixture
def on_the_stacks_storage(stack: Stack, isolation, settings) -> Iterator[None]:
    """This test's references, cache entries and tasks are its module's stack's: its private
    files, its cache prefix and its queue (after the per-test ones of
    tests/leaderboard/conftest.py)."""
    from leaderboard.challenges.references import clear_reference_cache

    settings.STORAGES = {
        **settings.STORAGES,
        "private": {**settings.STORAGES["private"], "OPTIONS": {"location": str(stack.private)}},
    }
    settings.CACHES = {"default": {**settings.CACHES["default"], "KEY_PREFIX": stack.tag}}
    settings.CELERY_TASK_DEFAULT_QUEUE = stack.tag
    clear_reference_cache()
    yield
    clear_reference_cache()
