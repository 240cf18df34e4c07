"""The stored boards (``rankings.builds``, ``rankings.boards``): one writer, the board's worker
task; pages only read. A change moves the phase's version once, in the service that makes
it; its commit asks for one build (none while a worker holds the board: that worker looks
again when it lets go); a build claims the board with a conditional UPDATE; a lost task or
a dead builder is made good by ``resend``. Numbers by hand from ``tests.leaderboard.web``: the
shared prediction gets 3 of 4 turns right (JGA 75.00), the gold all four (100.00)."""

from __future__ import annotations

import datetime as dt
import time

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

import scoring.stats
from leaderboard.background import BUILD_BOARDS
from leaderboard.celery import app
from leaderboard.challenges.models import Phase
from leaderboard.challenges.services import close_phases
from leaderboard.rankings import builds
from leaderboard.rankings.boards import stored
from leaderboard.rankings.models import Board
from leaderboard.submissions import services
from leaderboard.teams.services import set_anonymous
from tests.leaderboard.boards import built
from tests.leaderboard.factories import (
    approved_team,
    phase_with_references,
    uploads,
    with_second_factor,
)
from tests.leaderboard.web import GOLD, GOLD_BYTES, scored_submission

pytestmark = pytest.mark.django_db


def _shown(phase: Phase) -> list[tuple[str, float]]:
    """(team, JGA) of the first condition's rows, as a page reads them (nothing built)."""
    board = stored(Phase.objects.select_related("challenge").get(pk=phase.pk)).board
    at = [c.name for c in board.columns].index("jga")
    return [(r.team_name, round(r.cells[at][0], 2)) for r in board.conditions[0].rows]


def _version(phase: Phase) -> int:
    return Phase.objects.get(pk=phase.pk).board_version


@pytest.fixture
def sent(monkeypatch) -> list[tuple[str, int, str]]:
    """The build tasks sent to the broker: (task name, phase id, queue)."""
    found: list[tuple[str, int, str]] = []

    def record(name, args, queue, **options):  # options: the request id's headers
        found.append((name, args[0], queue))

    monkeypatch.setattr(app, "send_task", record)
    return found


@pytest.fixture
def phase():
    return phase_with_references(GOLD_BYTES)


def test_pages_read_the_board_the_worker_built_and_never_compute_one(phase, monkeypatch):
    first = approved_team(phase)
    scored_submission(first, phase)  # scored, then built as the worker builds it
    row = Board.objects.get(phase=phase, kind=Board.Kind.PUBLIC)
    assert row.version == _version(phase) and row.built_at is not None
    monkeypatch.setattr(builds, "compute", lambda *a: pytest.fail("a reader computed a board"))
    monkeypatch.setattr(
        "leaderboard.rankings.compute.compute", lambda *a: pytest.fail("a reader computed a board")
    )
    assert _shown(phase) == [(first.name, 75.0)]
    found = stored(Phase.objects.get(pk=phase.pk))
    assert found.built and not found.behind


def test_an_upload_and_its_scoring_move_the_version_by_one_each(phase):
    team = approved_team(phase)
    before = _version(phase)
    run = services.submit(
        team=team, phase=phase, user=team.created_by, files=uploads(GOLD), method_name="gold",
        enqueue=False,
    )  # fmt: skip
    assert _version(phase) == before + 1  # its count on the board
    assert services.run_scoring(run.pk) == "scored"  # three conditions, three Results
    assert _version(phase) == before + 2


def test_the_next_change_shows_once_the_worker_has_built_it(phase):
    first = approved_team(phase)
    scored_submission(first, phase)
    second = approved_team(phase)
    scored_submission(second, phase, "gold", build=False)
    # not built yet: the last board, said to be behind
    assert _shown(phase) == [(first.name, 75.0)]
    assert stored(Phase.objects.get(pk=phase.pk)).behind
    built(phase)
    # the same file: tied on JGA and SER, the earlier submission first
    assert _shown(phase) == [(first.name, 75.0), (second.name, 75.0)]
    set_anonymous(team=second, user=second.created_by, anonymous=True)
    assert _shown(phase) == [(first.name, 75.0), (second.name, 75.0)]  # until built
    built(phase)
    assert _shown(phase) == [(first.name, 75.0), (f"Anonymous team {second.alias}", 75.0)]


