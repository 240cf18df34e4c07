"""One rebuild at a time per board: while one reader builds a changed board, the others get the
previous board instead of building it too; the lock is released however the build ends; and a
worker builds the public board right after a submission's Results are written (a task of its
own, on the re-score queue when there is one), so the next reader builds nothing. Numbers by
hand from ``tests.leaderboard.web``: the shared prediction gets 3 of 4 turns right (JGA
75.00); the gold itself gets all four (100.00)."""

from __future__ import annotations

import threading

import pytest
from django.core.cache import cache, caches

from leaderboard.challenges.models import Phase
from leaderboard.rankings import services as rankings
from leaderboard.rankings.services import cache_key, leaderboard, lock_key
from leaderboard.submissions import queue, services, tasks
from tests.leaderboard.factories import approved_team, phase_with_references, uploads
from tests.leaderboard.web import GOLD, GOLD_BYTES, scored_submission

pytestmark = pytest.mark.django_db


def _fresh(phase: Phase) -> Phase:
    return Phase.objects.get(pk=phase.pk)


def _jga(board) -> list[float]:
    at = [c.name for c in board.columns].index("jga")
    return [round(r.cells[at][0], 2) for r in board.conditions[0].rows]


def test_readers_get_the_previous_board_while_one_builds_the_new_one(monkeypatch):
    phase = phase_with_references(GOLD_BYTES)
    scored_submission(approved_team(phase), phase)
    old = leaderboard(_fresh(phase))
    assert _jga(old) == [75.0]
    Phase.changed(phase.pk)
    changed = _fresh(phase)

    started, finish = threading.Event(), threading.Event()
    new = object()
    builds: list[int] = []

    def slow_build(p, part="public"):
        builds.append(p.board_version)
        started.set()
        assert finish.wait(30)
        return new

    monkeypatch.setattr(rankings, "compute", slow_build)
    # (nothing changes during this build: the lock is released, not passed on)
    monkeypatch.setattr(rankings, "_hand_over", lambda *args: False)
    seen: list[object] = []
    builder = threading.Thread(target=lambda: seen.append(leaderboard(changed)))
    builder.start()
    assert started.wait(30)
    # The lock is held: every other reader gets the previous board and builds nothing.
    others = [leaderboard(_fresh(phase)) for _ in range(3)]
    assert all(b == old for b in others)
    assert builds == [changed.board_version]
    finish.set()
    builder.join(30)
    assert seen == [new]
    assert cache.get(lock_key(changed)) is None
    assert leaderboard(_fresh(phase)) is not old and builds == [changed.board_version]


def test_a_reader_with_nothing_older_waits_for_the_builder(monkeypatch):
    phase = phase_with_references(GOLD_BYTES)
    scored_submission(approved_team(phase), phase)
    cache.clear()  # the worker's board and the previous one gone (e.g. a restarted cache)
    current = _fresh(phase)
    assert cache.add(lock_key(current), "another process", 60)
    built = rankings.compute(current)
    looks: list[int] = []

    def builder_finishes(seconds):
        looks.append(1)
        if len(looks) == 2:  # the other process stores its board while this one waits
            cache.set(cache_key(current), built)

    monkeypatch.setattr(rankings.time, "sleep", builder_finishes)
    monkeypatch.setattr(rankings, "compute", lambda p, part="public": pytest.fail("built twice"))
    assert leaderboard(current) == built and len(looks) == 2


def test_the_lock_is_released_when_a_build_fails(monkeypatch):
    phase = phase_with_references(GOLD_BYTES)
    current = _fresh(phase)

    def broken(p, part="public"):
        raise RuntimeError("database went away")

    monkeypatch.setattr(rankings, "compute", broken)
    with pytest.raises(RuntimeError):
        leaderboard(current)
    assert cache.get(lock_key(current)) is None
    monkeypatch.undo()
    assert leaderboard(current).conditions[0].rows == ()


@pytest.fixture
def sent(monkeypatch) -> list[tuple[str, int, str]]:
    """The tasks sent to the broker: (name, first argument, queue)."""
    found: list[tuple[str, int, str]] = []
    monkeypatch.setattr(
        queue.app, "send_task", lambda name, args, queue: found.append((name, args[0], queue))
    )
    return found


