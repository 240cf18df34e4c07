"""``multiwoz22``: the SGD fixture's published values and hand-worked multi-frame cases."""

from __future__ import annotations

import json

import pytest

from scoring import InvalidFile, Resampling
from tests.scoring import helpers

FEW = Resampling(n_boot=50)

SCHEMA = [
    {
        "service_name": "hotel",
        "slots": [
            {"name": "hotel-area", "is_categorical": True, "possible_values": ["north", "south"]},
            {"name": "hotel-name", "is_categorical": False, "possible_values": []},
        ],
        "intents": [{"name": "find_hotel"}],
    },
    {
        "service_name": "train",
        "slots": [
            {"name": "train-day", "is_categorical": True, "possible_values": ["monday", "tuesday"]},
            {"name": "train-leaveat", "is_categorical": False, "possible_values": []},
        ],
        "intents": [{"name": "find_train"}],
    },
]


def frame(service, values=None, intent="NONE", requested=()):
    return {
        "service": service,
        "state": {
            "active_intent": intent,
            "requested_slots": list(requested),
            "slot_values": values or {},
        },
    }


def dialogue(dialogue_id, *user_turns):
    turns = []
    for frames in user_turns:
        turns.append({"speaker": "USER", "frames": list(frames)})
        turns.append({"speaker": "SYSTEM", "frames": []})
    return {"dialogue_id": dialogue_id, "turns": turns}


def scored(gold, pred, match="exact", schema=SCHEMA, training=None):
    files = {"schema": schema, **({} if training is None else {"training_values": training})}
    return helpers.score(gold, pred, "multiwoz22", {"match": match}, FEW, files)


# --- the Schema-Guided evaluator's own test case (fixtures README) -------------------------


def _sgd(fixtures_dir, match):
    data = json.loads((fixtures_dir / "sgd" / "metrics_test_refdata.json").read_text())
    schema = (fixtures_dir / "sgd" / "metrics_test_refschema.json").read_bytes()
    gold = [dialogue("d1", [data["frame_ref"]])]
    hyp = [dialogue("d1", [data["frame_hyp"]])]
    return helpers.score(gold, hyp, "multiwoz22", {"match": match}, FEW, {"schema": schema})


def test_the_sgd_fixture_gives_the_published_fuzzy_values(fixtures_dir):
    m = _sgd(fixtures_dir, "fuzzy").metrics()
    # fixtures README, fuzzy matching on (values there are on 0-1; ours on 0-100)
    assert m["jga"] == pytest.approx(0.0)
    assert m["jga_cat"] == pytest.approx(0.0)
    assert m["jga_noncat"] == pytest.approx(67.0)
    assert m["avg_goal"] == pytest.approx(66.75)
    assert m["avg_noncat"] == pytest.approx(89.0)
    assert m["avg_cat"] == pytest.approx(0.0)
    assert m["intent_acc"] == pytest.approx(0.0)
    assert m["requested_f1"] == pytest.approx(66.66667, abs=1e-4)


def test_the_sgd_fixture_gives_the_published_exact_values(fixtures_dir):
    result = _sgd(fixtures_dir, "exact")
    m = result.metrics()
    assert m["jga_noncat"] == pytest.approx(0.0)
    assert m["avg_goal"] == pytest.approx(50.0)
    assert m["avg_noncat"] == pytest.approx(66.666667)
    assert m["jga"] == 0.0
    assert result.signature.startswith("multiwoz22|match:exact|")
    assert _sgd(fixtures_dir, "fuzzy").signature.startswith(
        "multiwoz22|match:fuzzy-token-sort-rounded|"
    )


# --- hand-worked cases ---------------------------------------------------------------------


