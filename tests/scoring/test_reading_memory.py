"""Memory of reading a MultiWOZ 2.2 or DVD-DST prediction: the file is JSON read whole, so
beyond its bytes a reader holds the decoded text and the parsed document, about two more
copies of a file made of one huge string (docs/operators.md, "Slow clients", states the bound
of ~3 x the file's size with the file itself). Measured with tracemalloc, which counts every
allocation Python makes, so the figure does not depend on the machine."""

from __future__ import annotations

import contextlib
import json
import tracemalloc
from collections.abc import Callable

import pytest

from scoring.dvd.data import read_dvd
from scoring.errors import ScoringError
from scoring.multiwoz22.data import read_dialogues

MIB = 1 << 20
HUGE = "x" * (8 * MIB)


def _peak(read: Callable[[bytes], object], data: bytes) -> float:
    """The peak of what ``read(data)`` allocated, in sizes of ``data``."""
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        # refused or accepted: the memory of reading it is what counts here
        with contextlib.suppress(ScoringError):
            read(data)
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    return peak / len(data)


def _multiwoz(data: bytes) -> object:
    return read_dialogues(data, "run.json", None, gold=False)


def _dvd(data: bytes) -> object:
    return read_dvd(data, "run.json")


@pytest.mark.parametrize(
    ("read", "document"),
    [
        (_multiwoz, {HUGE: []}),
        (_multiwoz, {"d1": [{"hotel-name": HUGE}]}),
        (_dvd, {HUGE: []}),
        (_dvd, {"d1": [HUGE]}),
    ],
    ids=["multiwoz id", "multiwoz value", "dvd id", "dvd token state"],
)
def test_a_file_of_one_huge_string_costs_at_most_two_more_copies_of_it(read, document):
    data = json.dumps(document).encode()
    assert _peak(read, data) <= 2.2