def test_saving_a_phase_loaded_before_a_change_never_moves_its_version_back(phase):
    stale = Phase.objects.get(pk=phase.pk)  # e.g. a form opened now, saved later
    Phase.changed(phase.pk)
    moved = _version(phase)
    stale.name = "Test (renamed)"
    stale.save()
    assert _version(phase) == moved and Phase.objects.get(pk=phase.pk).name == "Test (renamed)"


def test_a_committed_change_sends_one_build_and_none_while_a_worker_holds_the_board(
    phase, sent, settings, django_capture_on_commit_callbacks
):
    settings.CELERY_BOARD_QUEUE = "boards"
    with django_capture_on_commit_callbacks(execute=True):
        Phase.changed(phase.pk)
    assert sent == [(BUILD_BOARDS, phase.pk, "boards")]
    # a worker holds the board: it looks at the version again when it lets go
    row = Board.objects.get(pk=builds._row(phase.pk, Board.Kind.PUBLIC))
    token = builds._claim(row.pk)
    with django_capture_on_commit_callbacks(execute=True):
        Phase.changed(phase.pk)
    assert len(sent) == 1
    # ... and nothing is sent before the change commits
    Phase.changed(phase.pk)
    assert len(sent) == 1
    Board.objects.filter(pk=row.pk, builder=token).update(lease_until=None, builder="")


def test_a_builder_that_let_go_builds_the_change_made_while_it_held_the_board(phase):
    builds.build(phase.pk)
    pk = builds._row(phase.pk, Board.Kind.PUBLIC)
    token = builds._claim(pk)
    Phase.changed(phase.pk)  # committed meanwhile; its build task was not sent
    assert builds.build(phase.pk) == 0  # another worker holds it: left alone
    Board.objects.filter(pk=pk, builder=token).update(lease_until=None, builder="")
    assert builds.build(phase.pk) == 1
    assert Board.objects.get(pk=pk).version == _version(phase)
    assert builds.build(phase.pk) == 0  # current: nothing to do


def _selects_from(queries: list[dict[str, str]], model: type) -> int:
    """The SELECT statements among ``queries`` that read rows of ``model``'s table (the table
    they select FROM; a query of other rows that joins it to filter them is not a read)."""
    table = f'FROM "{model._meta.db_table}"'
    return sum(1 for q in queries if q["sql"].lstrip().startswith("SELECT") and table in q["sql"])


def test_one_build_selects_its_phase_and_its_board_once_then_looks_again_once(phase):
    """The build reads the phase (with its challenge) and the phase's boards once and passes
    them down; after letting go of the board it reads both once more, on purpose: a change
    committed while it held the board sent no task (``request``)."""
    team = approved_team(phase)
    scored_submission(team, phase)  # the board's row exists and is current
    Phase.changed(phase.pk)  # one board behind
    with CaptureQueriesContext(connection) as captured:
        assert builds.build(phase.pk) == 1
    queries = captured.captured_queries
    let_go = next(
        i
        for i, q in enumerate(queries)
        if q["sql"].lstrip().upper().startswith("UPDATE")
        and f'"{Board._meta.db_table}"' in q["sql"]
        and '"lease_until" = NULL' in q["sql"]
    )
    building, looking_again = queries[:let_go], queries[let_go + 1 :]
    assert (_selects_from(building, Phase), _selects_from(building, Board)) == (1, 1)
    assert (_selects_from(looking_again, Phase), _selects_from(looking_again, Board)) == (1, 1)
    assert Board.objects.get(phase=phase).version == _version(phase)


def test_a_builder_whose_lease_ran_out_is_taken_over_and_cannot_store(phase):
    pk = builds._row(phase.pk, Board.Kind.PUBLIC)
    dead = builds._claim(pk)
    assert builds._claim(pk) is None
    Board.objects.filter(pk=pk).update(lease_until=timezone.now() - dt.timedelta(seconds=1))
    alive = builds._claim(pk)
    assert alive is not None and alive != dead
    assert not builds._store(pk, dead, 99, b"", 0.1)
    assert builds._store(pk, alive, _version(phase), b"", 0.1)