def _two_turns():
    gold = [
        dialogue(
            "d1",
            [
                frame("hotel", {"hotel-area": ["north"]}, "find_hotel", ["hotel-phone"]),
                frame("train"),
            ],
            [
                frame(
                    "hotel",
                    {"hotel-area": ["north"], "hotel-name": ["the acorn", "acorn guest house"]},
                    "find_hotel",
                ),
                frame(
                    "train",
                    {"train-day": ["monday"], "train-leaveat": ["17:15"]},
                    "find_train",
                    ["train-price"],
                ),
            ],
        )
    ]
    pred = [
        dialogue(
            "d1",
            [
                frame("hotel", {"hotel-area": ["north"]}, "find_hotel", ["hotel-phone"]),
                frame("train"),
            ],
            [
                frame(
                    "hotel",
                    {"hotel-area": ["North"], "hotel-name": ["Acorn Guest House"]},
                    "find_hotel",
                ),
                frame(
                    "train",
                    {"train-day": ["tuesday"], "train-leaveat": ["17:15"]},
                    "find_train",
                    ["train-price", "train-duration"],
                ),
            ],
        )
    ]
    return gold, pred


def test_a_multi_frame_multi_reference_dialogue_by_hand():
    gold, pred = _two_turns()
    m = scored(gold, pred).metrics()
    # Turn 0: every slot of both services right -> joint 1, cat 1, noncat 1.
    # Turn 1: hotel area 1, name 1 (matches the second listed gold value, after lower-casing);
    #         train day 0 (tuesday != monday), leaveat 1 -> joint 0, cat 1*0 = 0, noncat 1*1 = 1.
    assert m["jga"] == pytest.approx(100 * (1 + 0) / 2)
    assert m["jga_cat"] == pytest.approx(100 * (1 + 0) / 2)
    assert m["jga_noncat"] == pytest.approx(100 * (1 + 1) / 2)
    # Average goal accuracy: per gold frame with active slots, the mean over its active slots:
    # t0 hotel 1/1; t0 train has none (left out); t1 hotel 2/2 = 1; t1 train (0 + 1)/2 = 0.5.
    assert m["avg_goal"] == pytest.approx(100 * (1 + 1 + 0.5) / 3)
    # categorical: t0 hotel 1, t1 hotel 1, t1 train 0; non-categorical: t1 hotel 1, t1 train 1.
    assert m["avg_cat"] == pytest.approx(100 * 2 / 3)
    assert m["avg_noncat"] == pytest.approx(100.0)
    # Intents: 4 gold frames, all right (NONE == NONE for t0 train).
    assert m["intent_acc"] == pytest.approx(100.0)
    # Requested F1 per gold frame: t0 hotel 1, t0 train (both empty) 1, t1 hotel 1,
    # t1 train P = 1/2, R = 1, F1 = 2/3.
    assert m["requested_f1"] == pytest.approx(100 * (3 + 2 / 3) / 4)


def test_fuzzy_matching_takes_the_best_listed_gold_value():
    gold = [
        dialogue(
            "d1", [frame("hotel", {"hotel-area": ["north"], "hotel-name": ["bird dog", "birdie"]})]
        )
    ]
    pred = [dialogue("d1", [frame("hotel", {"hotel-area": ["north"], "hotel-name": ["bird"]})])]
    # token-sort ratio = 2 * common characters / total length:
    # "bird" vs "bird dog": 2*4/12 = 66.7 -> 67; vs "birdie": 2*4/10 = 80. The best is 0.80.
    fuzzy = scored(gold, pred, "fuzzy").metrics()
    assert fuzzy["jga"] == pytest.approx(80.0)  # 1 (area) * 0.80 (name) * 1 (train: no frame)
    assert fuzzy["jga_noncat"] == pytest.approx(80.0)
    assert fuzzy["jga_cat"] == pytest.approx(100.0)
    assert fuzzy["avg_goal"] == pytest.approx(100 * (1 + 0.8) / 2)
    exact = scored(gold, pred, "exact").metrics()
    assert exact["jga"] == 0.0
    assert exact["avg_goal"] == pytest.approx(50.0)


def test_a_predicted_frame_for_a_service_the_gold_turn_lacks_makes_the_turn_wrong():
    gold = [dialogue("d1", [frame("hotel", {"hotel-area": ["north"]})])]
    pred = [
        dialogue(
            "d1",
            [frame("hotel", {"hotel-area": ["north"]}), frame("train", {"train-day": ["monday"]})],
        )
    ]
    m = scored(gold, pred).metrics()
    # hotel frame right (1); train compared with an empty gold: day predicted, not gold -> 0.
    assert m["jga"] == 0.0
    assert m["jga_noncat"] == 100.0  # hotel-name, train-leaveat absent on both sides
    assert m["avg_goal"] == 100.0  # only gold-active slots count: hotel-area, right


