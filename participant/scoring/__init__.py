"""Trackboard's scoring library: dialogue-state-tracking metrics with intervals and signatures.

Pure Python with numpy; no web framework. The server and the ``python -m scoring`` command call
the same functions, so a participant reproduces the server's numbers exactly::

    from scoring import Source, get_task
    task = get_task("dstc11")
    reference = task.load_reference(Source(open("test-dstc11.gold.json", "rb").read(), "gold"))
    prediction = task.load_prediction(Source(open("run.json", "rb").read(), "run.json"), reference)
    print(task.score(reference, prediction).metrics()["jga"])
"""

from __future__ import annotations

from typing import Any

from scoring.errors import InvalidFile, ScoringError
from scoring.taskapi import (
    Comparison,
    Resampling,
    Source,
    Task,
    TaskResult,
    resampling_problems,
)
from scoring.tasks import NAMES, TASKS, get_task
from scoring.version import __version__


def __getattr__(name: str) -> Any:
    """``PairedTest`` on first use: the statistics (and numpy) load only where they run."""
    if name == "PairedTest":
        from scoring.stats import PairedTest

        return PairedTest
    raise AttributeError(f"module 'scoring' has no attribute {name!r}")


__all__ = [
    "NAMES",
    "TASKS",
    "Comparison",
    "InvalidFile",
    "PairedTest",
    "Resampling",
    "ScoringError",
    "Source",
    "Task",
    "TaskResult",
    "__version__",
    "get_task",
    "resampling_problems",
]
