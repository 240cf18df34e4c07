"""Running a task on in-memory data, as the tests do."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from scoring import Resampling, Source, TaskResult, get_task


def data(value: Any) -> bytes:
    """Bytes of a file: given bytes as they are, anything else as JSON."""
    return value if isinstance(value, bytes) else json.dumps(value).encode()


def reference(
    gold: Any,
    task: str = "dstc11",
    options: Mapping[str, str] | None = None,
    files: Mapping[str, Any] | None = None,
    name: str = "gold.json",
) -> Any:
    sources = {key: Source(data(value), f"{key}.json") for key, value in (files or {}).items()}
    return get_task(task).load_reference(Source(data(gold), name), sources, options)


def prediction(
    pred: Any,
    loaded: Any,
    task: str = "dstc11",
    options: Mapping[str, str] | None = None,
    name: str = "run.json",
) -> Any:
    return get_task(task).load_prediction(Source(data(pred), name), loaded, options)


def score(
    gold: Any,
    pred: Any,
    task: str = "dstc11",
    options: Mapping[str, str] | None = None,
    resampling: Resampling | None = None,
    files: Mapping[str, Any] | None = None,
) -> TaskResult:
    """Load both files with the task and score the prediction."""
    loaded = reference(gold, task, options, files)
    return get_task(task).score(
        loaded, prediction(pred, loaded, task, options), options, resampling
    )