def test_dontcare_is_a_value_and_its_spellings_are_one():
    gold = [dialogue("d1", [frame("hotel", {"hotel-area": ["dontcare"], "hotel-name": ["x"]})])]
    pred = [
        dialogue(
            "d1", [frame("hotel", {"hotel-area": ["don't care"], "hotel-name": ["dont care"]})]
        )
    ]
    m = scored(gold, pred, "fuzzy").metrics()
    # area right (both dontcare); name: dontcare is never fuzzily matched -> 0.
    assert m["avg_goal"] == pytest.approx(50.0)
    assert m["jga"] == 0.0


def test_flat_states_are_scored_without_intents():
    gold, _ = _two_turns()
    flat = {
        "d1": [
            {"hotel-area": "north"},
            {
                "hotel-area": "north",
                "hotel-name": ["acorn guest house"],
                "train-day": "tuesday",
                "train-leaveat": "17:15",
            },
        ]
    }
    result = scored(gold, flat)
    assert result.format == "flat-states"
    assert result.metrics()["jga"] == pytest.approx(50.0)  # as in the hand-worked case
    assert "intent_acc" not in result.metrics()
    assert any("no intents" in w for w in result.warnings)


def test_seen_and_unseen_jga_bracket_the_overall_jga():
    gold, pred = _two_turns()
    gold.append(dialogue("d2", [frame("hotel", {"hotel-area": ["south"]})]))
    pred.append(dialogue("d2", [frame("hotel", {"hotel-area": ["south"]})]))
    training = ["hotel-area=north", "monday", "hotel-name=acorn guest house"]
    result = scored(gold, pred, training=training)
    m = result.metrics()
    # d1 t0: area north (seen) -> seen turn, right.
    # d1 t1: leaveat 17:15 was never seen -> unseen turn, wrong (train day).
    # d2 t0: area south not seen -> unseen turn, right.
    assert m["jga"] == pytest.approx(100 * 2 / 3)
    assert m["jga_seen"] == pytest.approx(100.0)
    assert m["jga_unseen"] == pytest.approx(50.0)
    assert m["jga_unseen"] <= m["jga"] <= m["jga_seen"]
    assert result.details["seen_unseen"]["seen_turns"] == 1
    assert "|train:sha256:" in result.signature


@pytest.mark.parametrize(
    ("pred", "message"),
    [
        (
            [dialogue("d1", [frame("hotal")])],
            "run.json: dialogue 'd1', turn 1 (user turn 1), frame 1: service 'hotal' is not in "
            "the schema.",
        ),
        (
            [dialogue("d1", [frame("hotel", {"hotel-stars": ["4"]})])],
            "run.json: dialogue 'd1', turn 1 (user turn 1), frame 1: slot 'hotel-stars' is not a "
            "slot of service 'hotel'.",
        ),
        (
            {"d1": [{"hotel-stars": "4"}]},
            "run.json: dialogue 'd1', turn 1: slot 'hotel-stars' is not in the schema.",
        ),
        (
            {"d1": [{"hotel-area": 4}]},
            "run.json: dialogue 'd1', turn 1: slot 'hotel-area': expected a string or a list of "
            "strings, found the number 4.",
        ),
        ({"d2": [{}]}, "run.json: 1 dialogue id(s) are not in the reference: d2."),
        (
            {"d1": []},
            "run.json: dialogue 'd1' has 0 user turns, the reference has 1 (turn 1 is missing).",
        ),
    ],
)
def test_invalid_predictions_get_precise_messages(pred, message):
    gold = [dialogue("d1", [frame("hotel")])]
    reference = helpers.reference(gold, "multiwoz22", files={"schema": SCHEMA})
    with pytest.raises(InvalidFile) as caught:
        helpers.prediction(pred, reference, "multiwoz22")
    assert str(caught.value) == message
