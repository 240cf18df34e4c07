"""The ``dstc11`` task: Joint Goal Accuracy, Slot Error Rate and their breakdowns.

Definitions (docs/scoring.md): one cumulative state per user turn; a turn is correct when the
normalised predicted state equals the normalised gold state; per turn, S = slots in both with
different values, D = gold-only slots, I = predicted-only slots, and SER = (S + D + I) / N_ref
over all turns.
"""

from __future__ import annotations

from scoring.dstc11.task import TASK

__all__ = ["TASK"]