def test_resend_sends_boards_left_behind_that_nobody_holds(
    sent, django_capture_on_commit_callbacks
):
    current = phase_with_references(GOLD_BYTES)
    builds.build(current.pk)
    never = phase_with_references(GOLD_BYTES)
    behind = phase_with_references(GOLD_BYTES)
    builds.build(behind.pk)
    Phase.changed(behind.pk)
    held = phase_with_references(GOLD_BYTES)
    builds.build(held.pk)
    Phase.changed(held.pk)
    builds._claim(builds._row(held.pk, Board.Kind.PUBLIC))
    with django_capture_on_commit_callbacks(execute=True):
        assert sorted(builds.resend()) == sorted([never.pk, behind.pk])
    assert {pk for _, pk, _ in sent} == {never.pk, behind.pk}


def test_the_private_board_is_built_when_the_phase_has_one_or_has_closed():
    public = phase_with_references(GOLD_BYTES)
    hidden = phase_with_references(GOLD_BYTES, results_visibility=Phase.Visibility.HIDDEN)
    split = phase_with_references(GOLD_BYTES, split_fraction=0.5)
    now = timezone.now()
    closed = phase_with_references(
        GOLD_BYTES, opens_at=now - dt.timedelta(days=3), closes_at=now - dt.timedelta(days=1)
    )
    for phase in (public, hidden, split, closed):
        builds.build(phase.pk)
    kinds = {
        phase.pk: set(Board.objects.filter(phase=phase).values_list("kind", flat=True))
        for phase in (public, hidden, split, closed)
    }
    assert kinds[public.pk] == {"public"}
    assert kinds[hidden.pk] == kinds[split.pk] == kinds[closed.pk] == {"public", "private"}


def test_the_close_beat_records_asks_for_the_private_board(
    phase, sent, django_capture_on_commit_callbacks
):
    """A phase without a private board gets one when it closes, because beat's
    ``close_phases`` records the close and moves the phase's version: the clock alone
    changes nothing the builder reads."""
    builds.build(phase.pk)
    assert builds.kinds(phase) == (Board.Kind.PUBLIC,)
    now = timezone.now()
    Phase.objects.filter(pk=phase.pk).update(
        opens_at=now - dt.timedelta(days=3), closes_at=now - dt.timedelta(minutes=1)
    )  # the close passes
    before = _version(phase)
    assert builds.kinds(Phase.objects.get(pk=phase.pk)) == (Board.Kind.PUBLIC,)
    assert builds.resend() == []  # no timer decides it
    with django_capture_on_commit_callbacks(execute=True):
        assert close_phases() == [phase.pk]
    assert _version(phase) == before + 1
    assert [pk for _, pk, _ in sent] == [phase.pk]  # built because the data changed
    with django_capture_on_commit_callbacks(execute=True):
        assert close_phases() == []  # recorded once
    assert _version(phase) == before + 1 and len(sent) == 1
    closed = Phase.objects.get(pk=phase.pk)
    assert closed.closed and builds.kinds(closed) == (Board.Kind.PUBLIC, Board.Kind.PRIVATE)
    builds.build(phase.pk)
    assert set(Board.objects.filter(phase=phase).values_list("kind", flat=True)) == {
        "public",
        "private",
    }


def test_a_deleted_phase_builds_nothing():
    assert builds.build(10**9) == 0


@pytest.mark.django_db(transaction=True)  # a worker's build runs outside any transaction
def test_a_board_that_keeps_changing_is_built_in_turns_of_a_task_each(
    sent, phase, monkeypatch, settings
):
    """A worker builds at least once a turn, then sends the phase's task again, so the other
    tasks of its queue are not kept waiting behind a board that changes all the time."""
    sent.clear()  # the builds the phase's creation asked for
    monkeypatch.setattr(builds, "TURN_SECONDS", 0)
    compute = builds.compute

    def changing(phase, kind, **kwargs):
        Phase.changed(phase.pk)  # another change arrives during every build
        return compute(phase, kind, **kwargs)

    monkeypatch.setattr(builds, "compute", changing)
    assert builds.build(phase.pk) == 1
    assert sent == [(BUILD_BOARDS, phase.pk, settings.CELERY_TASK_DEFAULT_QUEUE)]
    assert Board.objects.get(phase=phase).version == _version(phase) - 1


