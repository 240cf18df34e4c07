"""JGA, SER and their breakdowns on a small example worked out by hand."""

from __future__ import annotations

import pytest

import scoring
from tests.scoring import helpers

GOLD = {
    "d1": [
        {"hotel": {"area": "north"}},
        {"hotel": {"area": "north", "bookday": "friday"}},
        {"hotel": {"area": "north", "bookday": "friday"}, "taxi": {"leaveat": "5:30 pm"}},
    ],
    "d2": [
        {},
        {"train": {"day": "monday", "departure": "ely"}},
    ],
}
PRED = {
    "D1.json": [
        {"hotel": {"area": "North"}},  # correct after lower-casing
        {"hotel": {"area": "north", "day": "saturday"}},  # S on hotel-day
        {"hotel": {"area": "north", "day": "friday"}, "taxi": {"leave at": "17:30"}},  # correct
    ],
    "d2": [
        {"taxi": {"departure": "ely"}},  # I on taxi-departure
        {"train": {"day": "monday"}},  # D on train-departure
    ],
}
# Hand-worked: 5 turns, correct = d1t0, d1t2 -> JGA 2/5 = 40%.
# N_ref = 1 + 2 + 3 + 0 + 2 = 8; S = 1, D = 1, I = 1 -> SER = 3/8 = 37.5%.
# TP = 8 - 1 - 1 = 6; predicted = 6 + 1 + 1 = 8 -> P = 75, R = 75, F1 = 75.


def _score(resampling=None, **options):
    return helpers.score(GOLD, PRED, options=options, resampling=resampling)


def test_headline_metrics():
    result = _score()
    assert result.counts["turns"] == 5
    assert result.values["jga"] == pytest.approx(40.0)
    details = result.details
    assert (details["n_ref"], details["sub"], details["del"], details["ins"]) == (8, 1, 1, 1)
    assert result.values["ser"] == pytest.approx(37.5)
    assert details["slot_precision"] == pytest.approx(75.0)
    assert details["slot_recall"] == pytest.approx(75.0)
    assert result.values["slot_f1"] == pytest.approx(75.0)


def test_per_slot_counts():
    per_slot = _score().details["per_slot"]
    day = per_slot["hotel-day"]
    assert [day[k] for k in ("n_ref", "n_pred", "correct", "sub", "del", "ins")] == [
        2, 2, 1, 1, 0, 0
    ]  # fmt: skip
    assert day["accuracy"] == pytest.approx(80.0)  # wrong in 1 of 5 turns
    ins = per_slot["taxi-departure"]
    assert (ins["n_ref"], ins["n_pred"], ins["ins"]) == (0, 1, 1)
    dele = per_slot["train-departure"]
    assert (dele["n_ref"], dele["n_pred"], dele["del"]) == (1, 0, 1)


def test_per_domain_jga():
    per_domain = _score().details["per_domain"]
    # hotel appears in d1 t0, t1, t2; wrong in t1 -> 2/3.
    assert (per_domain["hotel"]["turns"], per_domain["hotel"]["correct"]) == (3, 2)
    # taxi appears in d1 t2 (right) and d2 t0 (inserted, wrong) -> 1/2.
    assert (per_domain["taxi"]["turns"], per_domain["taxi"]["correct"]) == (2, 1)
    # train appears in d2 t1 only, wrong.
    assert per_domain["train"]["jga"] == 0.0


def test_per_dialogue_statistics():
    dialogues = _score().dialogues
    assert dialogues.ids == ("d1", "d2")
    # d1: 2 of 3 turns right, 6 gold values, 1 error; d2: 0 of 2 right, 2 values, 2 errors.
    assert [list(c) for c in dialogues.columns["jga"]] == [[2, 0], [3, 2]]
    assert [list(c) for c in dialogues.columns["ser"]] == [[1, 2], [6, 2]]
    # F1 = 2 TP / (n_ref + n_pred): d1 TP 5 of 6 gold and 6 predicted; d2 TP 1, 2 and 2.
    assert [list(c) for c in dialogues.columns["slot_f1"]] == [[10, 2], [12, 4]]


def test_strict_profile_changes_the_score():
    # Under strict, "North" still matches (lower-case) but "17:30" != "5:30 pm".
    result = _score(profile="strict")
    assert result.values["jga"] == pytest.approx(20.0)
    assert result.details["sub"] == 2


def test_out_of_ontology_slots_are_insertions_with_a_warning():
    pred = {**GOLD, "d2": [{"spaceship": {"colour": "red"}}, GOLD["d2"][1]]}
    result = helpers.score(GOLD, pred)
    assert result.details["ins"] == 1
    assert result.warnings == (
        "slots not in the reference's ontology, scored as insertions: spaceship-colour (1).",
    )


def test_missing_turns_can_be_scored_as_empty():
    reference = helpers.reference(GOLD)
    pred = {"d1": GOLD["d1"][:2]}
    prediction = helpers.prediction(pred, reference, options={"missing": "empty"})
    result = scoring.get_task("dstc11").score(reference, prediction, {"missing": "empty"})
    # d1 t2 (3 slots) and d2 (t0 empty = correct, t1 2 slots) are empty: 2 + 1 correct of 5.
    assert result.values["jga"] == pytest.approx(60.0)
    assert result.details["del"] == 5
    assert (result.counts["missing_turns"], result.counts["missing_dialogues"]) == (3, 1)


def test_signature_names_every_setting():
    result = _score(resampling=scoring.Resampling(n_boot=200, level=0.9, seed=7), profile="strict")
    sig = result.signature.split("|")
    assert sig[0] == "dstc11"
    assert sig[1:6] == [
        "norm:strict",
        "missing:reject",
        "ci:bootstrap-200-dialogue-90",
        "seed:7",
        sig[5],
    ]
    assert sig[5].startswith("gold:sha256:") and len(sig[5]) == len("gold:sha256:") + 8
    assert sig[6] == f"v:{scoring.__version__}"
