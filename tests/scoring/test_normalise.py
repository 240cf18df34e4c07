"""Every normalisation rule of the dstc11 task (docs/scoring.md), with hand-worked examples."""

from __future__ import annotations

import pytest

from scoring.normalise import normalise_time, slot_key, value_normaliser

default = value_normaliser("default")
strict = value_normaliser("strict")


@pytest.mark.parametrize(
    ("domain", "slot", "key"),
    [
        ("Hotel", "Area", "hotel-area"),  # lower-cased
        ("  taxi ", " departure ", "taxi-departure"),  # trimmed
        ("hotel", "price range", "hotel-pricerange"),  # spaces removed from the slot
        ("hotel", "bookday", "hotel-day"),  # leading "book" removed
        ("restaurant", "book time", "restaurant-time"),  # after removing the space
        ("train", "bookpeople", "train-people"),
        ("taxi", "arrive", "taxi-arriveby"),  # alias
        ("taxi", "leave", "taxi-leaveat"),  # alias
        ("taxi", "leave at", "taxi-leaveat"),
        ("train", "arrive by", "train-arriveby"),
        ("hotel", "book", "hotel-book"),  # nothing left after "book": kept
    ],
)
def test_slot_keys(domain, slot, key):
    assert slot_key(domain, slot) == key


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Cheap", "cheap"),  # 1. lower-case
        ("(the) Lensfield", "the lensfield"),  # 2. parentheses deleted
        ("saint john's college", "saint johns college"),  # 2. apostrophe deleted
        ("saint john\u2019s college", "saint johns college"),  # 2. typographic apostrophe
        ("a & b guest house", "a and b guest house"),  # 3. & -> and, then spaces collapse
        ("a&b guest house", "a and b guest house"),
        ("  the   golden\tcurry ", "the golden curry"),  # 4. white space collapsed, trimmed
        ("dont care", "dontcare"),  # 5.
        ("Dont  Care", "dontcare"),
        ("dontcare", "dontcare"),
        ("don't care", "dontcare"),  # apostrophe deleted first, then step 5
    ],
)
def test_default_values(raw, expected):
    assert default("area", raw) == expected


@pytest.mark.parametrize("raw", ["", "   ", "none", "None", " NONE ", "()", "''"])
def test_empty_and_none_mean_absent(raw):
    assert default("area", raw) is None


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("5:30 pm", "17:30"),
        ("5:30pm", "17:30"),  # space optional
        ("11:45 am", "11:45"),
        ("0:47 am", "00:47"),
        ("12:15 am", "00:15"),  # 12 am = 00
        ("12:15 pm", "12:15"),  # 12 pm = 12
        ("7 pm", "19:00"),
        ("7pm", "19:00"),
        ("12 am", "00:00"),
        ("9 AM", "09:00"),  # lower-cased first
        ("13:00 pm", "13:00 pm"),  # hour above 12 left as text
        ("9:30", "09:30"),  # h:mm
        ("09:30", "09:30"),
        ("23:59", "23:59"),
        ("24:00", "24:00"),  # hour not below 24: text
        ("1430", "14:30"),  # four digits hhmm
        ("0915", "09:15"),
        ("2515", "2515"),  # hour 25: text
        ("115", "115"),  # three digits: text
        ("9:5", "9:5"),  # one-digit minutes: text
        ("after 5:30 pm", "after 5:30 pm"),  # anything else stays text
        ("17:00|18:00", "17:00|18:00"),
    ],
)
def test_time_slots(raw, expected):
    for slot in ("arriveby", "leaveat", "time"):
        assert default(slot, raw) == expected


def test_time_rules_apply_only_to_time_slots():
    assert default("people", "1430") == "1430"
    assert default("name", "7 pm") == "7 pm"


def test_normalise_time_directly():
    assert normalise_time("12:00 pm") == "12:00"
    assert normalise_time("noon") == "noon"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("  Saint John's College ", "saint john's college"),  # only lower-case and trim
        ("a & b", "a & b"),
        ("dont care", "dont care"),
        ("5:30 pm", "5:30 pm"),
        ("none", "none"),
        ("", None),
        ("   ", None),
    ],
)
def test_strict_profile(raw, expected):
    assert strict("leaveat", raw) == expected
