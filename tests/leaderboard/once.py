"""Data built once for a test module, when its tests only read it or change it inside their
own savepoint: the demo's three challenges, a phase of real-size runs. Building it again for
each test is most of such a module's time.

``built_once`` opens a transaction that is rolled back after the module's last test, with
private files, cache keys and a Celery queue of its own (and the tests' quick password hasher).
Each test then runs in a savepoint inside it, as Django's ``TestCase.setUpTestData`` does, so
no test sees another's changes. A test's fixture points ``settings.STORAGES`` at the storages
it yields, where the module's private files are."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.db import transaction
from django.test import override_settings


def own_settings(private: Path) -> dict[str, Any]:
    """Private files in ``private``; cache keys and a Celery queue (its name is the keys'
    prefix) that no other test or concurrent run (another worktree, the same Redis) shares."""
    tag = f"trackboard-test-{uuid.uuid4().hex[:10]}"
    return {
        "STORAGES": {
            **settings.STORAGES,
            "private": {
                "BACKEND": "leaderboard.storage.PrivateStorage",
                "OPTIONS": {"location": str(private)},
            },
        },
        "CACHES": {"default": {**settings.CACHES["default"], "KEY_PREFIX": tag}},
        "CELERY_TASK_DEFAULT_QUEUE": tag,
    }


@contextmanager
def built_once(
    django_db_blocker: Any, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, Any]]:
    own = own_settings(tmp_path_factory.mktemp("module-private"))
    isolated = override_settings(
        **own, PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"]
    )
    with django_db_blocker.unblock(), isolated, transaction.atomic():
        try:
            yield own["STORAGES"]
        finally:
            transaction.set_rollback(True)
