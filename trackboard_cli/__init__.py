"""``trackboard``: submit to a Trackboard site and read its results from the command line."""

from __future__ import annotations

__version__ = "0.1.0"