def test_a_worker_builds_the_board_after_scoring(
    monkeypatch, settings, sent, django_capture_on_commit_callbacks
):
    settings.CELERY_TASK_DEFAULT_QUEUE = "new"
    settings.CELERY_RESCORE_QUEUE = "rescores"
    phase = phase_with_references(GOLD_BYTES)
    scored_submission(approved_team(phase), phase)
    assert _jga(leaderboard(_fresh(phase))) == [75.0]
    team = approved_team(phase)
    run = services.submit(
        team=team, phase=phase, user=team.created_by, files=uploads(GOLD),
        method_name="gold", enqueue=False,
    )  # fmt: skip
    sent.clear()
    with django_capture_on_commit_callbacks(execute=True):
        assert services.run_scoring(run.pk) == "scored"
    # The scoring worker sends the rebuild to the re-score queue and goes on.
    assert (queue.REBUILD_BOARD, phase.pk, "rescores") in sent
    current = _fresh(phase)
    assert cache.get(cache_key(current)) is None
    # The lock is reserved for that task: until it runs, readers get the last board built
    # and build nothing, nor does a task of another scoring.
    token = cache.get(lock_key(current))
    assert token
    compute = rankings.compute
    monkeypatch.setattr(rankings, "compute", lambda p, part="public": pytest.fail("built"))
    assert _jga(leaderboard(current)) == [75.0]
    tasks.rebuild_board(phase.pk)
    assert cache.get(lock_key(current)) == token
    monkeypatch.setattr(rankings, "compute", compute)
    tasks.rebuild_board(phase.pk, token)  # as the worker of that queue runs it
    cached = cache.get(cache_key(current))
    assert cached is not None and _jga(cached) == [100.0, 75.0]
    assert cache.get(lock_key(current)) is None
    # The reader builds nothing, nor does a second rebuild task of the same version.
    monkeypatch.setattr(rankings, "compute", lambda p, part="public": pytest.fail("rebuilt"))
    assert _jga(leaderboard(current)) == [100.0, 75.0]
    tasks.rebuild_board(phase.pk)


def test_without_a_re_score_queue_the_rebuild_follows_on_the_same_queue(
    settings, sent, django_capture_on_commit_callbacks
):
    settings.CELERY_TASK_DEFAULT_QUEUE = "new"
    settings.CELERY_RESCORE_QUEUE = ""
    phase = phase_with_references(GOLD_BYTES)
    run = services.submit(
        team=approved_team(phase), phase=phase, user=approved_team(phase).created_by,
        files=uploads(GOLD), method_name="gold", enqueue=False,
    )  # fmt: skip
    with django_capture_on_commit_callbacks(execute=True):
        assert services.run_scoring(run.pk) == "scored"
    assert [s for s in sent if s[0] == queue.REBUILD_BOARD] == [
        (queue.REBUILD_BOARD, phase.pk, "new")
    ]


def test_scoring_succeeds_when_the_board_cannot_be_built(
    monkeypatch, sent, django_capture_on_commit_callbacks
):
    phase = phase_with_references(GOLD_BYTES)
    team = approved_team(phase)
    run = services.submit(
        team=team, phase=phase, user=team.created_by, files=uploads(GOLD),
        method_name="gold", enqueue=False,
    )  # fmt: skip

    def broken(p, part="public"):
        raise RuntimeError("cache went away")

    def no_broker(name, args, queue):
        raise OSError("broker down")

    monkeypatch.setattr(queue.app, "send_task", no_broker)
    with django_capture_on_commit_callbacks(execute=True):
        assert services.run_scoring(run.pk) == "scored"
    # The task could not be sent: its reservation is given back to the next reader.
    assert cache.get(lock_key(_fresh(phase))) is None
    monkeypatch.setattr(rankings, "compute", broken)
    tasks.rebuild_board(phase.pk)  # logged, not raised
    assert cache.get(lock_key(_fresh(phase))) is None
    monkeypatch.undo()
    assert _jga(leaderboard(_fresh(phase))) == [100.0]
    tasks.rebuild_board(10**9)  # a phase deleted meanwhile: nothing to build


def test_a_cache_that_is_down_never_makes_a_reader_wait(monkeypatch):
    """A cache that is down answers every call with nothing (its errors are ignored): the
    reader builds the board at once instead of waiting for a lock nobody holds."""
    phase = phase_with_references(GOLD_BYTES)
    scored_submission(approved_team(phase), phase)
    backend = type(caches["default"])
    monkeypatch.setattr(backend, "get", lambda *args, **kwargs: None)
    monkeypatch.setattr(backend, "add", lambda *args, **kwargs: False)
    monkeypatch.setattr(rankings.time, "sleep", lambda seconds: pytest.fail("waited"))
    assert _jga(leaderboard(_fresh(phase))) == [75.0]


