"""A phase's close is recorded (``Phase.closed``), never read off the clock by what follows
from it: beat's ``close_phases`` records a close once its time has passed, and saving a phase
records what its dates say (created closed, the close moved earlier or later), each moving the
phase's board version once. Uploads (``is_open``, ``state``) stay on the dates."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from leaderboard.background import CLOSE_PHASES, Queue, beat_schedule, declared
from leaderboard.challenges import tasks
from leaderboard.challenges.models import Phase
from tests.leaderboard.factories import PhaseFactory

pytestmark = pytest.mark.django_db

DAY = dt.timedelta(days=1)


def _row(phase: Phase) -> tuple[bool, int]:
    return Phase.objects.values_list("closed", "board_version").get(pk=phase.pk)


def test_beat_records_a_passed_close_once_and_moves_the_version_once():
    assert declared()[CLOSE_PHASES].queue is Queue.SCORING and CLOSE_PHASES in beat_schedule()
    open_, passing = PhaseFactory(), PhaseFactory()
    assert _row(passing) == (False, 0)
    now = timezone.now()
    Phase.objects.filter(pk=passing.pk).update(opens_at=now - 3 * DAY, closes_at=now)
    passing.refresh_from_db()
    assert passing.state == "closed" and not passing.is_open()  # uploads: the clock
    assert _row(passing) == (False, 0)  # nothing recorded it yet
    assert tasks.close_phases() == [passing.pk]
    assert _row(passing) == (True, 1)
    assert tasks.close_phases() == []  # a second run changes nothing
    assert _row(passing) == (True, 1) and _row(open_) == (False, 0)


def test_a_phase_created_with_its_close_passed_is_recorded_closed():
    now = timezone.now()
    phase = PhaseFactory(opens_at=now - 3 * DAY, closes_at=now - DAY)
    assert phase.closed and _row(phase)[0]
    assert tasks.close_phases() == []


def test_saving_the_dates_records_the_close_and_a_later_close_reopens_the_phase():
    phase = PhaseFactory()
    phase.closes_at = timezone.now() - dt.timedelta(minutes=1)  # an organiser closes it now
    phase.save()
    assert phase.closed and _row(phase) == (True, 1)
    phase.name = "Renamed"
    phase.save()
    assert _row(phase) == (True, 1)  # no change to the close: the version stays
    phase.closes_at = timezone.now() + DAY  # not revealed: it may re-open
    phase.save()
    assert not phase.closed and _row(phase) == (False, 2) and phase.is_open()


def test_saving_a_phase_loaded_before_beat_recorded_its_close_keeps_the_close():
    phase = PhaseFactory()
    stale = Phase.objects.get(pk=phase.pk)  # e.g. a form opened before the close
    now = timezone.now()
    Phase.objects.filter(pk=phase.pk).update(closes_at=now)
    assert tasks.close_phases() == [phase.pk]
    stale.name = "Renamed"
    stale.closes_at = now
    stale.save()
    assert stale.closed and _row(phase) == (True, 1)


def test_a_revealed_phase_stays_closed():
    phase = PhaseFactory()
    Phase.objects.filter(pk=phase.pk).update(revealed=True)  # as the reveal writes it
    assert tasks.close_phases() == [phase.pk]
    assert _row(phase) == (True, 1)
