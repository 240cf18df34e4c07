"""Trackboard's scoring library: dialogue-state-tracking metrics with intervals and signatures.

Pure Python with numpy; no web framework. The server and the ``python -m scoring`` command call
the same functions, so a participant reproduces the server's numbers exactly::

    from scoring import load_reference, load_prediction, score
    reference = load_reference(open("test-dstc11.gold.json", "rb").read(), "gold.json")
    prediction = load_prediction(open("run.json", "rb").read(), reference, "run.json")
    print(score(reference, prediction).jga)
"""

from __future__ import annotations

from scoring.dstc11 import Prediction, Reference, ReferenceSummary, load_prediction, load_reference
from scoring.errors import InvalidFile, ScoringError
from scoring.results import Comparison, Score, Settings, compare, score
from scoring.version import __version__


def __getattr__(name: str) -> object:
    # The statistics need numpy, which is imported only when first used.
    if name == "PairedTest":
        from scoring.stats import PairedTest

        return PairedTest
    raise AttributeError(f"module 'scoring' has no attribute {name!r}")


__all__ = [
    "Comparison",
    "InvalidFile",
    "PairedTest",
    "Prediction",
    "Reference",
    "ReferenceSummary",
    "Score",
    "ScoringError",
    "Settings",
    "__version__",
    "compare",
    "load_prediction",
    "load_reference",
    "score",
]