def test_a_worker_keeps_the_lock_while_the_board_keeps_changing(monkeypatch, settings):
    """Submissions scored one after another: the worker builds again without letting go of
    the lock (readers get the last board built and build nothing), no sooner than half
    ``LEADERBOARD_REBUILD_SECONDS`` after its last build started."""
    settings.LEADERBOARD_REBUILD_SECONDS = 4
    phase = phase_with_references(GOLD_BYTES)
    scored_submission(approved_team(phase), phase)
    Phase.changed(phase.pk)
    first = _fresh(phase).board_version
    compute = rankings.compute
    builds: list[int] = []

    def scored_meanwhile(p, part="public"):
        builds.append(p.board_version)
        board = compute(p, part)
        if len(builds) == 1:  # the gold itself is scored meanwhile: a new version
            team = approved_team(phase)
            run = services.submit(
                team=team, phase=phase, user=team.created_by, files=uploads(GOLD),
                method_name="gold", enqueue=False,
            )  # fmt: skip
            assert services.run_scoring(run.pk) == "scored"
        return board

    pauses: list[float] = []
    readers: list[list[float]] = []

    def pause(seconds):
        pauses.append(seconds)
        # Between two builds the lock is held: a reader gets the board just built.
        monkeypatch.setattr(rankings, "compute", lambda p, part="public": pytest.fail("read"))
        readers.append(_jga(leaderboard(_fresh(phase))))
        monkeypatch.setattr(rankings, "compute", scored_meanwhile)

    monkeypatch.setattr(rankings, "compute", scored_meanwhile)
    monkeypatch.setattr(rankings.time, "sleep", pause)
    tasks.rebuild_board(phase.pk)
    assert len(builds) == 2 and builds[0] == first < builds[1]
    assert readers == [[75.0]]
    assert len(pauses) == 1 and 0 < pauses[0] <= 2
    assert cache.get(lock_key(_fresh(phase))) is None
    assert _jga(cache.get(cache_key(_fresh(phase)))) == [100.0, 75.0]


def test_a_worker_stops_rebuilding_after_its_time(monkeypatch, sent):
    """Then it passes the lock on to a rebuild task of its own, behind the queue's others."""
    phase = phase_with_references(GOLD_BYTES)
    scored_submission(approved_team(phase), phase)
    Phase.changed(phase.pk)
    builds: list[int] = []
    compute = rankings.compute

    def changed_meanwhile(p, part="public"):
        builds.append(p.board_version)
        Phase.changed(phase.pk)
        return compute(p, part)

    monkeypatch.setattr(rankings, "REBUILD_LOOP_SECONDS", 0)
    monkeypatch.setattr(rankings, "compute", changed_meanwhile)
    monkeypatch.setattr(rankings.time, "sleep", lambda seconds: pytest.fail("went on"))
    tasks.rebuild_board(phase.pk)
    assert len(builds) == 1
    assert [(name, pk) for name, pk, _ in sent] == [(queue.REBUILD_BOARD, phase.pk)]
    assert cache.get(lock_key(_fresh(phase)))  # reserved for that task


def test_an_upload_and_a_re_score_have_a_worker_rebuild_the_board(
    sent, django_capture_on_commit_callbacks
):
    """Both change the board (a count, a status): the lock is reserved for a worker's
    rebuild, sent before the scoring, so readers do not build the board meanwhile."""
    phase = phase_with_references(GOLD_BYTES)
    team = approved_team(phase)
    with django_capture_on_commit_callbacks(execute=True):
        run = services.submit(
            team=team, phase=phase, user=team.created_by, files=uploads(GOLD),
            method_name="gold",
        )  # fmt: skip
    assert [name for name, _, _ in sent] == [queue.REBUILD_BOARD, queue.SCORE_SUBMISSION]
    assert cache.get(lock_key(_fresh(phase)))
    cache.delete(lock_key(_fresh(phase)))
    assert services.run_scoring(run.pk) == "scored"
    sent.clear()
    with django_capture_on_commit_callbacks(execute=True):
        assert services.rescore(run)
    assert [name for name, _, _ in sent] == [queue.REBUILD_BOARD, queue.SCORE_SUBMISSION]
    assert cache.get(lock_key(_fresh(phase)))


def test_a_reader_whose_board_changed_meanwhile_passes_the_lock_to_a_worker(monkeypatch, sent):
    """Freed, the lock would go to the next reader, who would build the changed board in a
    web process too: it is kept, reserved for the worker's rebuild sent with it."""
    phase = phase_with_references(GOLD_BYTES)
    scored_submission(approved_team(phase), phase)
    compute = rankings.compute

    def changed_meanwhile(p, part="public"):
        board = compute(p, part)
        Phase.changed(phase.pk)
        return board

    monkeypatch.setattr(rankings, "compute", changed_meanwhile)
    built = leaderboard(_fresh(phase))
    assert _jga(built) == [75.0]
    assert [(name, pk) for name, pk, _ in sent] == [(queue.REBUILD_BOARD, phase.pk)]
    token = cache.get(lock_key(_fresh(phase)))
    assert token
    monkeypatch.setattr(rankings, "compute", lambda p, part="public": pytest.fail("built"))
    assert leaderboard(_fresh(phase)) == built  # the next reader builds nothing
    monkeypatch.setattr(rankings, "compute", compute)
    tasks.rebuild_board(phase.pk, token)
    assert cache.get(cache_key(_fresh(phase))) is not None
    assert cache.get(lock_key(_fresh(phase))) is None