def test_no_page_export_or_api_answer_computes_a_board(client, monkeypatch):
    """Every reader's and organiser's board response reads the stored boards: with the
    computation of a board made to fail, they all answer (a board is computed only by its
    worker's task, ``builds``)."""
    phase = phase_with_references(GOLD_BYTES, split_fraction=0.5)
    first, second = approved_team(phase), approved_team(phase)
    a = scored_submission(first, phase)
    b = scored_submission(second, phase, "Second")
    organiser = second.created_by
    phase.challenge.organisers.add(with_second_factor(organiser))
    built(phase)

    def refuse(*args, **kwargs):
        raise AssertionError("a request computed a board")

    monkeypatch.setattr(builds, "compute", refuse)
    monkeypatch.setattr("leaderboard.rankings.compute.compute", refuse)
    base = f"/challenges/{phase.challenge.slug}/{phase.slug}/"
    paths = [
        "leaderboard/", "leaderboard/?fragment=1", "leaderboard.json", "leaderboard.csv",
        "table.tex", "table.md", f"pairwise/?a={a.pk}&b={b.pk}", "robustness/", "errors/",
        "reveal/", "snapshots/",
    ]  # fmt: skip
    api = [f"/api/v1/phases/{phase.pk}/leaderboard/", f"/api/v1/phases/{phase.pk}/leaderboard/"
           "?condition=tts-verbatim"]  # fmt: skip
    client.force_login(type(organiser).objects.get(pk=organiser.pk))
    for path in [base + p for p in paths] + api:
        assert client.get(path).status_code == 200, path
    client.logout()
    for path in [base + p for p in paths[:6]] + api:
        assert client.get(path).status_code == 200, path


@pytest.mark.django_db(transaction=True)  # the heartbeat's thread has a connection of its own
def test_a_build_longer_than_the_lease_keeps_the_board(sent, phase, monkeypatch):
    """The builder's heartbeat renews the board's lease every third of it while it builds
    (``leaderboard.leases``): a build that outlasts the lease is not taken over, and stores."""
    monkeypatch.setattr(builds, "LEASE_SECONDS", 0.6)  # renewed every 0.2 s
    pk = builds._row(phase.pk, Board.Kind.PUBLIC)
    compute = builds.compute
    seen: dict[str, object] = {}

    def slow(phase, kind, **kwargs):
        claimed = Board.objects.get(pk=pk).lease_until
        deadline = time.monotonic() + 10
        # past the claim's lease, which the heartbeat has renewed
        while timezone.now() <= claimed or Board.objects.get(pk=pk).lease_until <= claimed:
            assert time.monotonic() < deadline, "the lease was not renewed"
            time.sleep(0.02)
        seen["other"] = builds._claim(pk)  # another worker tries to take the board over
        return compute(phase, kind, **kwargs)

    monkeypatch.setattr(builds, "compute", slow)
    assert builds.build(phase.pk) == 1
    assert seen == {"other": None}
    row = Board.objects.get(pk=pk)
    assert row.version == _version(phase)
    assert row.builder == "" and row.lease_until is None  # let go


@pytest.mark.parametrize(
    "options", [{"results_visibility": Phase.Visibility.HIDDEN}, {"split_fraction": 0.5}]
)
def test_one_build_draws_each_number_of_dialogues_once(options, monkeypatch):
    """A build's boards (the public and the private one, with its shake-up on the public part
    of a split) and its turns share the bootstrap's draws: each number of dialogues is drawn
    once a task, not once a board."""
    phase = phase_with_references(GOLD_BYTES, **options)
    for team in (approved_team(phase), approved_team(phase)):
        scored_submission(team, phase, build=False)
    drawn: list[int] = []
    resample_weights = scoring.stats.resample_weights

    def counted(n, n_boot, seed):
        drawn.append(n)
        return resample_weights(n, n_boot, seed)

    monkeypatch.setattr(scoring.stats, "resample_weights", counted)
    compute = builds.compute
    changes = [phase.pk]

    def changing(phase, kind, **kwargs):
        if changes:
            Phase.changed(changes.pop())  # once: the board is built again in the same turn
        return compute(phase, kind, **kwargs)

    monkeypatch.setattr(builds, "compute", changing)
    # The change arrives while the first board of the round is built: both boards of the round
    # are stored at the version the round read, and the next round builds both again.
    assert builds.build(phase.pk) == 4
    assert drawn and sorted(drawn) == sorted(set(drawn))
    kinds = set(Board.objects.filter(phase=phase).values_list("kind", flat=True))
    assert kinds == {"public", "private"}
    assert all(row.version == _version(phase) for row in Board.objects.filter(phase=phase))
