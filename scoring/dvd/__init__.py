"""The ``dvd`` task: DVD-DST object states and temporal segments. See
:mod:`scoring.dvd.data` (formats) and :mod:`scoring.dvd.metrics` (definitions)."""

from __future__ import annotations

from scoring.dvd.task import TASK, Prediction, Reference, load_prediction, load_reference, score

__all__ = ["TASK", "Prediction", "Reference", "load_prediction", "load_reference", "score"]
