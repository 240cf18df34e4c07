"""Sample submissions: every dialogue and turn of the reference, empty states, no gold value.

Hand-worked: each gold below has three user turns of which exactly one has an empty state, so
the sample (all states empty) is right on that one turn: JGA 1/3 = 33.33; every gold value is
a deletion, so SER = 2 deletions / 2 gold values = 100.
"""

from __future__ import annotations

import json

import pytest

from scoring import Resampling, Source, get_task
from tests.scoring import helpers
from tests.scoring.test_multiwoz22 import SCHEMA, dialogue, frame

FEW = Resampling(n_boot=20)

DSTC11_GOLD = {
    "MUL0001.json": [{}, {"hotel": {"area": "north"}}],
    "PMUL0002.json": [{"train": {"day": "monday"}}],
}
MWZ_GOLD = [
    dialogue(
        "MUL0001.json",
        [frame("hotel", intent="find_hotel")],
        [frame("hotel", {"hotel-area": ["north"]})],
    ),
    dialogue("PMUL0002.json", [frame("train", {"train-day": ["monday"]})]),
]
DVD_GOLD = {
    "dvd00001": ["", "<frame3> <frame9> <obj1> SIZE large"],
    "dvd00002": ["<obj4> COLOR red"],
}

CASES = {
    "dstc11": (DSTC11_GOLD, {}, "jga", ("north", "monday", "hotel", "train")),
    "multiwoz22": (MWZ_GOLD, {"schema": SCHEMA}, "jga", ("north", "monday", "hotel", "train")),
    "dvd": (DVD_GOLD, {}, "joint", ("large", "red", "frame3", "obj")),
}


@pytest.mark.parametrize("task", sorted(CASES))
def test_a_sample_covers_every_turn_with_empty_states_and_scores_as_worked(task):
    gold, files, primary, secrets = CASES[task]
    loaded = helpers.reference(gold, task, files=files)
    sample = get_task(task).sample(loaded)
    text = sample.decode()
    for secret in secrets:
        assert secret not in text.lower()
    assert "MUL0001.json" in text or "dvd00001" in text
    format_ = get_task(task).check_prediction(Source(sample, "sample.json"))
    assert format_ == get_task(task).formats[0]
    prediction = get_task(task).load_prediction(Source(sample, "sample.json"), loaded)
    result = get_task(task).score(loaded, prediction, resampling=FEW)
    assert result.metrics()[primary] == pytest.approx(100 / 3)
    assert result.counts["turns"] == 3
    assert result.counts["missing_turns"] == 0


def test_a_dstc11_sample_keeps_the_ids_as_written_and_one_dialogue_per_line():
    sample = get_task("dstc11").sample(helpers.reference(DSTC11_GOLD))
    assert sample.decode().splitlines() == [
        "{",
        '"MUL0001.json": [{}, {}],',
        '"PMUL0002.json": [{}]',
        "}",
    ]
    assert json.loads(sample) == {"MUL0001.json": [{}, {}], "PMUL0002.json": [{}]}


def test_the_dstc11_sample_of_the_real_test_gold_covers_its_7372_turns(fixtures_dir):
    gold = (fixtures_dir / "dstc11" / "test-dstc11.gold.json").read_bytes()
    loaded = get_task("dstc11").load_reference(Source(gold, "test-dstc11.gold.json"))
    document = json.loads(get_task("dstc11").sample(loaded))
    # tests/data/README.md: 1,000 dialogues, 7,372 user turns
    assert len(document) == 1000
    assert sum(map(len, document.values())) == 7372
    assert all(state == {} for turns in document.values() for state in turns)
