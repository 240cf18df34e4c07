"""The task registry: every scoring task by name.

The web side and the command line look a task up here and use only its description
(:meth:`Task.describe`: formats, metrics with directions, primary metric, options, reference
files) and its three functions, which return a :class:`~scoring.taskapi.TaskResult`::

    from scoring.tasks import get_task, run
    task = get_task("multiwoz22")
    result = run(task, gold, prediction, files={"schema": schema}, options={"match": "fuzzy"})
    result.metrics(), result.intervals(), result.signature, result.as_dict(per_dialogue=True)
"""

from __future__ import annotations

from collections.abc import Mapping

from scoring.dstc11.task import TASK as DSTC11
from scoring.dvd.task import TASK as DVD
from scoring.errors import ScoringError
from scoring.multiwoz22.task import TASK as MULTIWOZ22
from scoring.results import Statistics
from scoring.taskapi import Resampling, Source, Task, TaskResult

TASKS: Mapping[str, Task] = {task.name: task for task in (DSTC11, MULTIWOZ22, DVD)}


def get_task(name: str) -> Task:
    """The task called ``name``; an unknown name raises ScoringError."""
    task = TASKS.get(name)
    if task is None:
        raise ScoringError(f"unknown task {name!r}; choose one of: " + ", ".join(TASKS))
    return task


def run(
    task: Task,
    gold: Source,
    prediction: Source,
    files: Mapping[str, Source] | None = None,
    options: Mapping[str, str] | None = None,
    resampling: Resampling | None = None,
    statistics: Statistics | None = None,
) -> TaskResult:
    """Load a reference and a prediction and score them, checking options and files first."""
    checked = task.check_options(options)
    extra = dict(files or {})
    known = {f.name for f in task.reference_files}
    unknown = sorted(set(extra) - known)
    if unknown:
        raise ScoringError(f"task {task.name!r} takes no reference file(s) {', '.join(unknown)}.")
    for spec in task.reference_files:
        if spec.required and spec.name not in extra:
            raise ScoringError(f"task {task.name!r} needs a {spec.label} file ({spec.name}).")
    resampling = resampling or Resampling()
    resampling.check()
    reference = task.load_reference(gold, extra, checked)
    loaded = task.load_prediction(prediction, reference, checked)
    return task.score(reference, loaded, checked, resampling, statistics)


__all__ = ["TASKS", "get_task", "run"]
