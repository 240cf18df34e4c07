"""The task registry: every scoring task by name.

The web side and the command line look a task up here and use only its description
(:meth:`Task.describe`: formats, metrics with directions, primary metric and tie-breaker,
options, reference files) and its methods, which return a :class:`~scoring.taskapi.TaskResult`::

    from scoring import Source, get_task
    task = get_task("multiwoz22")
    reference = task.load_reference(Source(gold, "gold.json"), {"schema": schema})
    prediction = task.load_prediction(Source(data, "run.json"), reference)
    result = task.score(reference, prediction, {"match": "fuzzy"})
    result.metrics(), result.intervals(), result.signature, result.as_dict(per_dialogue=True)
"""

from __future__ import annotations

from collections.abc import Mapping

from scoring import dstc11, dvd, multiwoz22
from scoring.errors import ScoringError
from scoring.taskapi import Task

TASKS: Mapping[str, Task] = {t.name: t for t in (dstc11.TASK, multiwoz22.TASK, dvd.TASK)}
NAMES = tuple(TASKS)


def get_task(name: str) -> Task:
    """The task called ``name``; an unknown name raises ScoringError."""
    task = TASKS.get(name)
    if task is None:
        raise ScoringError(f"unknown task {name!r}; choose one of: " + ", ".join(TASKS))
    return task


__all__ = ["NAMES", "TASKS", "get_task"]
