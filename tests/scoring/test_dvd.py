"""``dvd``: hand-worked DVD-DST cases (one turn each unless said otherwise)."""

from __future__ import annotations

import pytest

from scoring import InvalidFile, Resampling
from tests.scoring import helpers

FEW = Resampling(n_boot=50)
GOLD = "<frame0> <frame100> <obj1> SIZE large COLOR red"


def metrics(gold, pred):
    return helpers.score({"v1": gold}, {"v1": pred}, "dvd", resampling=FEW).metrics()


def test_an_exact_match_scores_100_everywhere():
    m = metrics([GOLD], [GOLD])
    assert set(m) == {"joint", "joint_iou50", "joint_iou70", "object_f1", "slot_f1", "state_f1"}
    assert all(v == 100.0 for v in m.values())


def test_a_wrong_object_scores_0_everywhere():
    m = metrics([GOLD], ["<frame0> <frame100> <obj2> SIZE large COLOR red"])
    # gold objects {1}, predicted {2}: no true positive for objects, pairs or triples.
    assert all(v == 0.0 for v in m.values())


def test_a_wrong_attribute_keeps_object_and_slot_f1():
    m = metrics([GOLD], ["<frame0> <frame100> <obj1> SIZE small COLOR red"])
    assert m["joint"] == m["joint_iou50"] == m["joint_iou70"] == 0.0
    assert m["object_f1"] == 100.0  # object 1 on both sides
    assert m["slot_f1"] == 100.0  # (1, size) and (1, color) on both sides
    # triples: gold {size large, color red}, predicted {size small, color red}: TP 1,
    # F1 = 2*1 / (2 + 2) = 50.
    assert m["state_f1"] == 50.0


@pytest.mark.parametrize(
    ("end", "iou50", "iou70"),
    [
        # gold segment 0..100 (100 frames); predicted 0..end overlaps end frames of 100.
        (51, 100.0, 0.0),  # IoU 0.51: just above 0.5
        (49, 0.0, 0.0),  # IoU 0.49: just below 0.5
        (71, 100.0, 100.0),  # IoU 0.71: just above 0.7
        (69, 100.0, 0.0),  # IoU 0.69: just below 0.7
    ],
)
def test_segment_iou_thresholds(end, iou50, iou70):
    m = metrics([GOLD], [f"<frame0> <frame{end}> <obj1> SIZE large COLOR red"])
    assert m["joint"] == 100.0
    assert (m["joint_iou50"], m["joint_iou70"]) == (iou50, iou70)


def test_a_segment_shifted_beyond_the_gold_counts_the_union():
    # gold 0..100, predicted 40..140: overlap 60, union 140 -> IoU 0.43 < 0.5
    m = metrics([GOLD], ["<frame40> <frame140> <obj1> SIZE large COLOR red"])
    assert (m["joint_iou50"], m["joint_iou70"]) == (0.0, 0.0)


def test_a_segment_missing_on_one_side_has_iou_0():
    no_segment = "<obj1> SIZE large COLOR red"
    for gold, pred in ((GOLD, no_segment), (no_segment, GOLD)):
        m = metrics([gold], [pred])
        assert m["joint"] == 100.0
        assert (m["joint_iou50"], m["joint_iou70"]) == (0.0, 0.0)


def test_no_segment_on_either_side_has_iou_1():
    # The reference code scores this 0 (a list compared with a tuple); we score agreement.
    m = metrics(["<obj1> SIZE large"], ["<obj1> SIZE large"])
    assert (m["joint"], m["joint_iou50"], m["joint_iou70"]) == (100.0, 100.0, 100.0)


def test_f1_is_micro_averaged_over_turns():
    m = metrics(
        [GOLD, GOLD],
        [
            "<frame0> <frame100> <obj2> SIZE large COLOR red",
            "<frame0> <frame100> <obj1> SIZE small",
        ],
    )
    # objects: t0 gold {1} pred {2} (TP 0, 1+1); t1 {1} vs {1} (TP 1, 1+1): 2*1 / 4 = 50.
    assert m["object_f1"] == 50.0
    # pairs: t0 TP 0 (2+2); t1 gold {size, color} pred {size}: TP 1 (2+1): 2 / 7.
    assert m["slot_f1"] == pytest.approx(100 * 2 / 7)
    # triples: t0 TP 0 (2+2); t1 gold {large, red} pred {small}: TP 0 (2+1): 0.
    assert m["state_f1"] == 0.0
    assert m["joint"] == 0.0


def test_the_json_form_equals_the_token_form():
    as_json = {"segment": [0, 100], "objects": {"1": {"size": "large", "color": "Red"}}}
    m = metrics([GOLD], [as_json])
    assert all(v == 100.0 for v in m.values())


@pytest.mark.parametrize(
    ("pred", "message"),
    [
        (
            ["<frame0> <obj1> SIZE large"],
            "run.json: dialogue 'v1', turn 1: a segment needs two frame tokens, <frameN> <frameM>.",
        ),
        (
            ["<frame9> <frame3> <obj1>"],
            "run.json: dialogue 'v1', turn 1: the segment starts at frame 9, after its end 3.",
        ),
        (
            ["SIZE large"],
            "run.json: dialogue 'v1', turn 1: token 0 'SIZE': expected <objN> before the first "
            "slot.",
        ),
        (
            ["<obj1> WEIGHT heavy"],
            "run.json: dialogue 'v1', turn 1: token 1 'WEIGHT': expected <objN> or a slot name "
            "(SIZE, COLOR, MATERIAL, SHAPE).",
        ),
        (
            ["<obj1> SIZE"],
            "run.json: dialogue 'v1', turn 1: token 1 'SIZE': the slot has no value.",
        ),
        (
            [{"objects": {"1": {"weight": "heavy"}}}],
            "run.json: dialogue 'v1', turn 1: object 1: unknown slot 'weight' (use size, color, "
            "material, shape).",
        ),
        (
            [{"segment": [0], "objects": {}}],
            "run.json: dialogue 'v1', turn 1: 'segment' must be [start, end] with non-negative "
            "integer frames, or null; found a JSON array.",
        ),
        (
            [GOLD, {"objects": {}}],
            "run.json: dialogue 'v1', turn 2: the file mixes forms; this state is dvd-json, "
            "earlier ones token-sequence.",
        ),
    ],
)
def test_invalid_states_get_precise_messages(pred, message):
    reference = helpers.reference({"v1": [GOLD]}, "dvd")
    with pytest.raises(InvalidFile) as caught:
        helpers.prediction({"v1": pred}, reference, "dvd")
    assert str(caught.value) == message
