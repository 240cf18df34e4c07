"""The ``dstc11`` task: Joint Goal Accuracy, Slot Error Rate and their breakdowns.

Definitions (DESIGN.md, "Scoring rules"): one cumulative state per user turn; a turn is correct
when the normalised predicted state equals the normalised gold state; per turn,
S = slots in both with different values, D = gold-only slots, I = predicted-only slots, and
SER = (S + D + I) / N_ref over all turns.
"""

from __future__ import annotations

from scoring.dstc11.counting import Counts, DialogueStats, DomainStats, SlotStats, count
from scoring.dstc11.model import (
    MISSING_POLICIES,
    GoldFacts,
    Prediction,
    Reference,
    ReferenceSummary,
    load_prediction,
    load_reference,
)
from scoring.dstc11.states import State, normalise_dialogues

__all__ = [
    "MISSING_POLICIES",
    "Counts",
    "DialogueStats",
    "DomainStats",
    "GoldFacts",
    "Prediction",
    "Reference",
    "ReferenceSummary",
    "SlotStats",
    "State",
    "count",
    "load_prediction",
    "load_reference",
    "normalise_dialogues",
]
