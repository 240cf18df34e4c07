"""CSV for leaderboards (``?format=csv``): one header line, then one line per ranked row; every
cell through ``leaderboard.spreadsheets.spreadsheet_safe``."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping
from typing import Any

from rest_framework.renderers import BaseRenderer

from leaderboard.spreadsheets import spreadsheet_safe


class CSVRenderer(BaseRenderer):
    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"

    def render(
        self,
        data: Any,
        accepted_media_type: str | None = None,
        renderer_context: Mapping[str, Any] | None = None,
    ) -> bytes:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        if isinstance(data, dict) and "error" in data:
            # An error in the format asked for: its code and message.
            writer.writerow(["error", "message"])
            writer.writerow([_cell(data["error"]["code"]), _cell(data["error"]["message"])])
        elif isinstance(data, dict):
            # Anything else that is not a table (e.g. OPTIONS metadata): one row per field.
            writer.writerow(["field", "value"])
            for name, value in data.items():
                writer.writerow([_cell(name), _cell(json.dumps(value, default=str))])
        elif data:
            header = list(data[0])
            writer.writerow([_cell(name) for name in header])
            for row in data:
                writer.writerow([_cell(row.get(name)) for name in header])
        return out.getvalue().encode(self.charset)


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.4f}"
    return spreadsheet_safe(value)
