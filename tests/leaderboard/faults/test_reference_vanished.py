"""A reference file vanishing from private storage: a fault of the site, so the queued run is
retried (its attempt given back each time) until the retry window runs out (shortened here),
then ends ``failed`` with a message that does not ask the team to submit again, uncharged; a
new upload is refused clearly, nothing stored."""

from __future__ import annotations

import json

import pytest

from leaderboard.challenges.models import Reference
from leaderboard.challenges.references import clear_reference_cache
from leaderboard.storage import private_storage
from leaderboard.submissions import services
from leaderboard.submissions.models import Result, Submission
from scoring.synth import make_gold, make_prediction
from tests.leaderboard.factories import approved_team, phase_with_references, uploads
from tests.leaderboard.faults.conftest import wait_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

GOLD = make_gold(3, seed=19)
KEYS = ("tts-verbatim",)


def _stored_files(isolation) -> set[str]:
    return {
        str(p.relative_to(isolation["private"]))
        for p in isolation["private"].rglob("*")
        if p.is_file()
    }


def test_a_run_whose_reference_vanished_fails_with_a_message(start_worker, tmp_path, isolation):
    start_worker(
        TRACKBOARD_SCORING_MAX_ATTEMPTS="2",
        TRACKBOARD_SCORING_RETRY_FOR_SECONDS="4",
        TRACKBOARD_SCORING_RETRY_MAX_DELAY="2",
    )
    phase = phase_with_references(json.dumps(GOLD).encode(), keys=KEYS)
    team = approved_team(phase)
    prediction = make_prediction(GOLD, 0.2, seed=6)
    reference = Reference.objects.get(condition__phase=phase, active=True)
    # Received while the reference is readable (cached in this process), lost before scoring.
    submission = services.submit(
        team=team,
        phase=phase,
        user=team.created_by,
        files=uploads(prediction, keys=KEYS),
        method_name="orphan",
    )
    private_storage().delete(reference.file.name)

    wait_for(
        lambda: Submission.objects.filter(pk=submission.pk, status="failed").exists(),
        "the run to fail",
        tmp_path,
    )
    submission.refresh_from_db()
    assert "a problem on our side that lasted too long" in submission.error
    assert "submit again" not in submission.error
    assert submission.attempts == 1  # the faults gave theirs back; the last one stays
    assert not submission.charged
    assert not Result.objects.filter(submission=submission).exists()

    # The next upload is refused clearly: the request asks storage for the reference's files.
    clear_reference_cache()
    files_before = _stored_files(isolation)
    rows_before = Submission.objects.count()
    with pytest.raises(services.SubmissionNotAllowed, match="reference"):
        services.submit(
            team=team,
            phase=phase,
            user=team.created_by,
            files=uploads(prediction, keys=KEYS),
            method_name="after",
        )
    assert _stored_files(isolation) == files_before
    assert Submission.objects.count() == rows_before
