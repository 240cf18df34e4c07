"""Structured logs: one JSON object per line (``LOG_FORMAT=json``), for log collectors.

A small formatter rather than a dependency: the fields are the record's own.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import logging.config
from typing import Any

#: LogRecord attributes that are not "extra" fields passed by the caller.
_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime"}


class JsonFormatter(logging.Formatter):
    """``{"time", "level", "logger", "message", ...extra fields, "exception"}`` on one line."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": dt.datetime.fromtimestamp(record.created, dt.UTC).isoformat(
                timespec="milliseconds"
            ),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key, value in vars(record).items():
            if key not in _STANDARD and not key.startswith("_"):
                entry[key] = value
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        if record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        return json.dumps(entry, default=str, ensure_ascii=False)


def configure(config: dict[str, Any]) -> None:
    """Django's ``LOGGING_CONFIG``: ``LOGGING`` as Django applies it, and under
    ``LOG_FORMAT=json`` Python's warnings (a library's ``SecurityWarning`` at a worker's start)
    logged as records too, so that they are JSON lines rather than text on stderr."""
    logging.config.dictConfig(config)
    if config["handlers"]["console"]["formatter"] == "json":
        logging.captureWarnings(True)
