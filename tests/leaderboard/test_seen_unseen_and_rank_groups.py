"""Seen/unseen JGA for a reference with a training-values list, and rank groups on another
task's metrics (tested only where both sides share per-dialogue denominators). Expected
numbers are worked by hand."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from leaderboard.challenges.services import add_reference
from leaderboard.submissions.models import Result
from tests.leaderboard.boards import leaderboard
from tests.leaderboard.factories import ChallengeFactory, ConditionFactory, PhaseFactory
from tests.leaderboard.task_data import (
    DVD_EMPTY,
    DVD_GOLD,
    DVD_PARTIAL,
    DVD_PERFECT,
    OPTIONS,
    board_page,
    make_phase,
    submit_through_the_page,
)
from tests.leaderboard.web import log_in, tight

pytestmark = pytest.mark.django_db

# --- seen / unseen --------------------------------------------------------------------------
# dstc11 gold: turn 1 has only area=north (seen in training); turn 2 adds name=acorn (unseen);
# d2's area=south is unseen. The prediction gets every turn right except d2's.
# Overall JGA 2/3 = 66.67; seen turns: 1 of 1 right = 100; unseen turns: 1 of 2 right = 50.
SEEN_GOLD = {
    "d1": [{"hotel": {"area": "north"}}, {"hotel": {"area": "north", "name": "acorn"}}],
    "d2": [{"hotel": {"area": "south"}}],
}
SEEN_PREDICTION = {
    "d1": [{"hotel": {"area": "north"}}, {"hotel": {"area": "north", "name": "acorn"}}],
    "d2": [{"hotel": {"area": "north"}}],
}
TRAINING = json.dumps(["hotel-area=north"]).encode()


def test_a_reference_with_training_values_reports_seen_and_unseen_jga(client, enqueued):
    phase = make_phase(
        "dstc11",
        json.dumps(SEEN_GOLD).encode(),
        {"training_values": (TRAINING, "train-values.json")},
    )
    submit_through_the_page(client, phase, SEEN_PREDICTION, "tracker")
    result = Result.objects.get()
    assert result.metrics["jga"] == result.primary == pytest.approx(200 / 3)
    assert result.metrics["jga_seen"] == pytest.approx(100.0)
    assert result.metrics["jga_unseen"] == pytest.approx(50.0)
    assert result.metrics["jga_unseen"] <= result.metrics["jga"] <= result.metrics["jga_seen"]
    assert "|train:sha256:" in result.signature

    page = board_page(client, phase)
    assert 'JGA (seen) <span class="sub">[95% CI]</span>' in page
    assert 'JGA (unseen) <span class="sub">[95% CI]</span>' in page
    assert "100.00" in page and "50.00" in page
    (board,) = leaderboard(phase).conditions
    names = [c.name for c in leaderboard(phase).columns]
    assert names == ["jga", "ser", "jga_seen", "jga_unseen"]
    assert board.rows[0].cells[2][0] == pytest.approx(100.0)
    # the result page lists the turns each part was computed on (1 seen, 2 unseen)
    log_in(client, result.submission.team.created_by)
    detail = tight(client.get(reverse("submissions:detail", args=[result.submission_id])).text)
    for name, turns in (("seen_turns", 1), ("unseen_turns", 2)):
        assert f'<code>seen_unseen.{name}</code></th><td class="num">{turns}<' in detail
    # the challenge page's local command names the training values the references carry
    challenge = client.get(reverse("challenges:detail", args=[phase.challenge.slug])).text
    assert "--gold gold.json --training-values training-values.json --pred" in challenge


def test_a_reference_without_training_values_shows_no_seen_unseen_columns(client, enqueued):
    phase = make_phase("dstc11", json.dumps(SEEN_GOLD).encode())
    submit_through_the_page(client, phase, SEEN_PREDICTION, "tracker")
    assert "jga_seen" not in Result.objects.get().metrics
    assert "JGA (seen)" not in board_page(client, phase)


# Rank groups. Joint Acc has one denominator per dialogue (its turns), whatever the prediction.
# A resample draws v1 and v2 (two draws): v1 twice, v2 twice, or one of each. Perfect beats
# partial on v1 only (2 of 2 turns against 1 of 2) and ties on v2, so their resampled
# difference is 0 whenever v1 is not drawn (1 resample in 4) and positive otherwise:
# P(d* <= 0) ~ 1/4, p = 2 * 1/4 ~ 0.5, not significant. Partial beats empty on both dialogues
# (v1: 1 turn against 0, v2: 1 against 0), so every resample's difference is positive:
# P(d* <= 0) = 0, p = 0, significant. Joint Acc's groups: 1-2, 1-2, 3. State F1's
# per-dialogue denominator is 2 TP + FP + FN, which depends on the prediction: perfect and
# partial share it (v1: 2*4 = 2*3 + 1 + 1 = 8; v2: 2), partial and empty do not (v1: 8 vs 4),
# so that pair is never tested.
def _ranked_groups(client, primary_metric, predictions):
    challenge = ChallengeFactory(task="dvd", scorer_options=OPTIONS, primary_metric=primary_metric)
    phase = PhaseFactory(challenge=challenge)
    condition = ConditionFactory(phase=phase, key="test", label="Test set")
    add_reference(condition, json.dumps(DVD_GOLD).encode(), "gold.json")
    for method, prediction in predictions.items():
        submit_through_the_page(client, phase, prediction, method)
    (board,) = leaderboard(phase).conditions
    return phase, board


def test_rank_groups_test_the_primary_metric_only_where_denominators_agree(client, enqueued):
    everything = {"empty": DVD_EMPTY, "partial": DVD_PARTIAL, "perfect": DVD_PERFECT}
    _, joint = _ranked_groups(client, "joint", everything)
    assert [(r.method_name, r.group) for r in joint.rows] == [
        ("perfect", "1\u20132"),
        ("partial", "1\u20132"),
        ("empty", "3"),
    ]
    f1_phase, f1 = _ranked_groups(client, "state_f1", everything)
    # state F1 (moved to the first column as the primary metric) of partial: TP 4, FP 1,
    # FN 1 -> 8 / 10 = 80
    assert [(r.method_name, r.cells[0][0]) for r in f1.rows] == [
        ("perfect", pytest.approx(100.0)),
        ("partial", pytest.approx(80.0)),
        ("empty", pytest.approx(0.0)),
    ]
    assert [r.group for r in f1.rows] == ["1\u20132", "1\u20132", "3"]
    assert [o.method_name for o in leaderboard(f1_phase).overview] == [
        "perfect",
        "partial",
        "empty",
    ]
    assert [o.method_name for o in leaderboard(f1_phase).overview] == [
        "perfect",
        "partial",
        "empty",
    ]
    assert not f1.note  # one pair could be tested


def test_a_primary_metric_that_cannot_be_tested_is_shown_without_groups_and_says_so(
    client, enqueued
):
    phase, board = _ranked_groups(client, "state_f1", {"empty": DVD_EMPTY, "partial": DVD_PARTIAL})
    assert [r.group for r in board.rows] == ["1", "2"]
    assert board.note.startswith("No rank groups")
    assert "No rank groups" in board_page(client, phase)
