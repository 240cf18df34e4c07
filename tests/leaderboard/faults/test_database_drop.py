"""The database connection drops while the worker writes the Results.

A trigger on the Result table terminates the inserting backend once (a sequence counts, because
a sequence survives the rollback the termination causes). Outcome: the worker survives, the
run gives its claim back with its attempt (a fault of the site is not an attempt), is retried
and scored exactly once; a direct duplicate Result is refused by the unique constraint.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from django.db import IntegrityError, connection, transaction

from leaderboard.submissions import services
from leaderboard.submissions.models import Result, Submission
from scoring.synth import make_gold, make_prediction
from tests.leaderboard.factories import approved_team, phase_with_references, uploads
from tests.leaderboard.faults.conftest import wait_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

GOLD = make_gold(3, seed=17)
TABLE = Result._meta.db_table


@pytest.fixture
def drop_on_first_result_insert(postgres) -> Iterator[None]:
    with connection.cursor() as cursor:
        cursor.execute("CREATE SEQUENCE IF NOT EXISTS trackboard_fault_drop")
        cursor.execute(
            """
            CREATE OR REPLACE FUNCTION trackboard_fault_drop() RETURNS trigger AS $$
            BEGIN
                IF nextval('trackboard_fault_drop') = 1 THEN
                    PERFORM pg_terminate_backend(pg_backend_pid());
                END IF;
                RETURN NEW;
            END $$ LANGUAGE plpgsql
            """
        )
        cursor.execute(
            f"CREATE TRIGGER trackboard_fault_drop BEFORE INSERT ON {TABLE} "
            "FOR EACH ROW EXECUTE FUNCTION trackboard_fault_drop()"
        )
    yield
    with connection.cursor() as cursor:
        cursor.execute(f"DROP TRIGGER IF EXISTS trackboard_fault_drop ON {TABLE}")
        cursor.execute("DROP FUNCTION IF EXISTS trackboard_fault_drop()")
        cursor.execute("DROP SEQUENCE IF EXISTS trackboard_fault_drop")


def test_a_connection_dropped_during_the_result_write_is_scored_once_later(
    start_worker, drop_on_first_result_insert, tmp_path
):
    worker = start_worker(TRACKBOARD_SCORING_LEASE_SECONDS="3")
    phase = phase_with_references(json.dumps(GOLD).encode())
    team = approved_team(phase)
    submission = services.submit(
        team=team,
        phase=phase,
        user=team.created_by,
        files=uploads(make_prediction(GOLD, 0.2, seed=5)),
        method_name="dropped",
    )

    def scored() -> bool:
        services.reap_expired_leases()  # as beat would, on a short interval
        return Submission.objects.filter(pk=submission.pk, status="scored").exists()

    wait_for(scored, "the run to be scored after the dropped connection", tmp_path)
    with connection.cursor() as cursor:
        cursor.execute("SELECT last_value FROM trackboard_fault_drop")
        assert cursor.fetchone()[0] > 1, "the fault never fired"
    submission.refresh_from_db()
    assert submission.attempts == 1  # the dropped run gave its attempt back
    assert submission.error == ""
    assert Result.objects.filter(submission=submission).count() == 3
    assert worker.poll() is None

    # The unique constraint, not only update_or_create, makes a second copy impossible.
    existing = Result.objects.filter(submission=submission).first()
    existing.pk = None
    with pytest.raises(IntegrityError), transaction.atomic():
        existing.save(force_insert=True)


def test_a_run_whose_connection_drops_is_retried_within_a_minute_not_after_its_lease(
    start_worker, drop_on_first_result_insert, tmp_path, tally
):
    # A long lease (15 minutes) and no reaper: only the retry can score it in time.
    worker = start_worker(TRACKBOARD_SCORING_LEASE_SECONDS="900")
    phase = phase_with_references(json.dumps(GOLD).encode())
    team = approved_team(phase)
    submission = services.submit(
        team=team,
        phase=phase,
        user=team.created_by,
        files=uploads(make_prediction(GOLD, 0.2, seed=6)),
        method_name="dropped, retried",
    )
    wait_for(
        lambda: Submission.objects.filter(pk=submission.pk, status="scored").exists(),
        "the run to be retried and scored within a minute",
        tmp_path,
        deadline=60,
    )
    with connection.cursor() as cursor:
        cursor.execute("SELECT last_value FROM trackboard_fault_drop")
        assert cursor.fetchone()[0] > 1, "the fault never fired"
    submission.refresh_from_db()
    assert submission.attempts == 1  # the dropped run gave its attempt back to its retry
    assert Result.objects.filter(submission=submission).count() == 3
    assert worker.poll() is None
    tally.lost += int(submission.status != "scored")
