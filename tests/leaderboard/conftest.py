"""Web-side test set-up: isolated storage, cache and queue per test; Postgres and Redis."""

from __future__ import annotations

import io
import os
from collections.abc import Callable
from typing import Any

import pytest

from tests.conftest import require
from tests.leaderboard.once import built_once, own_settings
from tests.leaderboard.workers import (  # noqa: F401  (fixtures for every test here)
    start_beat,
    start_worker,
)


def require_postgres() -> None:
    """The test runs on PostgreSQL (``require``: skipped without it, failed under CI)."""
    from django.conf import settings

    engine = settings.DATABASES["default"]["ENGINE"]
    require("PostgreSQL", engine.endswith("postgresql"), "set DATABASE_URL=postgres://...")


def require_redis() -> str:
    """``REDIS_URL``, once that Redis answers (``require``: skipped without it, failed under
    CI)."""
    url = os.environ.get("REDIS_URL", "")
    require("Redis", bool(url), "set REDIS_URL=redis://...")
    import redis

    try:
        redis.Redis.from_url(url, socket_connect_timeout=2).ping()
    except redis.RedisError as exc:
        require("Redis", False, f"{url}: {exc}")
    return url


@pytest.fixture
def postgres(settings) -> None:
    require_postgres()


@pytest.fixture
def redis_url() -> str:
    return require_redis()


@pytest.fixture(autouse=True)
def _isolated(settings, tmp_path_factory):
    """Private files in a temporary directory; cache keys and the Celery queue unique to this
    test, so a concurrent run (another worktree, the same Redis) never sees our entries."""
    from leaderboard.challenges.references import clear_reference_cache

    private = tmp_path_factory.mktemp("private")
    own = own_settings(private)
    for name, value in own.items():
        setattr(settings, name, value)
    clear_reference_cache()
    yield {"tag": own["CELERY_TASK_DEFAULT_QUEUE"], "private": private}
    clear_reference_cache()


@pytest.fixture
def isolation(_isolated):
    return _isolated


@pytest.fixture(scope="module")
def _demo_once(django_db_setup, django_db_blocker, tmp_path_factory):
    from django.core.management import call_command

    with built_once(django_db_blocker, tmp_path_factory) as storages:
        call_command("demo", verbosity=0, stdout=io.StringIO())
        yield storages


@pytest.fixture
def demo(_demo_once, settings) -> None:
    """The demo's three challenges, made once for the test module that asks for them
    (``tests.leaderboard.once``), with their private files where this test looks."""
    settings.STORAGES = _demo_once


class Published(list):
    """The tasks the site sent, as (task name, arguments, queue) in the order they reached the
    broker's door (``app.send_task``), instead of the broker; ``run[name]`` is called with the
    arguments of each task of that name, as a worker would run it."""

    def __init__(self) -> None:
        super().__init__()
        self.run: dict[str, Callable[..., object]] = {}

    def __call__(self, name: str, args: list[object], queue: str, **options: object) -> None:
        self.append((name, list(args), queue))
        if name in self.run:
            self.run[name](*args)


@pytest.fixture
def published(monkeypatch) -> Published:
    """Record every task the site sends (``leaderboard.celery.send``) where it would be
    published, and where to: nothing reaches the broker."""
    from leaderboard.celery import app

    found = Published()
    monkeypatch.setattr(app, "send_task", found)
    return found


@pytest.fixture
def enqueued(published) -> list[int]:
    """Record scoring tasks (new and re-scores) instead of publishing them to the broker."""
    from leaderboard.background import RESCORE_SUBMISSION, SCORE_SUBMISSION

    sent: list[int] = []
    published.run[SCORE_SUBMISSION] = published.run[RESCORE_SUBMISSION] = sent.append
    return sent


@pytest.fixture
def worker(published, django_capture_on_commit_callbacks) -> Callable[[], Any]:
    """Score each submission in this process when its task is sent, as its worker would (it
    reads, checks and scores the files): ``with worker(): client.post(...)`` runs the tasks sent
    after the request's commits when the block ends; ``worker.outcomes`` lists what each
    scoring returned (``scored``, ``invalid`` ...)."""
    from leaderboard.background import SCORE_SUBMISSION
    from leaderboard.submissions.services import run_scoring

    outcomes: list[str] = []
    published.run[SCORE_SUBMISSION] = lambda pk: outcomes.append(run_scoring(pk))

    def run() -> Any:
        return django_capture_on_commit_callbacks(execute=True)

    run.outcomes = outcomes  # type: ignore[attr-defined]
    return run


@pytest.fixture
def notified(published) -> list[int]:
    """Run the notification task in this process, as a worker would (its retries included),
    instead of publishing it to the broker; records the submission ids it was sent for."""
    from leaderboard.background import NOTIFY_TEAM
    from leaderboard.submissions import tasks

    sent: list[int] = []

    def run(submission_id: int) -> None:
        sent.append(submission_id)
        tasks.notify_team.apply(args=[submission_id])

    published.run[NOTIFY_TEAM] = run
    return sent


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    """Tests create many users: hash their passwords quickly (the hasher is not under test)."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def account_mail(published) -> list[tuple[str, list[object]]]:
    """Run the accounts' mail tasks in this process when they are sent (after the commit), as
    a worker would, instead of publishing them; records (task name, arguments)."""
    from leaderboard.accounts import tasks
    from leaderboard.background import SEND_ACCOUNT_MAIL

    sent: list[tuple[str, list[object]]] = []
    bodies = {SEND_ACCOUNT_MAIL: tasks.send_account_mail}

    def runner(name: str) -> Callable[..., None]:
        def run(*args: object) -> None:
            sent.append((name, list(args)))
            bodies[name].apply(args=args)

        return run

    for name in bodies:
        published.run[name] = runner(name)
    return sent
